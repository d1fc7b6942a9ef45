"""Score TREC runs with ir_measures, overall and per query group."""

from __future__ import annotations

import json
import math
import os
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import ir_measures

__all__ = ["DEFAULT_MEASURES", "MEASURE_PRESETS", "EvalRow", "SignTestRow", "evaluate_runs", "format_sign_tests",
           "format_table", "per_query_values", "read_groups", "sign_counts", "sign_test", "sign_tests"]

DEFAULT_MEASURES = "nDCG@10 P@1 RR R@100"

#: Named measure sets for ``--measures``.  ``seed000`` is the OrLog paper's set: precision, recall, F1 and nDCG
#: at 1 and 10, and MRR (ir_measures' RR, averaged).
MEASURE_PRESETS = {"seed000": "P@1 R@1 F1@1 nDCG@1 P@10 R@10 F1@10 nDCG@10 RR"}

_F1 = re.compile(r"^F1@(\d+)$")


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
        ir_measures names separated by spaces, e.g. ``"nDCG@10 P@1 RR R@100"``,
        plus ``F1@k`` (per-query harmonic mean of P@k and R@k) and the presets of
        :data:`MEASURE_PRESETS` (``seed000``).
    groups : dict, optional
        qid -> group label; adds one row per group after the overall row.
    """
    names = _measure_names(measures)
    rows: list[EvalRow] = []
    for name, path in runs.items():
        per_query = per_query_values(qrels_path, path, measures)
        rows.append(_row(name, "all", list(per_query.values()), names))
        if groups:
            by_group: dict[str, list] = defaultdict(list)
            for qid, values in per_query.items():
                by_group[groups.get(qid, "(none)")].append(values)
            for label in sorted(by_group, key=_natural_key):
                rows.append(_row(name, label, by_group[label], names))
    return rows


def per_query_values(qrels_path: str | os.PathLike, run_path: str | os.PathLike,
                     measures: str = DEFAULT_MEASURES) -> dict[str, dict[str, float]]:
    """qid -> measure name -> value for every judged query (0 where the run has no line)."""
    names = _measure_names(measures)
    computed = _parse_measures(" ".join(_computed_names(names)))
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    judged = sorted({q.query_id for q in qrels if q.relevance > 0})
    if not Path(run_path).is_file():
        raise FileNotFoundError(f"run file not found: {run_path}")
    per_query: dict[str, dict[str, float]] = {qid: {str(m): 0.0 for m in computed} for qid in judged}
    for metric in ir_measures.iter_calc(computed, qrels, ir_measures.read_trec_run(str(run_path))):
        if metric.query_id in per_query:
            per_query[metric.query_id][str(metric.measure)] = float(metric.value)
    out = {}
    for qid, values in per_query.items():
        for name in names:
            f1 = _F1.match(name)
            if f1:
                p, r = values[f"P@{f1.group(1)}"], values[f"R@{f1.group(1)}"]
                values[name] = 2 * p * r / (p + r) if p + r > 0 else 0.0
        out[qid] = {name: values[name] for name in names}
    return out


def _measure_names(measures: str) -> list[str]:
    """Canonical measure names, presets expanded, in order, without duplicates."""
    names: list[str] = []
    for token in measures.replace(",", " ").split():
        for name in MEASURE_PRESETS.get(token, token).split():
            canonical = name if _F1.match(name) else str(_parse_measures(name)[0])
            if canonical not in names:
                names.append(canonical)
    if not names:
        raise ValueError("no measures given")
    return names


def _computed_names(names: list[str]) -> list[str]:
    """What ir_measures must compute for ``names`` (F1@k needs P@k and R@k)."""
    out: list[str] = []
    for name in names:
        f1 = _F1.match(name)
        for part in ([f"P@{f1.group(1)}", f"R@{f1.group(1)}"] if f1 else [name]):
            if part not in out:
                out.append(part)
    return out


@dataclass(frozen=True)
class SignTestRow:
    """A paired two-tailed sign test of ``run`` against ``baseline`` on one measure.

    ``wins`` / ``losses`` count queries where ``run`` is better / worse; ties are
    dropped, as the sign test prescribes; ``p`` is exact (binomial, p = 0.5).
    """

    run: str
    baseline: str
    measure: str
    group: str
    wins: int
    losses: int
    ties: int
    p: float


def sign_test(wins: int, losses: int) -> float:
    """Exact two-tailed p-value of the sign test: 2 P(X <= min(wins, losses)), X ~ Bin(n, 1/2), capped at 1."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def sign_counts(diffs: Iterable[float], tol: float = 1e-12) -> tuple[int, int, int]:
    """(wins, losses, ties) of paired differences; ``|d| <= tol`` is a tie (float noise is no win)."""
    diffs = list(diffs)
    wins, losses = sum(d > tol for d in diffs), sum(d < -tol for d in diffs)
    return wins, losses, len(diffs) - wins - losses


def sign_tests(
    qrels_path: str | os.PathLike,
    runs: dict[str, str | os.PathLike],
    measures: str,
    baseline: str | None = None,
    groups: dict[str, str] | None = None,
) -> list[SignTestRow]:
    """Paired sign tests of every run against ``baseline`` (default: the first run), per measure and group.

    Queries are paired by qid over every judged query (a query missing from a
    run counts as 0, as in :func:`evaluate_runs`).
    """
    if not runs:
        return []
    baseline = baseline or next(iter(runs))
    if baseline not in runs:
        raise ValueError(f"baseline run {baseline!r} is not among the runs ({', '.join(runs)})")
    names = _measure_names(measures)
    values = {name: per_query_values(qrels_path, path, measures) for name, path in runs.items()}
    rows = []
    for name in runs:
        if name == baseline:
            continue
        for measure in names:
            by_group: dict[str, list[float]] = defaultdict(list)
            for qid, base in values[baseline].items():
                diff = values[name][qid][measure] - base[measure]
                by_group["all"].append(diff)
                if groups:
                    by_group[groups.get(qid, "(none)")].append(diff)
            for label in sorted(by_group, key=lambda g: (g != "all", _natural_key(g))):
                wins, losses, ties = sign_counts(by_group[label])
                rows.append(SignTestRow(name, baseline, measure, label, wins, losses, ties, sign_test(wins, losses)))
    return rows


def format_sign_tests(rows: list[SignTestRow], group_name: str | None = None) -> str:
    """Markdown table of sign tests: wins / losses / ties against the baseline and the p-value."""
    if not rows:
        return "(no sign tests)"
    header = [group_name or "group", "run", "vs", "measure", "wins", "losses", "ties", "p (two-tailed)"]
    lines = [header] + [[r.group, r.run, r.baseline, r.measure, str(r.wins), str(r.losses), str(r.ties),
                         f"{r.p:.4g}"] for r in rows]
    return _markdown(lines)


def _row(run: str, group: str, values: list[dict[str, float]], measures: list[str]) -> EvalRow:
    n = len(values)
    means = {m: (sum(v[m] for v in values) / n if n else 0.0) for m in measures}
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
    lines = [header]
    for r in ordered:
        lines.append([r.group, r.run, str(r.n_queries), *(f"{r.values[m]:.4f}" for m in measures)])
    return _markdown(lines)


def _markdown(lines: list[list[str]]) -> str:
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    out = []
    for j, line in enumerate(lines):
        out.append("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths)) + " |")
        if j == 0:
            out.append("|" + "|".join("-" * (w + 2) for w in widths) + "|")
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
