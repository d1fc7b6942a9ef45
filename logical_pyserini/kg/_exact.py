"""The ``exact`` executor: sparse set algebra over the graph it is given."""

from __future__ import annotations

from functools import reduce

import numpy as np

from ._executor import Executor, register_executor

__all__ = ["ExactExecutor"]


@register_executor
class ExactExecutor(Executor[np.ndarray]):
    """Entity sets as sorted id arrays; projection is a CSR row gather.

    Scores are 1 for members of the final set and 0 elsewhere, so under the
    complete protocol (graph = the full KG) every answer ranks first.
    """

    name = "exact"

    def project_anchor(self, entity, relation, step, ctx):
        return self.graph.project(np.array([entity]), relation)

    def project(self, value, relation, step, ctx):
        return self.graph.project(value, relation)

    def intersect(self, values, excluded, step, ctx):
        out = reduce(lambda a, b: np.intersect1d(a, b, assume_unique=True), values)
        for neg in excluded:  # negation: the to-be-removed set, subtracted at the end of the step
            out = np.setdiff1d(out, neg, assume_unique=True)
        return out

    def union(self, values, step, ctx):
        return reduce(np.union1d, values)

    def scores(self, value):
        out = np.zeros(self.graph.num_entities, np.float32)
        out[value] = 1.0
        return out

    def size(self, value):
        return int(len(value))
