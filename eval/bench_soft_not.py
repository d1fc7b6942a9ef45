"""Soft exclusions: how strong should a NOT be that the guard read from a question's prose?

    python eval/bench_soft_not.py [--weights 1,0.7,0.5,0.4,0.3,0.2] [--quick]

The guard keeps a long question whole as the positive leaf and adds the
exclusions its cues confirm.  Some of those are wrong (a situation the asker
describes, "my dad can't manage stairs"), and a strict NOT (``1 - x``) sinks
every document that uses the word, so one wrong NOT costs a question far more
than a right one gains.  A soft NOT, ``NOT^w`` (``1 - w x``), costs a document
that mentions the thing at most a fraction ``w`` of its score: it falls below
comparably relevant documents without sinking below weakly related ones.

Three measurements per weight ``w``, all through ``python -m logical_pyserini.search``:

1. **First runs** (``eval/verify/first_runs.jsonl``): each blind long-question
   set's guarded queries as the guard of its day wrote them, before any tuning
   on it; their top-level NOTs are given weight ``w`` when the positive part is
   one leaf of at least eight words (the question kept whole: the mode the
   guard now softens).  Split into the sets the default was chosen on
   (``eval/longq2`` ... ``longq29``) and those held out (``longq30`` ...).
2. **Today's guard** on every long set (``--rewrite rules --rewrite-not-weight w``).
3. **The demo's 160 questions** (``--rewrite rules``): mostly short questions
   whose reliable parse keeps strict NOTs; the few kept whole are softened.

Each row: mean nDCG@10 over the sets, the questions ranked below plain BM25 on
the question and the sum of those drops.  The Boolean peer (strict) of today's
guarded rewrites is reported beside them.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np

from _common import (EVAL, base_parser, command, header, log, long_sets, md_table, ndcg_per_query, search_run,
                     write_lines)

FIRST_RUNS = EVAL / "verify" / "first_runs.jsonl"
HELD_OUT_FROM = 30  # longq30 and later were written after the default weight's design sets
DEFAULT_WEIGHTS = "1,0.7,0.5,0.4,0.3,0.2"


def soften(query: str, weight: float) -> str:
    """A stored guarded query with its top-level NOTs at ``weight`` when the question was kept whole."""
    from logical_pyserini.query import And, Not, Term, parse_query

    tree = parse_query(query)
    if not isinstance(tree, And):
        return query
    positive = [c for c in tree.children if not isinstance(c, Not)]
    if len(positive) != 1 or not isinstance(positive[0], Term) or len(positive[0].text.split()) < 8:
        return query  # a short question's parse: its NOTs stay strict
    return str(And(tuple(Not(c.child, weight) if isinstance(c, Not) else c for c in tree.children)))


def _compare(base: dict[str, float], vals: dict[str, float]) -> tuple[float, int, float]:
    """Mean nDCG@10 (a question missing from the run scores 0), questions below ``base``, the sum of their drops."""
    got = {q: vals.get(q, 0.0) for q in base}
    drops = [got[q] - base[q] for q in base if got[q] < base[q] - 1e-9]
    return float(np.mean(list(got.values()))), len(drops), float(sum(drops))


def _label(weight: float) -> str:
    return "strict (1)" if weight == 1.0 else f"{weight:g}"


def _latest(results: dict, weights: list[float]) -> str:
    """The last set's nDCG@10 (questions below BM25) at each weight, for the per-set table."""
    return " / ".join(f"{results[w][-1][0]:.3f} ({results[w][-1][1]})" for w in weights)


