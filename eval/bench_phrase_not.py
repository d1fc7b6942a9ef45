"""Phrase exclusions: ``NOT^0.3 phrase:"care home"`` against the guard's unshared words (``NOT^0.3 "care"``).

    python eval/bench_phrase_not.py [--sets longq29,longq34] [--quick]

When the guard keeps a long question whole and adds an exclusion whose words
the question also uses elsewhere ("... he wants to stay in his own home, so
please don't suggest a care home ... what help is there at home"), it keeps
only the unshared words: a NOT leaf is a bag of words, and ``NOT "care home"``
would also sink every document about help at home.  With ``--rewrite-phrases``
it writes the whole item as a positional phrase leaf instead, which sinks only
the documents that say "care home".

For every long-question set (``eval/longq*``) and the demo's 160 questions,
all through ``python -m logical_pyserini.search``: plain BM25 on the question,
``--rewrite rules`` and ``--rewrite rules --rewrite-phrases`` (the guard's
defaults otherwise), and the Boolean peer of each.  Rows: mean nDCG@10 over the
sets, questions below plain BM25 and the sum of those drops; then every
question whose guarded query the flag changes, with both values.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np

from _common import (base_parser, command, header, log, long_sets, md_table, ndcg_per_query, search_run,
                     write_lines)


def _queries(run: Path) -> dict[str, str]:
    lines = Path(f"{run}.rewrites.tsv").read_text(encoding="utf-8").splitlines()
    return {qid: query for qid, query, *_ in (line.split("\t") for line in lines if line)}


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--sets", default=None, metavar="NAME,...",
                   help="Only these long-question sets (e.g. longq29,longq34); default: all.")
    args = p.parse_args(argv)

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index

    sets = [(s.name, s / "corpus.jsonl", s / "topics.tsv", s / "qrels.txt") for s in long_sets()]
    if args.sets:
        wanted = set(args.sets.split(","))
        sets = [s for s in sets if s[0] in wanted]
    if args.quick:
        sets = [s for s in sets if s[0] in ("longq29", "longq34")]
    else:
        sets.append(("demo", DEMO_DIR / "corpus.jsonl", DEMO_DIR / "topics.natural.tsv", DEMO_DIR / "qrels.txt"))

    variants = {"rules + guard": {}, "rules + guard, --rewrite-phrases": {"rewrite_phrases": True}}
    rows_of: dict[str, list[tuple[str, float, int, float]]] = {}
    changed: list[list] = []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        for name, corpus, topics, qrels in sets:
            log(f"[phrase-not] {name}")
            index = tmp / f"{name}.idx"
            ensure_index(corpus, index)
            base = ndcg_per_query(qrels, search_run(index, topics, tmp / f"{name}.bm25", plain="text"))
            queries = {}
            for label, options in variants.items():
                for peer in (False, True):
                    run = search_run(index, topics, tmp / f"{name}.{len(queries)}", rewrite="rules",
                                     **({"plain": "boolean"} if peer else {}), **options)
                    got = ndcg_per_query(qrels, run)
                    vals = {q: got.get(q, 0.0) for q in base}
                    drops = [vals[q] - base[q] for q in base if vals[q] < base[q] - 1e-9]
                    key = f"Boolean peer of {label}" if peer else label
                    rows_of.setdefault(key, []).append((name, float(np.mean(list(vals.values()))), len(drops),
                                                        float(sum(drops))))
                    queries[key] = (_queries(run), vals)
            rows_of.setdefault("plain BM25 on the question", []).append(
                (name, float(np.mean(list(base.values()))), 0, 0.0))
            (old_q, old_v), (new_q, new_v) = queries["rules + guard"], queries["rules + guard, --rewrite-phrases"]
            for qid in sorted(base):
                if old_q.get(qid) != new_q.get(qid):
                    phrases = [part.split(" AND NOT")[0] for part in new_q[qid].split("phrase:")[1:]]
                    changed.append([name, qid, f"{base[qid]:.3f}", f"{old_v[qid]:.3f}", f"{new_v[qid]:.3f}",
                                    "; ".join(p.strip() for p in phrases)])

    columns = ["run", "sets", "nDCG@10 (long sets)", "below BM25", "sum of drops", "demo nDCG@10", "demo below BM25"]
    rows = []
    for key, per_set in rows_of.items():
        long = [r for r in per_set if r[0] != "demo"]
        demo = [r for r in per_set if r[0] == "demo"]
        rows.append([key, len(long), f"{np.mean([m for _, m, _, _ in long]):.4f}", sum(b for _, _, b, _ in long),
                     f"{sum(d for _, _, _, d in long):.3f}", f"{demo[0][1]:.4f}" if demo else "—",
                     demo[0][2] if demo else "—"])
    lines = header("Phrase exclusions: phrase: leaves for the guard's NOTs that lose shared words",
                   command(__file__, argv),
                   "nDCG@10 is the mean over the long sets of each set's mean; questions below plain BM25 on the "
                   "question and the sum of their drops are counted over all their questions.  The demo's 160 "
                   "questions are reported apart.")
    lines += md_table(columns, rows, "lrrrrrr")
    lines += ["", f"Questions whose guarded query `--rewrite-phrases` changes ({len(changed)}): nDCG@10 of plain BM25, "
              "of the guard, of the guard with phrases; the phrase leaves written.", ""]
    lines += md_table(["set", "qid", "BM25", "guard", "guard + phrases", "phrase leaves"], changed, "llrrrl")
    path = write_lines(Path(args.results) / "phrase_not.md", lines)
    print("\n".join(lines))
    log(f"[phrase-not] written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
