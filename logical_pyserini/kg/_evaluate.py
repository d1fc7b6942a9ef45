"""Benchmark protocol: load a BetaE dataset, run an executor, write per-query rows and metrics."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable

import numpy as np
from tqdm import tqdm

from .._io import atomic_write, atomic_write_text
from ._answers import ReferenceGraph, reference_answers
from ._betae import TYPES, load_queries
from ._executor import Executor
from ._graph import GraphError, KnowledgeGraph, read_triples
from ._metrics import aggregate, filtered_ranks, query_metrics
from ._plan import compile_query

__all__ = ["PROTOCOLS", "Dataset", "EvalConfig", "evaluate", "load_dataset", "select_queries"]

logger = logging.getLogger(__name__)

#: protocol -> (graph the executor sees, whether answers reachable in train+valid are filtered out as easy)
PROTOCOLS = {"standard": ("train+valid", True), "complete": ("full", False)}


@dataclass
class Dataset:
    """A BetaE-format folder: ``train.txt``, ``valid.txt``, ``test.txt`` (or ``all.txt``), ``stats.txt``."""

    root: Path
    observed: np.ndarray  # train + valid triples
    full: np.ndarray  # every triple
    num_entities: int
    num_relations: int

    def graph(self, which: str) -> KnowledgeGraph:
        triples = self.observed if which == "train+valid" else self.full
        return KnowledgeGraph(triples, self.num_entities, self.num_relations)


def _stats(root: Path) -> tuple[int | None, int | None]:
    path = root / "stats.txt"
    if not path.exists():
        return None, None
    values = {}
    for part in path.read_text().replace("\n", " ").split():
        if ":" in part:
            key = part.rstrip(":")
            values[key] = None
            last = key
        elif part.isdigit():
            values[last] = int(part)
    return values.get("numentity"), values.get("numrelations")


def load_dataset(root: str | os.PathLike) -> Dataset:
    """Read the triples of a BetaE-format folder.

    Raises
    ------
    GraphError
        Missing folder or files (one line naming what is missing).
    """
    root = Path(root)
    if not root.is_dir():
        raise GraphError(f"{root}: no such data folder (expected train.txt, valid.txt, test.txt from BetaE's NELL995)")
    for name in ("train.txt", "valid.txt"):
        if not (root / name).exists():
            raise GraphError(f"{root}: missing {name}")
    observed = np.concatenate([read_triples(root / "train.txt"), read_triples(root / "valid.txt")])
    if (root / "test.txt").exists():
        full = np.concatenate([observed, read_triples(root / "test.txt")])
    elif (root / "all.txt").exists():
        full = read_triples(root / "all.txt")
    else:
        raise GraphError(f"{root}: missing test.txt (or all.txt)")
    n_ent, n_rel = _stats(root)
    n_ent = n_ent or int(max(full[:, 0].max(), full[:, 2].max()) + 1)
    n_rel = n_rel or int(full[:, 1].max() + 1)
    return Dataset(root, observed, full, n_ent, n_rel)


def select_queries(queries: dict[str, list[tuple]], types: Iterable[str], per_type: int | None,
                   seed: int = 0) -> list[tuple[str, int, tuple]]:
    """``(type, index in the sorted query list, query)`` for up to ``per_type`` random queries of each type.

    Types take turns (first query of every type, then the second, ...), so a
    run that stops early still covers every type.
    """
    picks = []
    for qtype in types:
        items = queries.get(qtype, [])
        idx = np.arange(len(items))
        if per_type is not None and per_type < len(items):
            idx = np.sort(np.random.default_rng(seed).choice(len(items), per_type, replace=False))
        picks.append([(qtype, int(i), items[i]) for i in idx])
    longest = max((len(p) for p in picks), default=0)
    return [p[j] for j in range(longest) for p in picks if j < len(p)]


@dataclass
class EvalConfig:
    """Everything one evaluation run needs (built by the CLI)."""

    data: Path
    queries: Path
    output: Path
    types: tuple[str, ...] = TYPES
    per_type: int | None = None
    seed: int = 0
    protocol: str = "standard"
    progress: bool = True
    extra: dict[str, Any] = field(default_factory=dict)


def _nested(x):
    return [_nested(v) for v in x] if isinstance(x, tuple) else x


def evaluate(config: EvalConfig, make_executor: Callable[[KnowledgeGraph], Executor]) -> dict[str, dict]:
    """Run every selected query; write ``OUTPUT`` (JSONL, one row per query) and ``OUTPUT.metrics.json``.

    A query whose execution fails gets a row with ``error`` and is left out of
    the metrics (and logged); queries without any answer to score (no hard
    answer under the standard protocol) get ``skipped``.

    Returns
    -------
    dict
        ``{type: {"MRR", "Hits@1", "Hits@3", "Hits@10", "n"}, ..., "_run": {...}}``
    """
    which, filter_easy = PROTOCOLS[config.protocol]
    t0 = time.perf_counter()
    dataset = load_dataset(config.data)
    queries = load_queries(config.queries)
    selected = select_queries(queries, config.types, config.per_type, config.seed)
    graph = dataset.graph(which)
    ref_full = ReferenceGraph(dataset.full)
    ref_observed = ReferenceGraph(dataset.observed) if filter_easy else None
    load_seconds = time.perf_counter() - t0
    executor = make_executor(graph)
    setup_seconds = time.perf_counter() - t0 - load_seconds
    rows: list[dict] = []
    exec_seconds = 0.0
    # OUTPUT.partial keeps finished rows if the run is stopped; renamed to OUTPUT at the end.
    with atomic_write(config.output, partial=True) as out, tqdm(selected, desc=f"kg {executor.name}", unit="q",
                                                   disable=not config.progress) as bar:
        for qtype, index, query in bar:
            row: dict[str, Any] = {"type": qtype, "index": index, "query": _nested(query)}
            try:
                plan = compile_query(qtype, query)
                answers = reference_answers(ref_full, qtype, query)
                easy = reference_answers(ref_observed, qtype, query) if ref_observed is not None else set()
                targets = answers - easy
                row.update(n_answers=len(answers), n_easy=len(easy), n_targets=len(targets),
                           n_easy_not_answers=len(easy - answers))
                if not targets:
                    row["skipped"] = "no answer to score" + (" (all answers are easy)" if answers else "")
                else:
                    t = time.perf_counter()
                    result = executor.execute(plan)
                    dt = time.perf_counter() - t
                    exec_seconds += dt
                    # BetaE filters its easy answers (the observed graph's) and its hard ones: for a negation
                    # query the observed graph's answers include entities that only a test edge of the negated
                    # branch excludes; they are neither scored nor ranked against (KGReasoning's test_step).
                    ranks = filtered_ranks(result.scores, targets, answers | easy)
                    top = np.argsort(-result.scores, kind="stable")[:10]
                    row.update(metrics=query_metrics(ranks), seconds=round(dt, 4),
                               top10=[int(e) for e in top if result.scores[e] > 0],
                               steps=plan.describe(), step_sizes=result.steps,
                               **({"info": result.info} if result.info else {}))
            except Exception as exc:  # one bad query must not lose the run
                logger.warning("query %s #%d failed: %s: %s", qtype, index, type(exc).__name__, exc)
                row["error"] = f"{type(exc).__name__}: {exc}"
            rows.append(row)
            out.write(json.dumps(row) + "\n")
            out.flush()
    metrics: dict[str, Any] = aggregate(rows)
    metrics = {t: metrics[t] for t in TYPES if t in metrics}
    scored = sum(1 for r in rows if r.get("metrics"))
    metrics["_run"] = {
        "executor": executor.name, "protocol": config.protocol, "graph": which, "queries": len(rows),
        "scored": scored, "skipped": sum(1 for r in rows if "skipped" in r),
        "errors": sum(1 for r in rows if "error" in r), "per_type": config.per_type, "seed": config.seed,
        "load_seconds": round(load_seconds, 2), "setup_seconds": round(setup_seconds, 2),
        "exec_seconds": round(exec_seconds, 2),
        "queries_per_second": round(scored / exec_seconds, 1) if exec_seconds else None,
        "total_seconds": round(time.perf_counter() - t0, 2), **config.extra,
    }
    atomic_write_text(f"{config.output}.metrics.json", json.dumps(metrics, indent=1) + "\n")
    return metrics
