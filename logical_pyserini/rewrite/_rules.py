"""Deterministic English -> logical query rewriter driven by ``rules.json``."""

from __future__ import annotations

import dataclasses
import logging
import re
from pathlib import Path

from ..query import And, Node, Not, Or, Term, normalize_text
from ._data import Rule, RuleData, load_rules, read_rules
from ._guard import drop_kind_only_terms
from ._types import Decomposition, Rewrite

__all__ = ["RuleRewriter", "split_clauses"]

log = logging.getLogger(__name__)

_MAX_DEPTH = 8
_WORD = re.compile(r"\w")
_WORDS = re.compile(r"[\w'-]+")


def split_clauses(text: str, data: RuleData | None = None) -> list[str]:
    """Cut a request into its clause-level alternatives.

    ``"Documents about A and B, or documents about C"`` -> ``["Documents about A
    and B", "documents about C"]``.  A comma before "or" marks a clause
    boundary only when the next word restates the request's head (the
    request's first word, or a head noun of ``rules.json`` already used
    before the comma) and the clause has no comma of its own, so lists
    ("Birds of Chile, Peru, or Bolivia", "Orchids of Guyana, Orchids of
    Honduras, or Orchids of Suriname") stay whole.  Read alone, each clause
    keeps its AND / NOT inside it: parsed as one span, "A but not B, or C"
    would exclude C as well.

    Parameters
    ----------
    text : str
        The request (after any filler stripping).
    data : RuleData, optional
        Compiled rules; the bundled ones by default.

    Returns
    -------
    list of str
        One element (the text) when there is no clause boundary.
    """
    data = data or load_rules()
    words = _WORDS.findall(text)
    first = words[0].lower() if words else ""
    clauses, start = [], 0
    for match in data.clause_or.finditer(text):
        nxt = match.group("next").lower()
        before = {w.lower() for w in _WORDS.findall(text[:match.start()])}
        clause = text[start:match.start()].strip()
        # A comma inside the would-be clause makes this ", or" the end of a serial list
        # ("Orchids of Guyana, Orchids of Honduras, or Orchids of Suriname").
        restated = nxt == first or (nxt in data.heads and nxt in before)
        if clause and restated and not re.search(r"[,;]", clause):
            clauses.append(clause)
            start = match.end()
    clauses.append(text[start:].strip())
    return [c for c in clauses if _WORD.search(c)] or [text]


