"""Fusion rules for OrLog, compared offline from the rerank records of real runs.

    python eval/bench_fusion.py --set NAME=RUN.rerank.jsonl,QRELS[,BOOLEAN_RUN] ... [--rules default,no-lift,...]

Every reranked run writes ``RUN.rerank.jsonl`` (``python -m logical_pyserini.search
... --rerank orlog``): per topic, each reranked candidate's base rank and score
and its posterior.  This script re-fuses those posteriors with the base scores
under each rule (the product's own :func:`logical_pyserini.rerank.fuse`), so a
rule is measured on cached model judgements in seconds, without a model.  The
ranking below the reranked depth is the base one, so nDCG@10 and P@1 of the
top candidates are those of the full run.  For each set: the base run (the
ranking before OrLog), the Boolean peer when its run is given, and every rule:
nDCG@10 / P@1, and the topics whose P@1 or nDCG@10 falls below the base's.
Topics that fell back to the base ranking (an empty record) are left out.
"""

from __future__ import annotations

import json
from pathlib import Path

import ir_measures
import numpy as np
from ir_measures import P, nDCG

from _common import base_parser, command, header, log, md_table, write_lines
from logical_pyserini.rerank import (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_FLOOR, LIFT_RATIO, LOW_CONFIDENCE_FUSION,
                                     TIE_SPREAD, fuse)

# name -> (fusion weight, lift, lift ratio, weight for a low-confidence query, lift floor, tie spread); "default" is
# what search uses with --oracle llm; "no-tie" was the default in the 24th session, "no-floor" from the 22nd to the
# 24th, "lift-always" before that.
D = (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_RATIO, LOW_CONFIDENCE_FUSION)
RULES = {
    "default": D + (LIFT_FLOOR, TIE_SPREAD),
    "no-tie": D + (LIFT_FLOOR, 0.0),
    "tie-0.05": D + (LIFT_FLOOR, 0.05),
    "tie-0.15": D + (LIFT_FLOOR, 0.15),
    "no-floor": D + (0.0, 0.0),
    "floor-0.15": D + (0.15, 0.0),
    "floor-0.35": D + (0.35, 0.0),
    "lift-always": (DEFAULT_FUSION, DEFAULT_LIFT, 0.0, DEFAULT_FUSION, 0.0, 0.0),
    "ratio-only": (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_RATIO, DEFAULT_FUSION, 0.0, 0.0),
    "no-lift": (DEFAULT_FUSION, 0.0, 0.0, DEFAULT_FUSION, 0.0, 0.0),
    "ratio-1.5": (DEFAULT_FUSION, DEFAULT_LIFT, 1.5, LOW_CONFIDENCE_FUSION, 0.0, 0.0),
    "ratio-3": (DEFAULT_FUSION, DEFAULT_LIFT, 3.0, LOW_CONFIDENCE_FUSION, 0.0, 0.0),
    "low-0.5": (DEFAULT_FUSION, DEFAULT_LIFT, LIFT_RATIO, 0.5, 0.0, 0.0),
    "fusion-0.7": (0.7, DEFAULT_LIFT, LIFT_RATIO, 0.7, 0.0, 0.0),
    "fusion-0.9": (0.9, DEFAULT_LIFT, LIFT_RATIO, 0.9, 0.0, 0.0),
    "posterior-only": (1.0, 0.0, 0.0, 1.0, 0.0, 0.0),
}
MEASURES = [nDCG @ 10, P @ 1]


def load_records(path: str | Path) -> dict[str, list[dict]]:
    """qid -> reranked candidates in base order (empty after a fallback)."""
    out = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            rec = json.loads(line)
            out[rec["qid"]] = sorted(rec["reranked"], key=lambda r: r["base_rank"])
    return out


def ranking(records: dict[str, list[dict]], rule: tuple[float, ...] | None) -> dict[str, dict[str, float]]:
    """An ir_measures run: each topic's candidates re-fused under ``rule`` (None: the base order)."""
    run = {}
    for qid, rows in records.items():
        if not rows:
            continue
        if rule is None:
            scores = -np.arange(len(rows), dtype=float)
        else:
            weight, lift, ratio, low, floor, tie = rule
            scores = fuse([r["posterior"] for r in rows], [r["base_score"] for r in rows], weight, lift, ratio, low,
                          floor, tie)
        order = sorted(range(len(rows)), key=lambda i: (-scores[i], i))
        run[qid] = {rows[i]["docid"]: float(len(rows) - k) for k, i in enumerate(order)}
    return run


