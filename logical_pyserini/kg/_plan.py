"""Compile a BetaE query into a deterministic plan of single-operator steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._betae import QUERY_STRUCTURES

__all__ = ["Plan", "PlanError", "Step", "compile_query"]

_NEG, _UNION = -2, -1  # BetaE's markers for 'n' and 'u' inside a query


class PlanError(ValueError):
    """A query that does not match its structure."""


@dataclass(frozen=True)
class Step:
    """One operator applied to entity ids or earlier steps.

    Attributes
    ----------
    op : str
        ``"project"`` (``inputs``: one step, or ``anchor`` set; ``relation``),
        ``"intersect"`` (``inputs``; ``exclude`` steps are subtracted at the end of
        the step: negation as an explicit to-be-removed set) or ``"union"``.
    key : str
        Canonical signature of what the step computes (cache key): equal keys
        give equal sets, so repeated sub-structures are computed once.
    """

    op: str
    inputs: tuple[int, ...] = ()
    exclude: tuple[int, ...] = ()
    relation: int | None = None
    anchor: int | None = None
    key: str = ""


@dataclass
class Plan:
    """Steps in execution order; the last one is the answer.

    Attributes
    ----------
    steps : list of Step
        Projections of a branch come before the set operation that uses them.
    type : str
        BetaE structure name.
    """

    type: str
    query: tuple
    steps: list[Step] = field(default_factory=list)

    @property
    def anchors(self) -> list[int]:
        return [s.anchor for s in self.steps if s.anchor is not None]

    @property
    def relations(self) -> list[int]:
        return [s.relation for s in self.steps if s.relation is not None]

    def describe(self) -> list[str]:
        """Human-readable steps (``#2 = project(#1, r5)``)."""
        out = []
        for i, s in enumerate(self.steps):
            if s.op == "project":
                src = f"e{s.anchor}" if s.anchor is not None else f"#{s.inputs[0]}"
                out.append(f"#{i} = project({src}, r{s.relation})")
            else:
                args = ", ".join(f"#{j}" for j in s.inputs)
                neg = "".join(f" - #{j}" for j in s.exclude)
                out.append(f"#{i} = {s.op}({args}){neg}")
        return out


class _Builder:
    def __init__(self, plan: Plan):
        self.plan = plan
        self.by_key: dict[str, int] = {}

    def add(self, step: Step) -> int:
        # Repeated sub-structures (same key) reuse the earlier step.
        if step.key in self.by_key:
            return self.by_key[step.key]
        self.plan.steps.append(step)
        self.by_key[step.key] = len(self.plan.steps) - 1
        return self.by_key[step.key]

    def key(self, i: int) -> str:
        return self.plan.steps[i].key

    def chain(self, src: int | None, anchor: int | None, relations: tuple[int, ...]) -> int:
        """Projections along ``relations`` from ``anchor`` (an entity) or step ``src``."""
        for rel in relations:
            if src is None:
                src = self.add(Step("project", anchor=anchor, relation=rel, key=f"p(e{anchor},r{rel})"))
            else:
                src = self.add(Step("project", inputs=(src,), relation=rel, key=f"p({self.key(src)},r{rel})"))
        assert src is not None
        return src

    def node(self, structure, query) -> tuple[int, bool]:
        """Compile one node; returns (step index, negated?)."""
        if structure[0] == "e":  # anchor + relation chain, maybe ending in 'n'
            anchor, rels = query
            negated = structure[1][-1] == "n"
            if negated:
                if rels[-1] != _NEG:
                    raise PlanError(f"expected negation marker -2 at the end of {rels}")
                rels = rels[:-1]
            return self.chain(None, _id(anchor), tuple(_id(r) for r in rels)), negated
        if len(structure) == 2 and all(x == "r" for x in structure[1]):  # group then projections
            src = self.group(structure[0], query[0])
            return self.chain(src, None, tuple(_id(r) for r in query[1])), False
        return self.group(structure, query), False

    def group(self, structure, query) -> int:
        """An intersection (with negated members subtracted at its end) or a union."""
        union = structure[-1] == ("u",)
        if union:
            if tuple(query[-1]) != (_UNION,):
                raise PlanError(f"expected union marker (-1,) in {query}")
            structure, query = structure[:-1], query[:-1]
        pos, neg = [], []
        for s, q in zip(structure, query):
            idx, negated = self.node(s, q)
            (neg if negated else pos).append(idx)
        if union:
            keys = sorted(self.key(i) for i in pos)
            return self.add(Step("union", inputs=tuple(pos), key=f"u({','.join(keys)})"))
        if not pos:
            raise PlanError("an intersection needs a positive member")
        key = f"i({','.join(sorted(self.key(i) for i in pos))}" + "".join(
            f"-{k}" for k in sorted(self.key(i) for i in neg)) + ")"
        return self.add(Step("intersect", inputs=tuple(pos), exclude=tuple(neg), key=key))


def _id(x) -> int:
    if not isinstance(x, int) or isinstance(x, bool) or x < 0:
        raise PlanError(f"expected a non-negative integer id, got {x!r}")
    return x


def _check_shape(structure, query) -> None:
    if isinstance(structure, str):
        if structure == "e" or structure == "r":
            _id(query)
        return
    if not isinstance(query, tuple) or len(query) != len(structure):
        raise PlanError(f"query part {query!r} does not match structure {structure!r}")
    for s, q in zip(structure, query):
        _check_shape(s, q)


def compile_query(qtype: str, query: tuple) -> Plan:
    """Compile a BetaE query of type ``qtype`` into a :class:`Plan`.

    Raises
    ------
    PlanError
        Unknown type, or a query that does not have the type's shape.
    """
    if qtype not in QUERY_STRUCTURES:
        raise PlanError(f"unknown query type {qtype!r}; known: {' '.join(QUERY_STRUCTURES)}")
    structure = QUERY_STRUCTURES[qtype]
    try:
        _check_shape(structure, query)
    except TypeError:
        raise PlanError(f"query {query!r} does not match structure {qtype}") from None
    plan = Plan(qtype, query)
    _, negated = _Builder(plan).node(structure, query)
    if negated:
        raise PlanError("a query cannot end in a negation")
    return plan