def _rows(results: dict, weights: list[float], label: str) -> list[list]:
    rows = []
    for w in weights:
        per_set = results[w]
        rows.append([label, _label(w), len(per_set),
                     f"{np.mean([m for m, _, _ in per_set]):.4f}", sum(b for _, b, _ in per_set),
                     f"{sum(d for _, _, d in per_set):.2f}"])
    return rows


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--weights", default=DEFAULT_WEIGHTS, metavar="W,...",
                   help="NOT weights to compare, each in (0, 1]; 1 is the strict NOT.")
    p.add_argument("--sets", default=None, metavar="NAME,...",
                   help="Only these long-question sets (e.g. longq30,longq31); default: all.")
    args = p.parse_args(argv)
    weights = [float(w) for w in args.weights.split(",")]
    if not all(0.0 < w <= 1.0 for w in weights):
        p.error("--weights must lie in (0, 1]")

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index

    sets = long_sets()
    if args.sets:
        wanted = set(args.sets.split(","))
        sets = [s for s in sets if s.name in wanted]
    if args.quick:  # two blind sets with first runs on record, strict against the default
        sets, weights = [s for s in sets if s.name in ("longq31", "longq32")], [1.0, 0.3]
    first = {}
    for line in FIRST_RUNS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        first.setdefault(row["set"], {})[row["qid"]] = row["query"]

    design = {w: [] for w in weights}
    held = {w: [] for w in weights}
    today = {w: [] for w in weights}
    boolean, bm25_means, per_set_lines = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for s in sets:
            log(f"[soft-not] {s.name}")
            index = tmp / f"{s.name}.idx"
            ensure_index(s / "corpus.jsonl", index)
            qrels = s / "qrels.txt"
            base = ndcg_per_query(qrels, search_run(index, s / "topics.tsv", tmp / f"{s.name}.bm25", plain="text"))
            bm25_means.append(float(np.mean(list(base.values()))))
            cells = [s.name, f"{bm25_means[-1]:.3f}"]
            for w in weights:
                run = search_run(index, s / "topics.tsv", tmp / f"{s.name}.today{w}", rewrite="rules",
                                 rewrite_not_weight=w)
                today[w].append(_compare(base, ndcg_per_query(qrels, run)))
            cells.append(_latest(today, weights))
            peer = search_run(index, s / "topics.tsv", tmp / f"{s.name}.peer", rewrite="rules", plain="boolean")
            boolean.append(_compare(base, ndcg_per_query(qrels, peer)))
            if s.name in first:
                target = held if int(s.name[5:] or 1) >= HELD_OUT_FROM else design
                for w in weights:
                    topics = tmp / f"{s.name}.first{w}.tsv"
                    topics.write_text("".join(f"{q}\t{soften(query, w)}\n" for q, query in first[s.name].items()),
                                      encoding="utf-8")
                    run = search_run(index, topics, tmp / f"{s.name}.first{w}")
                    target[w].append(_compare(base, ndcg_per_query(qrels, run)))
                cells.append(_latest(target, weights))
            else:
                cells.append("—")
            per_set_lines.append(cells)
        demo_rows = []
        if not args.quick:
            log("[soft-not] demo")
            index = tmp / "demo.idx"
            ensure_index(DEMO_DIR / "corpus.jsonl", index)
            qrels, topics = DEMO_DIR / "qrels.txt", DEMO_DIR / "topics.natural.tsv"
            base = ndcg_per_query(qrels, search_run(index, topics, tmp / "demo.bm25", plain="text"))
            for w in weights:
                run = search_run(index, topics, tmp / f"demo{w}", rewrite="rules", rewrite_not_weight=w)
                mean, below, drop = _compare(base, ndcg_per_query(qrels, run))
                demo_rows.append(["demo, rules + guard", _label(w), 160, f"{mean:.4f}",
                                  below, f"{drop:.2f}"])
            peer = search_run(index, topics, tmp / "demo.peer", rewrite="rules", plain="boolean")
            mean, below, drop = _compare(base, ndcg_per_query(qrels, peer))
            demo_rows.append(["demo, Boolean peer", "strict", 160, f"{mean:.4f}", below, f"{drop:.2f}"])
            demo_rows.append(["demo, plain BM25", "—", 160, f"{float(np.mean(list(base.values()))):.4f}", 0, "0.00"])

    columns = ["run", "NOT weight", "sets (or questions)", "nDCG@10", "questions below BM25", "sum of drops"]
    rows = []
    if any(design.values()):
        rows += _rows(design, weights, f"first runs, design sets (longq2-{HELD_OUT_FROM - 1})")
    if any(held.values()):
        rows += _rows(held, weights, f"first runs, held out (longq{HELD_OUT_FROM}+)")
    rows += _rows(today, weights, "today's guard, every long set")
    rows.append(["Boolean peer of today's guard", "strict", len(boolean), f"{np.mean([m for m, _, _ in boolean]):.4f}",
                 sum(b for _, b, _ in boolean), f"{sum(d for _, _, d in boolean):.2f}"])
    rows.append(["plain BM25 on the question", "—", len(bm25_means), f"{np.mean(bm25_means):.4f}", 0, "0.00"])
    lines = header("Soft exclusions: the strength of the guard's NOTs", command(__file__, argv),
                   "nDCG@10 is the mean over the sets of each set's mean; questions below BM25 and the sum of their "
                   "drops are counted over all questions (plain BM25 on the question is the reference).  First runs: "
                   "the stored guarded queries of each blind set's first run, top-level NOTs at the weight when the "
                   "question was kept whole.  Today's guard: `--rewrite rules --rewrite-not-weight W`.")
    lines += md_table(columns, rows + demo_rows, "lllrrr")
    lines += ["", "Per set: plain BM25; today's guard, nDCG@10 (questions below BM25) at each weight "
              f"({', '.join(f'{w:g}' for w in weights)}); the first run likewise.", ""]
    lines += md_table(["set", "BM25", "today's guard", "first run"], per_set_lines, "lrll")
    path = write_lines(Path(args.results) / "soft_not.md", lines)
    print("\n".join(lines))
    log(f"[soft-not] written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