def per_query(qrels: list, run: dict) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for m in ir_measures.iter_calc(MEASURES, qrels, run):
        out.setdefault(m.query_id, {})[str(m.measure)] = m.value
    return out


def main(argv=None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--set", action="append", required=True, metavar="NAME=RECORD,QRELS[,BOOLEAN_RUN]",
                   help="A reranked run's record, its qrels and (optional) the Boolean peer's run; repeatable.")
    p.add_argument("--rules", default=",".join(RULES), help=f"Rules to compare, of: {', '.join(RULES)}.")
    p.add_argument("--output", default="fusion.md", help="Result file name under --results.")
    args = p.parse_args(argv)
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        p.error(f"unknown rule(s) {', '.join(unknown)}; known: {', '.join(RULES)}")
    sets = []
    for spec in args.set:
        name, _, paths = spec.partition("=")
        parts = paths.split(",")
        if not name or len(parts) not in (2, 3):
            p.error(f"--set {spec!r}: expected NAME=RECORD,QRELS[,BOOLEAN_RUN]")
        missing = [x for x in parts if not Path(x).exists()]
        if missing:
            p.error(f"--set {name}: no such file: {', '.join(missing)}")
        sets.append((name, *parts) if len(parts) == 3 else (name, *parts, None))

    columns = ["set", "topics", "base", "Boolean peer"] + rules
    rows, losses, means = [], [], {r: [] for r in ["base"] + rules}
    for name, record, qrels_path, boolean in sets:
        records = load_records(record)
        # A topic that fell back (no candidates in its record) kept its base ranking: it is left out, not scored 0.
        qrels = [q for q in ir_measures.read_trec_qrels(qrels_path) if records.get(q.query_id)]
        base = per_query(qrels, ranking(records, None))
        qids = sorted(base)
        cell = lambda res: (f"{np.mean([res.get(q, {}).get('nDCG@10', 0.0) for q in qids]):.4f} / "
                            f"{np.mean([res.get(q, {}).get('P@1', 0.0) for q in qids]):.2f}")
        peer = "–"
        if boolean:
            peer = cell(per_query(qrels, list(ir_measures.read_trec_run(boolean))))
        row = [name, len(qids), cell(base), peer]
        means["base"].append(base)
        for r in rules:
            res = per_query(qrels, ranking(records, RULES[r]))
            means[r].append(res)
            row.append(cell(res))
            p1 = [q for q in qids if res[q]["P@1"] < base[q]["P@1"]]
            nd = [q for q in qids if res[q]["nDCG@10"] < base[q]["nDCG@10"] - 1e-9]
            losses.append([name, r, len(p1), " ".join(p1) or "–", len(nd)])
        rows.append(row)
        log(f"[fusion] {name}: {len(qids)} topics")

    def mean(r: str, key: str) -> float:  # over sets, each set weighted equally
        return float(np.mean([np.mean([res[q][key] for q in res]) for res in means[r]]))

    summary = [[r, f"{mean(r, 'nDCG@10'):.4f}", f"{mean(r, 'P@1'):.3f}",
                sum(x[2] for x in losses if x[1] == r) if r != "base" else "–"] for r in ["base"] + rules]
    lines = header("OrLog fusion rules, re-fused offline from rerank records", command(__file__, argv),
                   "Each rule is (fusion weight, lift, lift ratio, weight for a low-confidence topic, lift floor, "
                   "tie spread): "
                   + "; ".join(f"`{r}` = {RULES[r]}" for r in rules) + ". Cells: nDCG@10 / P@1.")
    lines += ["## Per set", ""] + md_table(columns, rows) + [""]
    lines += ["## Mean over the sets (each set weighted equally)", ""]
    lines += md_table(["rule", "nDCG@10", "P@1", "topics whose P@1 falls below the base's"], summary) + [""]
    lines += ["## Topics below the base", ""]
    lines += md_table(["set", "rule", "P@1 lost", "topics", "nDCG@10 lower"], losses, "llrlr") + [""]
    out = write_lines(Path(args.results) / args.output, lines)
    log(f"[fusion] written {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
