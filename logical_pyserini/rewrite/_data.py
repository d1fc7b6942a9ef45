"""Load and compile ``rules.json``: macros, lexicons, rules and statement templates.

Everything language-specific lives in the JSON file; this module only turns
it into compiled regexes, so rules can be changed without touching code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from .._io import parse_json_object
from ..query import And, Node, Not, QuerySyntaxError, Term, parse_query

__all__ = ["Rule", "RuleData", "load_rules"]

_FLAGS = re.IGNORECASE
_MACRO = re.compile(r"\{([A-Z_]+)\}")
# Connective words inside a protected name are masked by shifting their first
# character into the Private Use Area, so no connective regex can see them.
_MASK_BASE = 0xE000
_UNMASK = re.compile("[\ue000-\ue0ff]")


CONTEXTS = ("root", "conj", "neg", "disj")


@dataclass(frozen=True)
class Rule:
    """One rewrite rule.

    A *pattern* rule matches the whole span and builds ``build`` from its
    named groups; a *split* rule cuts the span at every separator and joins
    the parts with ``op``.
    """

    name: str
    pattern: re.Pattern | None = None
    build: Node | None = None
    split: re.Pattern | None = None
    requires: re.Pattern | None = None
    op: str | None = None
    complete: dict[str, tuple[str, str]] = field(default_factory=dict)
    join: dict[str, tuple[str, ...]] = field(default_factory=dict)
    example: tuple[str, str] | None = None
    #: Context of each operand in ``build``: "conj" (under AND only), "neg" or "disj".
    operand_context: dict[str, str] = field(default_factory=dict)
    #: Where the rule may fire: "root" (the whole question), "conj" (an AND
    #: operand), "neg" (under NOT), "disj" (an OR operand).  AND-making rules
    #: stay out of NOT / OR operands, whose phrases are kept whole.
    contexts: frozenset[str] = frozenset(CONTEXTS)
    min_words: dict[str, int] = field(default_factory=dict)
    need_head: tuple[str, ...] = ()
    no_head: tuple[str, ...] = ()
    #: Operands kept as one leaf (not rewritten again).
    leaf: frozenset[str] = frozenset()
    #: No connective word triggers it ("1990 American novels" -> year AND rest).
    implicit: bool = False


@dataclass(frozen=True)
class RuleData:
    """Compiled contents of a rules file (see ``rules.json`` for the format)."""

    version: str
    max_chars: int
    rules: tuple[Rule, ...]
    strip_rewrite: tuple[tuple[re.Pattern, str], ...]
    strip_prefix: re.Pattern
    strip_suffix: re.Pattern
    operand_prefix: re.Pattern
    operand_suffix: re.Pattern
    protected: re.Pattern | None
    connective: re.Pattern
    heads: frozenset[str]
    adjective: re.Pattern
    relation_start: re.Pattern
    relation_split: re.Pattern
    relation_split_last: re.Pattern
    #: A relation word (and article) that ends a text: what introduces a bare leaf in the question.
    relation_before: re.Pattern
    segment_break: re.Pattern
    #: ", or" before a restated head: the boundary of two clauses (see :func:`split_clauses`).
    clause_or: re.Pattern
    clause_starters: frozenset[str]
    #: (pattern, template, template when the query's head noun is known or "").
    statements: tuple[tuple[re.Pattern, str, str], ...]
    singular_irregular: dict[str, str]
    singular_suffixes: tuple[tuple[str, str], ...]
    statement_prefix: re.Pattern

    def mask(self, text: str) -> str:
        """Hide connectives inside protected names ("Trinidad and Tobago")."""
        if self.protected is None:
            return text

        def hide(match: re.Match) -> str:
            return self.connective.sub(lambda m: chr(_MASK_BASE + ord(m.group(0)[0])) + m.group(0)[1:], match.group(0))

        return self.protected.sub(hide, text)

    @staticmethod
    def unmask(text: str) -> str:
        return _UNMASK.sub(lambda m: chr(ord(m.group(0)) - _MASK_BASE), text)


def _alternation(items: list[str]) -> str:
    # Longest first so "set in" wins over "in"; escaped, so entries are literal text.
    return "|".join(re.escape(i) for i in sorted(set(items), key=len, reverse=True))


def _expand(pattern: str, macros: dict[str, str], where: str) -> str:
    def sub(match: re.Match) -> str:
        name = match.group(1)
        if name not in macros:
            raise ValueError(f"{where}: unknown macro {{{name}}}")
        return macros[name]

    # Macros may use other macros; a few passes settle every nesting we write.
    for _ in range(4):
        pattern = _MACRO.sub(sub, pattern)
    return pattern


def _compile(pattern: str, macros: dict[str, str], where: str) -> re.Pattern:
    try:
        return re.compile(_expand(pattern, macros, where), _FLAGS)
    except re.error as exc:
        raise ValueError(f"{where}: bad regex: {exc}") from None


def _any_of(patterns: list[str], macros: dict[str, str], where: str, anchor: str) -> re.Pattern:
    body = "|".join(f"(?:{_expand(p, macros, where)})" for p in patterns) or "(?!)"
    return re.compile(anchor.format(body), _FLAGS)


def _parse_rule(raw: dict, macros: dict[str, str]) -> Rule:
    name = raw.get("name") or "?"
    where = f"rule {name!r}"
    example = tuple(raw["example"]) if "example" in raw else None
    if "split" in raw:
        if raw.get("op") not in ("AND", "OR"):
            raise ValueError(f"{where}: a split rule needs op AND or OR")
        return Rule(
            name,
            split=_compile(raw["split"], macros, where),
            requires=_compile(raw.get("requires", "."), macros, where),
            op=raw["op"],
            example=example,
            contexts=_contexts(raw, where),
        )
    if "pattern" not in raw or "build" not in raw:
        raise ValueError(f"{where}: needs either split+op or pattern+build")
    pattern = _compile(raw["pattern"], macros, where)
    try:
        build = parse_query(raw["build"])
    except QuerySyntaxError as exc:
        raise ValueError(f"{where}: build does not parse: {exc.reason}") from None
    join = {k: tuple(v) for k, v in raw.get("join", {}).items()}
    operands = set(pattern.groupindex) | set(join)
    used = set(re.findall(r"\$(\w+)", raw["build"]))
    # "complete": {"y": "x"} or {"y": "x:modifier"}: y borrows a missing head from x.
    complete = {}
    for operand, spec in raw.get("complete", {}).items():
        ref, _, mode = spec.partition(":")
        complete[operand] = (ref, mode or "auto")
        if mode not in ("", "auto", "modifier"):
            raise ValueError(f"{where}: unknown completion mode {mode!r}")
    for ref in [(k, r) for k, (r, _) in complete.items()] + [(m, k) for k, v in join.items() for m in v]:
        if not set(ref) <= operands:
            raise ValueError(f"{where}: complete/join names an unknown operand in {ref}")
    if not used <= operands:
        raise ValueError(f"{where}: build uses unknown operand(s) {sorted(used - operands)}")
    guarded = set(raw.get("min_words", {})) | set(raw.get("need_head", [])) | set(raw.get("no_head", []))
    if not guarded | set(raw.get("leaf", [])) <= operands:
        raise ValueError(f"{where}: guards or leaf name unknown operand(s)")
    return Rule(
        name,
        pattern,
        build,
        complete=complete,
        join=join,
        example=example,
        operand_context=_operand_contexts(build, "conj"),
        contexts=_contexts(raw, where),
        min_words={k: int(v) for k, v in raw.get("min_words", {}).items()},
        need_head=tuple(raw.get("need_head", [])),
        no_head=tuple(raw.get("no_head", [])),
        leaf=frozenset(raw.get("leaf", [])),
        implicit=bool(raw.get("implicit", False)),
    )


def _contexts(raw: dict, where: str) -> frozenset[str]:
    contexts = frozenset(raw.get("contexts", CONTEXTS))
    if not contexts <= set(CONTEXTS):
        raise ValueError(f"{where}: unknown context(s) {sorted(contexts - set(CONTEXTS))}")
    return contexts


def _operand_contexts(node: Node, context: str) -> dict[str, str]:
    """Context of each placeholder: the innermost NOT / OR above it wins."""
    if isinstance(node, Term):
        return {node.text[1:]: context}
    if isinstance(node, Not):
        return _operand_contexts(node.child, "neg")
    inner = context if isinstance(node, And) else "disj"
    out: dict[str, str] = {}
    for child in node.children:
        out.update(_operand_contexts(child, inner))
    return out


def parse_rules(data: dict) -> RuleData:
    """Compile a rules document (the parsed JSON)."""
    heads = [h.lower() for h in data.get("heads", [])]
    relations = data.get("relations", [])
    clause = [c.lower() for c in data.get("clause_starters", [])]
    macros = dict(data.get("macros", {}))
    # Lexicon macros are whole words, grouped so they can sit inside any pattern.
    macros.setdefault("HEAD", rf"(?:\b(?:{_alternation(heads) or '(?!)'})\b)")
    macros.setdefault("REL", rf"(?:\b(?:{_alternation(relations) or '(?!)'})\b)")
    macros.setdefault("CLAUSE", rf"(?:\b(?:{_alternation(clause) or '(?!)'})\b)")
    strip = data.get("strip", {})
    protected = data.get("protected", [])
    connectives = data.get("connectives", [])
    words = [c for c in connectives if c[:1].isalnum()]
    marks = [c for c in connectives if not c[:1].isalnum()]
    connective = "|".join([rf"\b(?:{_alternation(words)})\b"] * bool(words) + [_alternation(marks)] * bool(marks))
    singular = data.get("singular", {})
    return RuleData(
        version=str(data.get("version", "unversioned")),
        max_chars=int(data.get("max_chars", 400)),
        rules=tuple(_parse_rule(r, macros) for r in data.get("rules", [])),
        strip_rewrite=tuple(
            (_compile(pat, macros, "strip.rewrite"), repl) for pat, repl in strip.get("rewrite", [])
        ),
        strip_prefix=_any_of(strip.get("prefix", []), macros, "strip.prefix", r"^\s*(?:{})\s*"),
        strip_suffix=_any_of(strip.get("suffix", []), macros, "strip.suffix", r"\s*(?:{})\s*$"),
        operand_prefix=_any_of(strip.get("operand_prefix", []), macros, "strip.operand_prefix", r"^\s*(?:{})\s*"),
        operand_suffix=_any_of(strip.get("operand_suffix", []), macros, "strip.operand_suffix", r"\s*(?:{})\s*$"),
        protected=re.compile(rf"(?<!\w)(?:{_alternation(protected)})(?!\w)", _FLAGS) if protected else None,
        connective=re.compile(connective or "(?!)", _FLAGS),
        heads=frozenset(heads),
        adjective=_adjective_pattern(data),
        relation_start=_compile(r"^(?:{REL}|{CLAUSE})\b", macros, "relations"),
        relation_split=_compile(r"^(?P<head>.+?\s(?:{REL}))\s+(?P<comp>\S.*)$", macros, "relations"),
        relation_split_last=_compile(r"^(?P<head>.+\s(?:{REL}))\s+(?P<comp>\S.*)$", macros, "relations"),
        relation_before=_compile(r"(?:{REL})\s+(?:(?:an?|the)\s+)?$", macros, "relations"),
        clause_starters=frozenset(clause),
        segment_break=_compile(data.get("segment_break", "(?!)"), macros, "segment_break"),
        clause_or=_compile(data.get("clause_or", "(?!)(?P<next>)"), macros, "clause_or"),
        statements=tuple(
            (_compile(s["pattern"], macros, "statements"), s["template"], s.get("head_template", ""))
            for s in data.get("statements", [])
        ),
        singular_irregular={k.lower(): v for k, v in singular.get("irregular", {}).items()},
        singular_suffixes=tuple((a, b) for a, b in singular.get("suffixes", [])),
        statement_prefix=_compile(
            r"^\s*(?:" + "|".join(sorted(data.get("statement_prefixes", []), key=len, reverse=True) or ["(?!)"]) + r")\b\s*",
            macros,
            "statement_prefixes",
        ),
    )


def _adjective_pattern(data: dict) -> re.Pattern:
    """Words that read as adjectives: listed ones, demonym endings, and lower-case adjective endings.

    Adjective endings such as -al or -ary only count in lower case, so the
    place names "Nepal" and "Hungary" are not mistaken for adjectives.
    """
    listed = _alternation(data.get("adjectives", [])) or "(?!)"
    demonym = _alternation(data.get("demonym_suffixes", [])) or "(?!)"
    lower = _alternation(data.get("adjective_suffixes", [])) or "(?!)"
    return re.compile(rf"(?i:{listed})|\S+(?i:{demonym})|[a-z][\w'-]*(?:{lower})")


def read_rules(path: str | Path | None = None) -> RuleData:
    """Read and compile a rules file; ``None`` means the bundled ``rules.json``."""
    if path is None:
        text = resources.files(__package__).joinpath("rules.json").read_text(encoding="utf-8")
    else:
        text = Path(path).read_text(encoding="utf-8")
    return parse_rules(parse_json_object(text, f"rules file {path or 'rules.json'}"))


@lru_cache(maxsize=1)
def load_rules() -> RuleData:
    """The bundled rules, compiled once per process."""
    return read_rules(None)