class RuleRewriter:
    """Rewrite questions with the English patterns in a rules file.

    Rules are tried in file order on a span; the first that matches the whole
    span splits it, and each operand is rewritten again.  A span that no rule
    matches becomes one leaf, so noun phrases stay whole and a question the
    rules cannot analyse stays one leaf: the question minus polite openings
    ("what are some") and end punctuation, so never worse than plain search.

    Parameters
    ----------
    rules : str or Path, optional
        Rules file; the bundled ``rules.json`` by default.
    implicit : bool
        Also use the implicit rules, which split conjunctions that no
        connective word marks ("1990 American crime novels" -> ``"1990 novels"
        AND "American crime novels"``).  False keeps only connective-driven rules.

    Examples
    --------
    >>> RuleRewriter().rewrite("Films about World War III that are not environmental films").query
    '"Films about World War III" AND NOT "environmental films"'
    """

    def __init__(self, rules: str | Path | None = None, *, implicit: bool = True):
        data = load_rules() if rules is None else read_rules(rules)
        if not implicit:
            data = dataclasses.replace(data, rules=tuple(r for r in data.rules if not r.implicit))
        self.data: RuleData = data
        self.model_id = "rules" if implicit else "rules:explicit"
        self.stats: dict[str, int] = {"rules": 0, "analysed": 0, "single_leaf": 0}

    @property
    def version(self) -> str:
        return self.data.version

    # -- public interface -------------------------------------------------
    def rewrite(self, question: str) -> Rewrite:
        """Rewrite one question; ``source`` is ``"rules"``."""
        tree = self.tree(question)
        self.stats["rules"] += 1
        self.stats["single_leaf" if isinstance(tree, Term) else "analysed"] += 1
        return Rewrite.from_tree(question, tree, "rules")

    def decompose(self, question: str) -> Decomposition:
        """Decomposition built from the rule rewrite's leaves."""
        return Decomposition.from_tree(self.rewrite(question).tree, question, "rules")

    def tree(self, question: str) -> Node:
        """The query tree for ``question`` (no statistics)."""
        if not isinstance(question, str):
            raise TypeError(f"question must be a str, not {type(question).__name__}")
        whole = normalize_text(question)
        if not whole:
            raise ValueError("cannot rewrite an empty question")
        if len(whole) > self.data.max_chars:
            # Long texts are passages, not questions; also bounds regex work.
            return Term(whole)
        # Polite openings ("what are some") and end punctuation carry no condition.
        text = self._strip_fillers(whole)
        if not _WORD.search(text):
            return Term(whole)
        # Each clause of ", or <restated head>" is a request of its own.
        clauses = [self._rewrite(c, 0, "root") for c in split_clauses(self.data.mask(text), self.data)]
        tree = _flatten(_simplify(clauses[0] if len(clauses) == 1 else Or(tuple(clauses))))
        return drop_kind_only_terms(tree)  # "Documents" AND NOT "Documents about X": the first names no condition

    # -- engine -------------------------------------------------------------
    def _strip_fillers(self, text: str) -> str:
        for pattern, repl in self.data.strip_rewrite:  # "what films are set in X" -> "films set in X"
            text = pattern.sub(repl, text, count=1)
        for _ in range(3):  # "please find me some ..." peels in a few passes
            stripped = self.data.strip_suffix.sub("", self.data.strip_prefix.sub("", text, count=1), count=1)
            if stripped == text:
                break
            text = stripped
        return text

    def _trim(self, text: str) -> str:
        for _ in range(3):
            trimmed = self.data.operand_suffix.sub("", self.data.operand_prefix.sub("", text, count=1), count=1)
            if trimmed == text:
                break
            text = trimmed
        return text.strip()

    def _rewrite(self, text: str, depth: int, context: str) -> Node:
        """Rewrite a span found in ``context`` (root / conj / neg / disj)."""
        text = self._trim(text)
        if depth < _MAX_DEPTH:
            for rule in self.data.rules:
                if context not in rule.contexts:
                    continue
                node = self._split(rule, text, depth, context) if rule.split else self._match(rule, text, depth, context)
                if node is not None:
                    log.debug("rule %s matched %r", rule.name, text)
                    return node
        return Term(normalize_text(self.data.unmask(text)))

    def _match(self, rule: Rule, text: str, depth: int, context: str) -> Node | None:
        match = rule.pattern.fullmatch(text)
        if match is None:
            return None
        ops = {k: self._trim(v) for k, v in match.groupdict().items() if v}
        if any(len(ops.get(name, "").split()) < n for name, n in rule.min_words.items() if name not in rule.join):
            return None
        if any(self._has_head(ops.get(name, "")) for name in rule.no_head):
            return None
        # Completion between matched groups first, then joins, then completion
        # that involves joined operands ("non-X" borrows from the joined rest).
        late = {n: c for n, c in rule.complete.items() if n in rule.join or c[0] in rule.join}
        for name, (ref, mode) in rule.complete.items():
            if name not in late and name in ops and ref in ops:
                ops[name] = self._complete(ops[name], ops[ref], mode)
        for name, members in rule.join.items():
            ops[name] = " ".join(ops[m] for m in members if ops.get(m))
        needed = {t.text[1:] for t in _leaves(rule.build)}
        if not all(_WORD.search(ops.get(name, "")) for name in needed):
            return None
        if any(len(ops.get(name, "").split()) < n for name, n in rule.min_words.items()):
            return None
        if not all(self._has_head(ops.get(name, "")) for name in rule.need_head):
            return None
        for name, (ref, mode) in late.items():
            if name in ops and ref in ops:
                ops[name] = self._complete(ops[name], ops[ref], mode)
        subtrees = {
            name: Term(normalize_text(self.data.unmask(self._trim(ops[name]))))
            if name in rule.leaf
            else self._rewrite(ops[name], depth + 1, _inner(context, rule.operand_context[name]))
            for name in needed
        }
        return _flatten(_substitute(rule.build, subtrees))

    def _split(self, rule: Rule, text: str, depth: int, context: str) -> Node | None:
        if not rule.requires.search(text):
            return None
        parts, seps = self._cut(rule.split, text)
        if rule.op == "AND":
            # "Hispanic and Latino American novels": a headless item before a
            # full one is a coordinated modifier of it, so the two stay one name.
            i = 0
            while i < len(parts) - 1:
                if not self._has_head(parts[i]) and self._has_head(parts[i + 1]) and (
                    i == 0 or not self._has_head(parts[i - 1])
                ):
                    parts[i : i + 2] = [parts[i] + seps.pop(i) + parts[i + 1]]
                else:
                    i += 1
        if len(parts) < 2 or not all(_WORD.search(p) for p in parts):
            return None
        parts = self._complete_list(parts, coordinate=rule.op == "OR")
        if parts is None:
            return None
        inner = _inner(context, "conj" if rule.op == "AND" else "disj")
        children = tuple(self._rewrite(p, depth + 1, inner) for p in parts)
        return _flatten(And(children) if rule.op == "AND" else Or(children))

    def _cut(self, separator: re.Pattern, text: str) -> tuple[list[str], list[str]]:
        """Split ``text`` at ``separator``; return the parts and the separators between them."""
        parts, seps, start = [], [], 0
        for m in separator.finditer(text):
            if m.start() == m.end():
                continue
            parts.append(text[start : m.start()])
            seps.append(m.group(0))
            start = m.end()
        parts.append(text[start:])
        trimmed = [self._trim(p) for p in parts]
        # Drop empty pieces ("X, or, Y") together with the separator before them.
        keep = [i for i, p in enumerate(trimmed) if p]
        return [trimmed[i] for i in keep], [seps[i - 1] for i in keep[1:]]

    # -- ellipsis: "Birds of Chile or Peru" -> "Birds of Peru" ---------------
    def _has_head(self, text: str) -> bool:
        """Whether ``text`` names its own kind of thing (has a head noun)."""
        if self.data.relation_start.match(text):  # "of Peru", "based on novels"
            return False
        split = self.data.relation_split.match(text)
        before = split.group("head") if split else text
        words = [w.lower() for w in re.findall(r"[\w'-]+", self.data.unmask(before))]
        if split:
            words = words[:-1]  # the relation word itself
        if any(w in self.data.heads for w in words):
            return True
        # "Vertebrates from Rwanda": a plural word before a relation is a head too.
        return bool(split and words and re.fullmatch(r"\w{3,}s", words[-1]))

    def _is_modifier(self, text: str) -> bool:
        """Whether every word of ``text`` looks like an adjective ("Japanese", "illustrated")."""
        words = text.split()
        return 0 < len(words) <= 3 and all(self.data.adjective.fullmatch(w) for w in words)

    def _head_noun(self, text: str) -> str:
        """Head noun of ``text``: the last lexicon noun before any relation, else the last word there."""
        split = self.data.relation_split.match(text)
        before = split.group("head").rsplit(None, 1)[0] if split else text
        words = re.findall(r"[\w'-]+", before) or [text]
        return next((w for w in reversed(words) if w.lower() in self.data.heads), words[-1])

    def _complete(self, part: str, ref: str, mode: str = "auto") -> str:
        """Give ``part`` the head it shares with ``ref`` when it has none.

        ``auto`` reads a bare name as the complement of ``ref``'s relation
        ("Peru" after "Birds of Chile" -> "Birds of Peru"); ``modifier`` reads
        it as an adjective of ``ref``'s head ("medicinal" -> "medicinal Shrubs").
        """
        if self._has_head(part) or not self._has_head(ref):
            return part
        if self.data.relation_start.match(part):  # "of Peru", "set in Lima", "that won ..."
            return f"{self._head_noun(ref)} {part}"
        # Borrow from the nearest conjunct of a compound reference: "Southeast
        # Asia" after "Trees of Nepal that are also Flora of China".
        last = self.data.segment_break.split(ref)[-1].strip()
        if last != ref and self._has_head(last):
            ref = last
        # The last relation: "war and conflict" after "Novels from 1980 about war".
        split = self.data.relation_split_last.match(ref)
        if mode == "auto" and split and not self._is_modifier(part):
            return f"{split.group('head')} {part}"
        return f"{part} {self._head_noun(ref)}"

    def _complete_list(self, parts: list[str], coordinate: bool) -> list[str] | None:
        """Complete headless list items from their neighbours.

        With ``coordinate`` False, an item that could only borrow from its right
        ("Hispanic and Latino novels") means the list is one coordinated name:
        None is returned and the span is not split.
        """
        has_head = [self._has_head(p) for p in parts]
        out = list(parts)
        for i, part in enumerate(parts):
            if has_head[i]:
                continue
            left = next((out[j] for j in range(i - 1, -1, -1) if has_head[j]), None)
            right = next((parts[j] for j in range(i + 1, len(parts)) if has_head[j]), None)
            if left is not None and (self.data.relation_start.match(part) or self.data.relation_split.match(left)):
                out[i] = self._complete(part, left)
            elif right is not None:
                if not coordinate:
                    return None  # caller merges: "Hispanic and Latino novels" is one name
                # Coordinated modifiers share what follows: "Danish or Finnish sequel films".
                rest = right.split(None, 1)
                out[i] = f"{part} {rest[1]}" if len(rest) == 2 and not self.data.relation_start.match(part) else self._complete(part, right)
            elif left is not None:
                out[i] = self._complete(part, left)
        return out


