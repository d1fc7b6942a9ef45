"""Result types shared by every rewriter: :class:`Rewrite` and :class:`Decomposition`."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Protocol, runtime_checkable

from ..query import And, Node, Not, Or, QuerySyntaxError, Term, distinct_terms, map_terms, parse_query, positive_terms

__all__ = ["SOURCES", "Decomposition", "Rewrite", "Rewriter", "RewriteError"]

#: Where a rewrite came from: the rule rewriter, the model on its first try,
#: the model after one repair, the rules after the model failed, or the cache.
SOURCES = ("rules", "llm", "repaired", "fallback", "cache")


class RewriteError(ValueError):
    """A model answer that does not pass validation (the text says why)."""


@dataclass(frozen=True)
class Rewrite:
    """A natural-language question rewritten into the logical query language.

    Attributes
    ----------
    question : str
        The question as given.
    query : str
        The logical query, canonical text (``str(tree)``); parses with
        :func:`~logical_pyserini.query.parse_query`.
    tree : Node
        The parsed query.
    source : str
        One of :data:`SOURCES`.
    decomposition : Decomposition, optional
        The atoms behind the query with their natural-language predicates
        (LLM rewrites); what the OrLog oracle is asked.
    """

    question: str
    query: str
    tree: Node
    source: str
    decomposition: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}; expected one of {SOURCES}")

    @classmethod
    def from_tree(cls, question: str, tree: Node, source: str) -> "Rewrite":
        return cls(question, str(tree), tree, source)

    def orlog_decomposition(self, proposed: "Rewrite | None" = None) -> "Decomposition | None":
        """What OrLog judges for this rewrite: its own decomposition, else the rules' predicates for its tree.

        Parameters
        ----------
        proposed : Rewrite, optional
            The rewrite the guard turned into this one: its model parse tokens
            (a guarded rewrite carries none) are kept for OrLog's token accounting.

        Returns
        -------
        Decomposition or None
            None when no predicates can be built from the tree; OrLog then judges
            its leaves as they are.
        """
        decomposition = self.decomposition
        if decomposition is None:
            try:
                decomposition = Decomposition.from_tree(self.tree, self.question, self.source)
            except ValueError:
                return None
        parse_tokens = getattr(proposed.decomposition, "parse_tokens", 0) if proposed is not None else 0
        if parse_tokens:
            decomposition = replace(decomposition, parse_tokens=parse_tokens)
        return decomposition


_ATOM_ID = re.compile(r"\d+")
_QUOTED_ID = re.compile(r'"(\d+)"')


@dataclass(frozen=True)
class Decomposition:
    """OrLog-style decomposition: atomic statements plus a logical form over them.

    Attributes
    ----------
    question : str
        The question as given.
    atoms : tuple of str
        Statements about a candidate entity with an ``{x}`` placeholder,
        e.g. ``"{x} is a comedy film"`` (the input of a truth-valuation prompt).
    leaves : tuple of str
        One search phrase per atom (``"comedy films"``): the leaf that
        :meth:`to_tree` puts in the query tree.
    formula : str
        Logical form over atom indices in the query language with bare ids,
        e.g. ``"0 AND (1 OR 2) AND NOT 3"``; every atom is used.
    source : str
        One of :data:`SOURCES`.
    parse_tokens : int
        Model tokens (prompt + generated) spent producing it; 0 for rules.
    """

    question: str
    atoms: tuple[str, ...]
    leaves: tuple[str, ...]
    formula: str
    source: str = "rules"
    parse_tokens: int = field(default=0, compare=False)

    @property
    def usage(self) -> dict[str, int]:
        """Token usage in the shape OrLog's accounting reads (``total_tokens``)."""
        return {"total_tokens": self.parse_tokens}

    def __post_init__(self) -> None:
        # Tuples keep the frozen dataclass hashable even when lists are passed.
        object.__setattr__(self, "atoms", tuple(self.atoms))
        object.__setattr__(self, "leaves", tuple(self.leaves))
        if self.source not in SOURCES:
            raise ValueError(f"unknown source {self.source!r}; expected one of {SOURCES}")
        if not self.atoms or len(self.atoms) != len(self.leaves):
            raise ValueError("a decomposition needs one leaf per atom and at least one atom")
        for atom in self.atoms:
            if "{x}" not in atom:
                raise ValueError(f"atom {atom!r} lacks the {{x}} placeholder")
        if any(not leaf.strip() for leaf in self.leaves):
            raise ValueError("empty leaf in decomposition")
        object.__setattr__(self, "formula", canonical_formula(self.formula, len(self.atoms)))

    def formula_tree(self) -> Node:
        """The formula as a tree whose leaves are atom ids (``Term("0")``)."""
        return parse_query(self.formula)

    def to_tree(self) -> Node:
        """The logical query: the formula with each atom id replaced by its leaf."""
        return map_terms(self.formula_tree(), lambda t: Term(self.leaves[int(t.text)]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "atoms": list(self.atoms),
            "leaves": list(self.leaves),
            "formula": self.formula,
            "source": self.source,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Decomposition":
        return cls(data.get("question", ""), data["atoms"], data["leaves"], data["formula"], data.get("source", "rules"))

    @classmethod
    def from_tree(cls, node: Node, question: str = "", source: str = "rules") -> "Decomposition":
        """Decompose a logical query: one atom per distinct leaf.

        Statements come from the per-phrasing templates in ``rules.json``
        (``"1990s comedy films"`` -> ``"{x} is a 1990s comedy film"``); a
        bare leaf takes the relation that introduces it in ``question``
        (``"library"`` -> ``"{x} is a museum with a library"``).  Retriever prefixes on leaves are not kept.
        """
        from ._statements import head_noun, question_phrase, singular, statement_for  # late: rule data loads on use

        terms = distinct_terms(node)
        index = {t.key[0]: i for i, t in enumerate(terms)}
        formula = map_terms(node, lambda t: Term(str(index[t.key[0]])))
        # The kind of result comes from what is asked for: in "houseplants ...; avoid anything with ferns"
        # the head noun "fern" would make every atom "{x} is a fern related to houseplants ...".  A head only
        # a negated leaf has counts when the question names it outside its exclusions
        # (`"set in Paris" AND NOT "comedy films"` for "films set in Paris but not comedies").
        head = head_noun([t.text for t in positive_terms(node)])
        if head is None:
            head = head_noun([t.text for t in terms])
            if head and question:
                from ._guard import excluded_only_words  # late: the guard imports this module

                if any(singular(w).lower() == head for w in excluded_only_words(question)):
                    head = None
        return cls(
            question,
            tuple(statement_for((head and question_phrase(t.text, question)) or t.text, head=head) for t in terms),
            tuple(t.text for t in terms),
            render_formula(formula),
            source,
        )


def render_formula(node: Node) -> str:
    """Query text of an id tree with bare ids: ``0 AND NOT 1``."""
    return _QUOTED_ID.sub(r"\1", str(node))


def canonical_formula(formula: str, n_atoms: int) -> str:
    """Validate a formula over atom ids and return its canonical text.

    Raises
    ------
    ValueError
        When it does not parse, names something other than an atom id, names
        an id out of range, or leaves an atom unused.
    """
    try:
        tree = parse_query(formula)
    except QuerySyntaxError as exc:
        raise ValueError(f"formula does not parse: {exc.reason} at position {exc.position}") from None
    used: set[int] = set()
    for term in distinct_terms(tree):
        if term.retriever or not _ATOM_ID.fullmatch(term.text):
            raise ValueError(f"formula leaf {term.text!r} is not an atom id")
        used.add(int(term.text))
    if any(i >= n_atoms for i in used):
        raise ValueError(f"formula names atom {max(used)} but there are only {n_atoms} atoms")
    if len(used) != n_atoms:
        missing = sorted(set(range(n_atoms)) - used)
        raise ValueError(f"formula does not use atom(s) {missing}")
    return render_formula(tree)


def formula_from_json(value: Any) -> Node:
    """Convert a JSON logical form (``{"and": [0, {"not": 1}]}``) into an id tree."""
    if isinstance(value, bool):  # bool is an int subclass; never an atom id
        raise ValueError("formula values must be atom ids or operator objects")
    if isinstance(value, int):
        return Term(str(value))
    if isinstance(value, dict) and len(value) == 1:
        (op, arg), = value.items()
        op = str(op).lower()
        if op == "not":
            return Not(formula_from_json(arg))
        if op in ("and", "or") and isinstance(arg, list) and len(arg) >= 2:
            children = tuple(formula_from_json(a) for a in arg)
            return And(children) if op == "and" else Or(children)
    raise ValueError(f"cannot read formula part {value!r}")


@runtime_checkable
class Rewriter(Protocol):
    """What every rewriter offers (rules and LLM alike)."""

    stats: dict[str, int]

    def rewrite(self, question: str) -> Rewrite: ...

    def decompose(self, question: str) -> Decomposition: ...
