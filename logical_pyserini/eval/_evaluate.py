"""Score TREC runs with ir_measures, overall and per query group."""

from __future__ import annotations

import json
import os
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import ir_measures

__all__ = ["DEFAULT_MEASURES", "EvalRow", "evaluate_runs", "format_table", "read_groups"]

DEFAULT_MEASURES = "nDCG@10 P@1 RR R@100"


@dataclass(frozen=True)
class EvalRow:
    run: str
    group: str
    n_queries: int
    values: dict[str, float]


def read_groups(spec: str) -> tuple[str, dict[str, str]]:
    """Parse ``META.jsonl:FIELD`` into (field, qid -> group value).

    Raises
    ------
    ValueError
        If the spec has no ``:FIELD`` or a line lacks ``qid`` / the field.
    """
    path, sep, fld = spec.rpartition(":")
    if not sep or not path or not fld:
        raise ValueError(f"--group-by expects META.jsonl:FIELD, got {spec!r}")
    if not Path(path).is_file():
        raise FileNotFoundError(f"metadata file not found: {path}")
    groups: dict[str, str] = {}
    with open(path, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            obj = json.loads(line)
            qid = obj.get("qid", obj.get("query_id", obj.get("id")))
            if qid is None or fld not in obj:
                raise ValueError(f"{path}:{lineno}: needs 'qid' and {fld!r}")
            groups[str(qid)] = str(obj[fld])
    return fld, groups


def evaluate_runs(
    qrels_path: str | os.PathLike,
    runs: dict[str, str | os.PathLike],
    measures: str = DEFAULT_MEASURES,
    groups: dict[str, str] | None = None,
) -> list[EvalRow]:
    """Mean of each measure per run (and per group), over every judged query.

    A judged query with no line in the run counts as 0 for every measure (as
    ``trec_eval -c`` does); dropping it would reward a system for failing.

    Parameters
    ----------
    qrels_path : str
        TREC qrels.
    runs : dict
        Run name -> TREC run file.
    measures : str
        ir_measures names separated by spaces, e.g. ``"nDCG@10 P@1 RR R@100"``.
    groups : dict, optional
        qid -> group label; adds one row per group after the overall row.
    """
    parsed = _parse_measures(measures)
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    judged = sorted({q.query_id for q in qrels if q.relevance > 0})
    rows: list[EvalRow] = []
    for name, path in runs.items():
        if not Path(path).is_file():
            raise FileNotFoundError(f"run file not found: {path}")
        per_query: dict[str, dict[str, float]] = {qid: {str(m): 0.0 for m in parsed} for qid in judged}
        for metric in ir_measures.iter_calc(parsed, qrels, ir_measures.read_trec_run(str(path))):
            if metric.query_id in per_query:
                per_query[metric.query_id][str(metric.measure)] = float(metric.value)
        rows.append(_row(name, "all", list(per_query.values()), parsed))
        if groups:
            by_group: dict[str, list] = defaultdict(list)
            for qid, values in per_query.items():
                by_group[groups.get(qid, "(none)")].append(values)
            for label in sorted(by_group, key=_natural_key):
                rows.append(_row(name, label, by_group[label], parsed))
    return rows


def _row(run: str, group: str, values: list[dict[str, float]], measures) -> EvalRow:
    n = len(values)
    means = {str(m): (sum(v[str(m)] for v in values) / n if n else 0.0) for m in measures}
    return EvalRow(run, group, n, means)


def _natural_key(label: str):
    return (0, int(label), "") if label.lstrip("-").isdigit() else (1, 0, label)


def format_table(rows: list[EvalRow], group_name: str | None = None) -> str:
    """Markdown table: one line per (group, run)."""
    if not rows:
        return "(no rows)"
    measures = list(rows[0].values)
    group_col = group_name or "group"
    header = [group_col, "run", "queries", *measures]
    ordered = sorted(rows, key=lambda r: (r.group != "all", _natural_key(r.group)))
    lines = [header, ["---"] * len(header)]
    for r in ordered:
        lines.append([r.group, r.run, str(r.n_queries), *(f"{r.values[m]:.4f}" for m in measures)])
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for line in lines:
        if line[0] == "---":
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
        else:
            out.append("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |")
    return "\n".join(out)


def _parse_measures(measures: str) -> list:
    parsed = []
    for name in measures.replace(",", " ").split():
        try:
            parsed.append(ir_measures.parse_measure(name))
        except (ValueError, NameError, SyntaxError) as exc:
            raise ValueError(f"unknown measure {name!r} ({exc})") from None
    if not parsed:
        raise ValueError("no measures given")
    return parsed