def _inner(outer: str, operand: str) -> str:
    """Context of an operand: NOT / OR anywhere above wins over AND (the innermost NOT / OR wins)."""
    if operand != "conj":
        return operand
    return "conj" if outer == "root" else outer


def _leaves(node: Node) -> list[Term]:
    if isinstance(node, Term):
        return [node]
    if isinstance(node, Not):
        return _leaves(node.child)
    return [t for c in node.children for t in _leaves(c)]


def _substitute(node: Node, subtrees: dict[str, Node]) -> Node:
    if isinstance(node, Term):
        return subtrees[node.text[1:]]
    if isinstance(node, Not):
        return Not(_substitute(node.child, subtrees), node.weight)
    return type(node)(tuple(_substitute(c, subtrees) for c in node.children))


def _flatten(node: Node) -> Node:
    """Merge nested AND-in-AND / OR-in-OR; drop a NOT NOT."""
    if isinstance(node, Term):
        return node
    if isinstance(node, Not):
        child = _flatten(node.child)
        return child.child if isinstance(child, Not) and child.weight == node.weight == 1.0 else Not(child, node.weight)
    kind = type(node)
    children: list[Node] = []
    for child in map(_flatten, node.children):
        children.extend(child.children if isinstance(child, kind) else (child,))
    return kind(tuple(children))


def _implied(text: str, siblings: list[str]) -> bool:
    """Whether a sibling starts or ends with ``text`` (both padded with spaces)."""
    return any(t != text and (t.startswith(text) or t.endswith(text)) for t in siblings)


def _simplify(node: Node) -> Node:
    """Drop an AND operand implied by a sibling that extends it.

    ``"Films" AND "Films about kings"`` says no more than ``"Films about kings"``,
    nor ``"Shrubs" AND "medicinal Shrubs"`` more than ``"medicinal Shrubs"``;
    both arise when a bare head noun was borrowed by a completed operand.
    Duplicated siblings are dropped as well.
    """
    if isinstance(node, Term):
        return node
    if isinstance(node, Not):
        return Not(_simplify(node.child), node.weight)
    children = [_simplify(c) for c in node.children]
    unique: list[Node] = []
    for child in children:
        if child not in unique:
            unique.append(child)
    if isinstance(node, And):
        texts = [f" {c.text.lower()} " for c in unique if isinstance(c, Term)]
        unique = [c for c in unique if not (isinstance(c, Term) and _implied(f" {c.text.lower()} ", texts))]
    if len(unique) == 1:
        return unique[0]
    return type(node)(tuple(unique))
