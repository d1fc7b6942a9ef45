"""Checks on model answers: they must parse, use only quoted terms and stay on topic.

Bare words are valid query text, so a model's garbage ("lorem ipsum") would
parse as one term; requiring quoted terms and words shared with the question
is what turns garbage into a validation failure (and so into a fallback).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..query import Node, QuerySyntaxError, iter_terms, parse_query
from ._statements import leaf_for
from ._types import RewriteError, canonical_formula, formula_from_json, render_formula

__all__ = ["validate_decomposition", "validate_query"]

_QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_OPERATORS_ONLY = re.compile(r"(?:\s|\bAND\b|\bOR\b|\bNOT\b|[()])*")
_FENCE = re.compile(r"```[\w-]*\s*(.*?)```", re.DOTALL)
_LABEL = re.compile(r"^\s*(?:logical query|query|answer|output|result)\s*:\s*", re.IGNORECASE)
_CONTENT = re.compile(r"[^\W_]{3,}")


def _stem(word: str) -> str:
    word = word.lower()
    return word[:-1] if word.endswith("s") and len(word) > 3 else word


def _content_words(text: str) -> set[str]:
    return {_stem(w) for w in _CONTENT.findall(text)}


def _unwrap(answer: str) -> str:
    fenced = _FENCE.search(answer)
    return _LABEL.sub("", (fenced.group(1) if fenced else answer).strip()).strip()


def _check_leaves(leaves: list[str], question: str, max_leaves: int, max_chars: int, grounded: bool) -> None:
    if len(leaves) > max_leaves:
        raise RewriteError(f"too many terms ({len(leaves)}; at most {max_leaves})")
    asked = _content_words(question)
    for leaf in leaves:
        if len(leaf) > max_chars:
            raise RewriteError(f"term is longer than {max_chars} characters")
        if grounded and asked and not (_content_words(leaf) & asked):
            raise RewriteError(f"term {leaf!r} shares no word with the request")


def _check_query(text: str, question: str, max_leaves: int, max_chars: int, grounded: bool) -> Node:
    if not text:
        raise RewriteError("empty reply")
    try:
        tree = parse_query(text)
    except QuerySyntaxError as exc:
        raise RewriteError(f"the query does not parse: {exc.reason} at character {exc.position}") from None
    if not _OPERATORS_ONLY.fullmatch(_QUOTED.sub(" ", text)):
        raise RewriteError('every term must be a phrase in double quotes, joined only by AND, OR, NOT and parentheses')
    terms = [t for t, _ in iter_terms(tree)]
    if any(t.retriever for t in terms):
        raise RewriteError("retriever prefixes (bm25:, dense:) are not allowed")
    _check_leaves([t.text for t in terms], question, max_leaves, max_chars, grounded)
    return tree


def validate_query(
    answer: str, question: str, *, max_leaves: int = 8, max_leaf_chars: int = 200, grounded: bool = True
) -> Node:
    """The query tree in a model answer, or :class:`RewriteError` saying what is wrong.

    Accepts the query on one line or spread over several lines, inside a code
    fence or after a ``Query:`` label; when that fails, the first line alone.
    """
    text = _unwrap(answer)
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    candidates = [" ".join(lines)] + lines[:1] if len(lines) > 1 else [" ".join(lines)]
    first_error: RewriteError | None = None
    for candidate in candidates:
        try:
            return _check_query(candidate, question, max_leaves, max_leaf_chars, grounded)
        except RewriteError as exc:
            first_error = first_error or exc
    raise first_error  # type: ignore[misc]


def _json_object(answer: str) -> dict[str, Any]:
    text = _unwrap(answer)
    start, end = text.find("{"), text.rfind("}")
    if start < 0 or end <= start:
        raise RewriteError("the reply contains no JSON object")
    try:
        data = json.loads(text[start : end + 1])
    except json.JSONDecodeError as exc:
        raise RewriteError(f"the JSON does not parse: {exc.msg} at character {exc.pos}") from None
    if not isinstance(data, dict):
        raise RewriteError("the reply is not a JSON object")
    return data


def validate_decomposition(
    answer: str, question: str, *, max_atoms: int = 8, max_atom_chars: int = 200, grounded: bool = True
) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """``(atoms, leaves, formula)`` from a model's JSON answer, or :class:`RewriteError`.

    The answer is ``{"atoms": [...], "formula": ...}``; each atom a statement
    with ``{x}`` (or an object ``{"statement": ..., "query": ...}``), the
    formula query text over atom numbers or a JSON form (``{"and": [0, {"not": 1}]}``).
    """
    data = _json_object(answer)
    raw_atoms = data.get("atoms")
    if not isinstance(raw_atoms, list) or not raw_atoms:
        raise RewriteError('"atoms" must be a non-empty list')
    atoms, leaves = [], []
    for i, item in enumerate(raw_atoms):
        statement, leaf = item, None
        if isinstance(item, dict):
            statement, leaf = item.get("statement"), item.get("query")
        if not isinstance(statement, str) or statement.count("{x}") != 1:
            raise RewriteError(f"atom {i} must be a string with the placeholder {{x}} exactly once")
        leaf = leaf if isinstance(leaf, str) and leaf.strip() else leaf_for(statement)
        atoms.append(" ".join(statement.split()))
        leaves.append(" ".join(leaf.split()))
    _check_leaves(leaves, question, max_atoms, max_atom_chars, grounded)
    formula = data.get("formula")
    try:
        if isinstance(formula, (dict, int)) and not isinstance(formula, bool):
            formula = render_formula(formula_from_json(formula))
        if not isinstance(formula, str):
            raise ValueError('"formula" must be a string such as "0 AND NOT 1"')
        formula = canonical_formula(formula, len(atoms))
    except ValueError as exc:
        raise RewriteError(str(exc)) from None
    return tuple(atoms), tuple(leaves), formula
