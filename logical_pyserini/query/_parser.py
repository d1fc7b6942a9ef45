"""Compile query text into an operator tree with the lark grammar in ``grammar.lark``."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ._tree import And, Node, Not, Or, Term, normalize_text

__all__ = ["MAX_DEPTH", "QuerySyntaxError", "parse_query"]

MAX_DEPTH = 100
"""Deepest nesting of parentheses and NOTs a query may have.

The tree is walked recursively (here and in composition, explanation and
printing); bounding the depth keeps every walk far below Python's recursion
limit, so a hostile query fails with a position instead of a RecursionError.
"""


class QuerySyntaxError(ValueError):
    """A query that does not follow the grammar.

    Attributes
    ----------
    query : str
        The offending query.
    position : int
        0-based character offset of the problem.
    reason : str
        Human-readable description without the caret display.
    """

    def __init__(self, reason: str, query: str, position: int):
        self.reason = reason
        self.query = query
        self.position = max(0, min(position, len(query)))
        super().__init__(self._render())

    def _render(self) -> str:
        # Show only the line that holds the error so multi-line topics stay readable.
        line_start = self.query.rfind("\n", 0, self.position) + 1
        line_end = self.query.find("\n", self.position)
        line = self.query[line_start : None if line_end < 0 else line_end]
        caret = " " * (self.position - line_start) + "^"
        return f"{self.reason} at position {self.position}\n  {line}\n  {caret}"


def _retriever_names() -> tuple[str, ...]:
    # The registry is import-light (it loads no retriever); imported here, not at module level, because
    # the retrieve package itself imports the query package.
    from ..retrieve import retriever_names

    return retriever_names()


@lru_cache(maxsize=4)
def _lark(names: tuple[str, ...]) -> Lark:
    grammar = resources.files(__package__).joinpath("grammar.lark").read_text(encoding="utf-8")
    # Longest names first, so that a name that prefixes another cannot shadow it.
    grammar = grammar.replace("@RETRIEVERS@", "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True)))
    # LALR: linear time and precise errors.  The basic (not contextual) lexer
    # keeps AND / OR / NOT keywords everywhere, so "AND a" is an error rather
    # than a term that happens to start with the word AND.
    return Lark(grammar, parser="lalr", lexer="basic", maybe_placeholders=False)


_ESCAPE = re.compile(r"\\(.)")


class _ToNodes(Transformer):
    def __init__(self, query: str):
        super().__init__()
        self.query = query

    @v_args(tree=True)
    def term(self, tree: Tree) -> Term:
        tokens: list[Token] = tree.children
        retriever = None
        if tokens and tokens[0].type == "RETRIEVER":
            retriever = tokens[0].value[:-1]
            tokens = tokens[1:]
        start = tokens[0].start_pos
        if tokens[0].type == "PHRASE":
            text = _ESCAPE.sub(r"\1", tokens[0].value[1:-1])
            if not text.strip():
                raise QuerySyntaxError("empty quoted term", self.query, start)
        else:
            text = " ".join(t.value for t in tokens)
        return Term(normalize_text(text), retriever, start)

    def negation(self, children: list) -> Not:
        token = children[0]
        _, _, weight = token.value.partition("^")
        if not weight:
            return Not(children[1])
        if not 0.0 < float(weight) <= 1.0:
            raise QuerySyntaxError(f"NOT weight must be in (0, 1], not {weight}", self.query, token.start_pos)
        return Not(children[1], float(weight))

    def group(self, children: list) -> Node:
        return children[1]

    def and_expr(self, children: list) -> And:
        return And(_flatten(children, And))

    def or_expr(self, children: list) -> Or:
        return Or(_flatten(children, Or))


def _flatten(children: list, kind: type) -> tuple:
    out: list = []
    for child in children:
        out.extend(child.children if isinstance(child, kind) else (child,))
    return tuple(out)


def parse_query(query: str) -> Node:
    """Parse a logical query into an operator tree.

    Parameters
    ----------
    query : str
        E.g. ``'"museum" AND ("Paris" OR Amsterdam) AND NOT "art museum"'``.

    Returns
    -------
    Node
        A :class:`Term`, :class:`Not`, :class:`And` or :class:`Or`.

    Raises
    ------
    QuerySyntaxError
        With the position of the problem and a caret display.
    """
    if not isinstance(query, str):
        raise TypeError(f"query must be a str, not {type(query).__name__}")
    if not query.strip():
        raise QuerySyntaxError("empty query", query, 0)
    too_deep = _too_deep(query)
    if too_deep is not None:
        raise QuerySyntaxError(f"query nests deeper than {MAX_DEPTH} levels of parentheses / NOT", query, too_deep)
    try:
        tree = _lark(_retriever_names()).parse(query)
    except UnexpectedInput as exc:
        raise _explain(exc, query) from None
    try:
        return _ToNodes(query).transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, QuerySyntaxError):
            raise exc.orig_exc from None
        raise


def _too_deep(query: str) -> int | None:
    """Position of the first token past :data:`MAX_DEPTH` levels of nesting, or None.

    Depth counts open parentheses plus the NOTs that still wait for their
    operand at each level, so ``NOT NOT NOT x`` and ``(((x)))`` both count 3.
    A query the lexer rejects is left to the parser (its error comes first).
    """
    if query.count("(") + query.count("NOT") <= MAX_DEPTH:
        return None  # cheap exit for every ordinary query
    nots = [0]  # pending NOTs per open parenthesis level
    try:
        for token in _lark(_retriever_names()).lex(query):  # lazily: stops at the first token too deep
            if _deeper_than_max(token, nots):
                return token.start_pos
    except UnexpectedInput:
        pass
    return None


def _deeper_than_max(token: Token, nots: list[int]) -> bool:
    """Track one token's effect on the nesting; True once it passes :data:`MAX_DEPTH`."""
    if token.type == "LPAR":
        nots.append(0)
    elif token.type == "RPAR":
        if len(nots) > 1:
            nots.pop()
        nots[-1] = 0
    elif token.type == "NOT":
        nots[-1] += 1
    elif token.type in ("WORD", "PHRASE"):
        nots[-1] = 0
    else:
        return False
    return len(nots) - 1 + sum(nots) > MAX_DEPTH


