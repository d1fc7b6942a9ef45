"""Atom statements for leaves and back: ``"comedy films"`` <-> ``"{x} is a comedy film"``.

Templates per phrasing live in ``rules.json`` (``statements``); the first
template whose pattern matches the whole leaf is used.
"""

from __future__ import annotations

import re

from ._data import RuleData, load_rules

__all__ = ["head_noun", "leaf_for", "question_phrase", "singular", "statement_for"]

_FIELD = re.compile(r"\{(\w+)(?:\|(\w+))?\}")
_ARTICLE = re.compile(r"\{article\}\s+(\S)")


def singular(word: str, data: RuleData | None = None) -> str:
    """Crude English singular of a plural head noun, keeping its case."""
    data = data or load_rules()
    lower = word.lower()
    if lower in data.singular_irregular:
        out = data.singular_irregular[lower]
        return out[:1].upper() + out[1:] if word[:1].isupper() else out
    for suffix, repl in data.singular_suffixes:
        if lower.endswith(suffix) and len(lower) > len(suffix) + 2 and not lower.endswith("ss"):
            return word[: len(word) - len(suffix)] + repl
    return word


def head_noun(leaves: list[str], data: RuleData | None = None) -> str | None:
    """The first head noun (``rules.json`` ``heads``) in ``leaves``, singular: ``["archaeology museums", "art"]``
    -> ``"museum"``."""
    data = data or load_rules()
    for leaf in leaves:
        for word in re.findall(r"[^\W\d_]+", leaf):
            if word.lower() in data.heads:
                return singular(word, data).lower()
    return None


def question_phrase(leaf: str, question: str, data: RuleData | None = None) -> str | None:
    """The bare ``leaf`` with the relation that introduces it in ``question``, else None.

    A rewrite can keep only the complement of a condition (``"library"`` for
    "maritime museums with a library"); the statement then reads "a museum
    with a library" instead of the vaguer "a museum related to library".
    Leaves that name a head noun or start with a relation are left alone.

    >>> question_phrase("library", "Maritime museums with a library but not art museums")
    'with a library'
    >>> question_phrase("art museums", "Maritime museums with a library but not art museums") is None
    True
    """
    data = data or load_rules()
    complete = data.relation_start.match(leaf) or head_noun([leaf], data) is not None
    if not question or complete or not re.search(r"[^\W\d_]", leaf):
        return None
    for match in re.finditer(rf"(?<!\w){re.escape(leaf)}(?!\w)", question, re.IGNORECASE):
        before = data.relation_before.search(question, 0, match.start())
        if before is not None:
            return question[before.start():match.end()]
    return None


def statement_for(leaf: str, data: RuleData | None = None, head: str | None = None) -> str:
    """A statement with an ``{x}`` placeholder that holds when ``{x}`` matches the leaf.

    ``head`` (the query's head noun) serves a leaf that does not name it:
    a bare ``"history"`` beside ``"archaeology museums"`` becomes ``"{x} is
    a museum related to history"`` and ``"devoted to art"`` becomes ``"{x}
    is a museum devoted to art"``, which a model can judge, where ``{x} fits
    the description "history"`` is true of nearly anything.

    >>> statement_for("1990s comedy films")
    '{x} is a 1990s comedy film'
    >>> statement_for("museums offering guided tours")
    '{x} is a museum offering guided tours'
    >>> statement_for("history", head="museum")
    '{x} is a museum related to history'
    >>> statement_for("devoted to art", head="museum")
    '{x} is a museum devoted to art'
    """
    data = data or load_rules()
    for pattern, template, head_template in data.statements:
        match = pattern.fullmatch(leaf)
        if match is None:
            continue
        if head and head_template:
            template = head_template
        groups = {k: v or "" for k, v in match.groupdict().items()}
        groups["leaf"] = leaf
        groups.setdefault("head", head or "")

        def fill(m: re.Match) -> str:
            name, flt = m.group(1), m.group(2)
            if name == "x":
                return "{x}"
            if name == "article":
                return "{article}"  # resolved below, once the next word is known
            value = groups.get(name, "")
            if flt == "singular":
                value = singular(value, data).lower() if value.lower() in data.heads else singular(value, data)
            elif flt == "lower_head" and value.split()[:1] and value.split()[0].lower() in data.heads:
                value = value[:1].lower() + value[1:]
            return value

        text = _FIELD.sub(fill, template)
        text = _ARTICLE.sub(lambda m: ("an " if m.group(1).lower() in "aeiou" else "a ") + m.group(1), text)
        return re.sub(r"\s+", " ", text.replace("{article}", "a")).strip()
    return f'{{x}} fits the description "{leaf}"'


def leaf_for(statement: str, data: RuleData | None = None) -> str:
    """A search phrase for a statement: the statement without ``{x}`` and its copula.

    >>> leaf_for("{x} is a comedy film")
    'comedy film'
    """
    data = data or load_rules()
    text = statement.replace("{x}", " ").strip()
    text = data.statement_prefix.sub("", text, count=1)
    text = re.sub(r"^(?:an?|the)\s+", "", text, flags=re.IGNORECASE)
    return text.strip().strip('"').strip().rstrip(".").strip() or statement.replace("{x}", "").strip()
