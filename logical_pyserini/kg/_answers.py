"""Reference answers: a plain-Python set evaluator of BetaE structures.

Written independently of the plan compiler and the CSR store (dicts of sets,
straight recursion over the nested structure, like BetaE's own answer
generator), so that the ``exact`` executor scoring MRR 100 under the complete
protocol checks the compiler, the sparse projection, the set algebra and the
ranking together rather than one piece against itself.
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from ._betae import QUERY_STRUCTURES

__all__ = ["ReferenceGraph", "reference_answers"]


class ReferenceGraph:
    """``(head, relation) -> set(tails)`` built from a triples array."""

    def __init__(self, triples: np.ndarray):
        self.out: dict[tuple[int, int], set[int]] = defaultdict(set)
        for h, r, t in np.asarray(triples).tolist():
            self.out[(h, r)].add(t)

    def step(self, entities: set[int], relation: int) -> set[int]:
        out: set[int] = set()
        for e in entities:
            out |= self.out.get((e, relation), set())
        return out


def _answer(graph: ReferenceGraph, structure, query) -> tuple[set[int], bool]:
    if structure[0] == "e":
        ents = {query[0]}
        negated = False
        for marker, rel in zip(structure[1], query[1]):
            if marker == "n":
                negated = True
            else:
                ents = graph.step(ents, rel)
        return ents, negated
    if len(structure) == 2 and all(m == "r" for m in structure[1]):
        ents = _group(graph, structure[0], query[0])
        for rel in query[1]:
            ents = graph.step(ents, rel)
        return ents, False
    return _group(graph, structure, query), False


def _group(graph: ReferenceGraph, structure, query) -> set[int]:
    if structure[-1] == ("u",):
        out: set[int] = set()
        for s, q in zip(structure[:-1], query[:-1]):
            out |= _answer(graph, s, q)[0]
        return out
    pos, neg = [], []
    for s, q in zip(structure, query):
        ents, negated = _answer(graph, s, q)
        (neg if negated else pos).append(ents)
    out = set.intersection(*pos)
    for n in neg:
        out -= n
    return out


def reference_answers(graph: ReferenceGraph, qtype: str, query: tuple) -> set[int]:
    """Answers of ``query`` (a BetaE query of type ``qtype``) on ``graph``."""
    return _answer(graph, QUERY_STRUCTURES[qtype], query)[0]
