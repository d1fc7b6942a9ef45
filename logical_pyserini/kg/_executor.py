"""The executor interface, its registry and the per-query step cache."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np

from ._graph import KnowledgeGraph
from ._plan import Plan, Step

__all__ = ["Execution", "Executor", "ExecutorError", "executor_names", "get_executor", "register_executor"]

V = TypeVar("V")


class ExecutorError(ValueError):
    """Unknown executor name or bad executor options."""


@dataclass
class Execution:
    """What running one plan gave.

    Attributes
    ----------
    scores : numpy.ndarray
        ``(num_entities,)`` float scores of the final step; higher ranks first.
    steps : dict
        Step key -> size of the cached intermediate set (for inspection).
    info : dict
        Executor-specific counters (prompt tokens, seconds, cache hits, ...).
    """

    scores: np.ndarray
    steps: dict[str, int] = field(default_factory=dict)
    info: dict[str, Any] = field(default_factory=dict)


class Executor(Generic[V]):
    """Runs a :class:`Plan` step by step over a graph.

    Each step's value (an entity set, a fuzzy set, ...) is cached per query
    under the step's key, so a sub-structure that occurs twice is computed
    once and later steps refer to cached values.  Subclasses implement the
    four operators and :meth:`scores`.
    """

    name: ClassVar[str] = ""

    def __init__(self, graph: KnowledgeGraph, **options: Any):
        if options:
            raise ExecutorError(f"executor {self.name!r} takes no options {sorted(options)}")
        self.graph = graph

    # -- command line -------------------------------------------------------
    @classmethod
    def add_arguments(cls, parser: Any) -> None:
        """Add this executor's flags to an argparse parser (names must not clash with others')."""

    @classmethod
    def from_args(cls, graph: KnowledgeGraph, args: Any) -> "Executor":
        """Build from parsed CLI arguments."""
        return cls(graph)

    # -- operators (subclasses) ---------------------------------------------
    def project_anchor(self, entity: int, relation: int, step: Step, ctx: dict) -> V:
        raise NotImplementedError

    def project(self, value: V, relation: int, step: Step, ctx: dict) -> V:
        raise NotImplementedError

    def intersect(self, values: list[V], excluded: list[V], step: Step, ctx: dict) -> V:
        raise NotImplementedError

    def union(self, values: list[V], step: Step, ctx: dict) -> V:
        raise NotImplementedError

    def scores(self, value: V) -> np.ndarray:
        raise NotImplementedError

    def size(self, value: V) -> int:
        return int(np.count_nonzero(self.scores(value)))

    # -- driver -------------------------------------------------------------
    def execute(self, plan: Plan) -> Execution:
        """Run ``plan``; ``ctx`` carries the plan, the cache and executor counters to the operators."""
        cache: dict[str, V] = {}
        ctx: dict[str, Any] = {"plan": plan, "cache": cache, "values": [], "info": {"cache_hits": 0}}
        values: list[V] = ctx["values"]
        for step in plan.steps:
            if step.key in cache:
                ctx["info"]["cache_hits"] += 1
                values.append(cache[step.key])
                continue
            if step.op == "project":
                value = (self.project_anchor(step.anchor, step.relation, step, ctx) if step.anchor is not None
                         else self.project(values[step.inputs[0]], step.relation, step, ctx))
            elif step.op == "intersect":
                value = self.intersect([values[i] for i in step.inputs], [values[i] for i in step.exclude],
                                       step, ctx)
            elif step.op == "union":
                value = self.union([values[i] for i in step.inputs], step, ctx)
            else:  # pragma: no cover - plans only hold the three ops
                raise ExecutorError(f"unknown step op {step.op!r}")
            cache[step.key] = value
            values.append(value)
        return Execution(self.scores(values[-1]), {k: self.size(v) for k, v in cache.items()}, ctx["info"])


_REGISTRY: dict[str, type[Executor]] = {}


def register_executor(cls: type[Executor]) -> type[Executor]:
    """Class decorator: make ``cls`` available as ``--executor cls.name``."""
    if not cls.name:
        raise ExecutorError(f"{cls.__name__} needs a name")
    _REGISTRY[cls.name] = cls
    return cls


def executor_names() -> list[str]:
    return sorted(_REGISTRY)


def get_executor(name: str) -> type[Executor]:
    """The executor class registered as ``name``."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ExecutorError(f"unknown executor {name!r}; known: {', '.join(executor_names())}") from None