_OPERATORS = {"_AND": "AND", "_OR": "OR", "NOT": "NOT"}


def _explain(exc: UnexpectedInput, query: str) -> QuerySyntaxError:
    """Turn lark's exception into a message a search user understands."""
    if isinstance(exc, UnexpectedCharacters):
        pos = exc.pos_in_stream
        if query[pos] == '"':
            return QuerySyntaxError("unterminated quote", query, pos)
        return QuerySyntaxError(f"unexpected character {query[pos]!r}", query, pos)

    token = getattr(exc, "token", None)
    at_end = isinstance(exc, UnexpectedEOF) or (token is not None and token.type == "$END")
    if at_end:
        open_pos = _unclosed_paren(query)
        if open_pos is not None:
            return QuerySyntaxError("unbalanced parentheses: '(' is never closed", query, open_pos)
        last = _last_operator(query)
        if last is not None:
            return QuerySyntaxError(f"operator {last[1]} has no right operand", query, last[0])
        return QuerySyntaxError("query ends unexpectedly", query, len(query.rstrip()))

    pos = token.start_pos
    kind = token.type
    if kind == "RPAR":
        if _depth_before(query, pos) <= 0:
            return QuerySyntaxError("unbalanced parentheses: ')' has no matching '('", query, pos)
        return QuerySyntaxError("expected a term before ')'", query, pos)
    if kind in ("_AND", "_OR"):
        return QuerySyntaxError(f"operator {_OPERATORS[kind]} has no left operand", query, pos)
    if kind == "NOT":
        return QuerySyntaxError("NOT must start an operand; write 'AND NOT' or 'OR NOT'", query, pos)
    prev = _token_before(query, pos)
    if prev is not None and prev.type == "WORD" and prev.value.endswith(":") and kind == "PHRASE":
        return QuerySyntaxError(
            f"unknown retriever prefix {prev.value!r} (expected {_or_list([n + ':' for n in _retriever_names()])})",
            query, prev.start_pos
        )
    if kind in ("PHRASE", "WORD", "LPAR", "RETRIEVER"):
        return QuerySyntaxError("missing operator (AND / OR) between terms", query, pos)
    return QuerySyntaxError(f"unexpected {token.value!r}", query, pos)


def _or_list(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " or " + items[-1]


def _paren_events(query: str):
    """Yield (position, +1/-1) for parentheses outside quoted phrases."""
    in_quote = escaped = False
    for i, ch in enumerate(query):
        if in_quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_quote = False
        elif ch == '"':
            in_quote = True
        elif ch in "()":
            yield i, 1 if ch == "(" else -1


def _unclosed_paren(query: str) -> int | None:
    stack: list[int] = []
    for pos, delta in _paren_events(query):
        if delta > 0:
            stack.append(pos)
        elif stack:
            stack.pop()
    return stack[-1] if stack else None


def _depth_before(query: str, position: int) -> int:
    return sum(delta for pos, delta in _paren_events(query) if pos < position)


def _tokens(query: str) -> list[Token]:
    try:
        return list(_lark(_retriever_names()).lex(query))
    except UnexpectedInput:
        return []


def _token_before(query: str, position: int) -> Token | None:
    before = [t for t in _tokens(query) if t.start_pos < position]
    return before[-1] if before else None


def _last_operator(query: str) -> tuple[int, str] | None:
    """Position and name of the final token when it is an operator."""
    tokens = _tokens(query)
    if tokens and tokens[-1].type in _OPERATORS:
        return tokens[-1].start_pos, _OPERATORS[tokens[-1].type]
    return None
