"""ProbLog posteriors of a formula over weighted atomic predicates.

Programs are built from generated identifiers only (``p0``, ``p1`` for atoms,
``n0``, ``n1`` for inner nodes, ``q`` for the query): no title or statement
text ever enters ProbLog source, so no escaping is needed and a hostile string
cannot change the program.

Two ways to get the posterior of each candidate:

* :func:`program_posterior` -- the paper's way: one program per candidate,
  grounded and compiled each time;
* :class:`CompiledFormula` -- compile the formula once per query (all atoms
  weighted 0.5) and evaluate each candidate by replacing the atom weights.
  The knowledge compilation only depends on the formula, so the results are
  the same (checked to 1e-9 in the tests); per candidate this costs tens of
  microseconds instead of milliseconds.
"""

from __future__ import annotations

import math
from typing import Sequence

from ..query import And, Node, Not, Term, distinct_terms

__all__ = ["BACKENDS", "CompiledFormula", "available_backends", "formula_program", "program_posterior"]

#: Knowledge compilers we use, best first: ``sdd`` needs PySDD; ``ddnnf`` uses
#: the dsharp binary shipped with problog.
BACKENDS = ("sdd", "ddnnf")


def available_backends() -> list[str]:
    """The entries of :data:`BACKENDS` that can run here."""
    from problog import get_evaluatable

    out = []
    for name in BACKENDS:
        try:
            cls = get_evaluatable(name)
        except Exception:  # noqa: BLE001 - problog raises its own errors for missing compilers
            continue
        if getattr(cls, "is_available", lambda: True)():
            out.append(name)
    return out


def _atom_ids(formula: Node) -> list[int]:
    return sorted(int(t.text) for t in distinct_terms(formula))


def _strengths(node: Node) -> list[float]:
    """The weights of the soft NOTs (``NOT^w``) in ``node``."""
    if isinstance(node, Term):
        return []
    own = [node.weight] if isinstance(node, Not) and node.weight != 1.0 else []
    children = (node.child,) if isinstance(node, Not) else node.children
    return own + [w for c in children for w in _strengths(c)]


def _check_probability(p: float) -> float:
    p = float(p)
    if not (0.0 <= p <= 1.0) or math.isnan(p):
        raise ValueError(f"plausibility {p!r} is not a probability in [0, 1]")
    return p


def formula_program(formula: Node, probabilities: Sequence[float] | None = None) -> str:
    """ProbLog source for ``formula`` (leaves are atom ids ``Term("0")``...).

    Parameters
    ----------
    formula : Node
        Tree over atom indices (see :class:`OrLogQuery`).
    probabilities : sequence of float, optional
        Plausibility of atom ``i`` at index ``i``; 0.5 for all when omitted
        (the program compiled once and re-weighted).

    Returns
    -------
    str
        A program whose only query is ``q``.
    """
    lines = []
    for i in _atom_ids(formula):
        p = 0.5 if probabilities is None else _check_probability(probabilities[i])
        lines.append(f"{p!r}::p{i}.")  # ProbLog parses 15 significant digits of this
    counter = [0, 0]  # helper clauses n0, n1, ...; soft exclusions e0, e1, ...

    def literal(node: Node) -> str:
        if isinstance(node, Term):
            return f"p{int(node.text)}"
        if isinstance(node, Not):
            if node.weight == 1.0:
                return f"\\+({literal(node.child)})"
            # NOT^w x holds unless a strength fact s (probability w) and x both hold: 1 - w * P(x).
            name = f"e{counter[1]}"
            counter[1] += 1
            lines.append(f"{node.weight!r}::s{name}.")
            lines.append(f"{name} :- s{name}, {literal(node.child)}.")
            return f"\\+({name})"
        name = f"n{counter[0]}"
        counter[0] += 1
        parts = [literal(c) for c in node.children]
        if isinstance(node, And):
            lines.append(f"{name} :- {', '.join(parts)}.")
        else:  # Or: one clause per disjunct
            lines.extend(f"{name} :- {part}." for part in parts)
        return name

    lines.append(f"q :- {literal(formula)}.")
    lines.append("query(q).")
    return "\n".join(lines) + "\n"


def _evaluatable(backend: str):
    from problog import get_evaluatable

    if backend not in BACKENDS:
        raise ValueError(f"unknown ProbLog backend {backend!r}; expected one of {BACKENDS}")
    return get_evaluatable(backend)


def program_posterior(formula: Node, probabilities: Sequence[float], backend: str = "sdd") -> float:
    """Posterior of ``q`` from a fresh program (ground + compile + evaluate)."""
    from problog.program import PrologString

    result = _evaluatable(backend).create_from(PrologString(formula_program(formula, probabilities))).evaluate()
    return float(next(iter(result.values())))


class CompiledFormula:
    """A formula compiled once; :meth:`posterior` re-weights the atoms per candidate.

    Parameters
    ----------
    formula : Node
        Tree over atom indices.
    backend : str
        ``sdd`` (default) or ``ddnnf``.

    Examples
    --------
    >>> from logical_pyserini.query import parse_query
    >>> f = CompiledFormula(parse_query('"0" OR "1"'))
    >>> round(f.posterior([0.5, 0.5]), 6)
    0.75
    """

    def __init__(self, formula: Node, backend: str = "sdd"):
        from problog.program import PrologString

        self.formula = formula
        self.backend = backend
        self.atom_ids = _atom_ids(formula)
        # Compile with a distinct placeholder weight per atom, then find each
        # atom's node by that weight: node names are not reliable after
        # compilation (ProbLog renames nodes and d-DNNF adds helper variables).
        placeholder = [0.0] * (max(self.atom_ids) + 1)
        for rank, i in enumerate(self.atom_ids):
            placeholder[i] = (rank + 1) / 1024  # short decimals survive ProbLog's 15-digit parsing
        self.program = formula_program(formula, placeholder)
        self._compiled = _evaluatable(backend).create_from(PrologString(self.program))
        by_weight = {round(placeholder[i], 9): i for i in self.atom_ids}
        strengths = {round(w, 9) for w in _strengths(formula)}
        if strengths & by_weight.keys():  # a soft NOT's fixed weight would pass for an atom's placeholder
            raise ValueError(f"a NOT weight equals an atom placeholder ({sorted(strengths & by_weight.keys())}); "
                             "use a weight that is not a multiple of 1/1024")
        self._nodes: dict[int, int] = {}
        for key, weight in self._compiled.get_weights().items():
            try:
                atom = by_weight.get(round(float(weight), 9))
            except (TypeError, ValueError):  # helper variables carry True / None weights
                continue
            if atom is not None:
                self._nodes[key] = atom
        # An atom without a node was simplified away: the posterior does not depend on it.

    def posterior(self, probabilities: Sequence[float]) -> float:
        """Posterior of the query for one candidate (``probabilities[i]`` for atom ``i``)."""
        checked = {i: _check_probability(probabilities[i]) for i in self.atom_ids}
        result = self._compiled.evaluate(weights={key: checked[i] for key, i in self._nodes.items()})
        return float(next(iter(result.values())))

    def posteriors(self, rows: Sequence[Sequence[float]]) -> list[float]:
        """:meth:`posterior` for each row (one row per candidate)."""
        return [self.posterior(row) for row in rows]
