"""Rewriting that does no harm: plain BM25 vs rewrite (unguarded / guarded) vs the Boolean peer, on long questions.

    python eval/bench_rewrite_guard.py [--quick] [--rewriter rules]

Two sets: ``eval/longq`` (42 hand-written long questions, 35 with an exclusion
written in varied natural styles and 7 controls whose "not" / "without" is part
of the need; built by ``eval/longq_build.py``) and the demo's 160 English
questions.  ``--longq eval/longq2`` (or ``longq3``, ``longq4``, ``longq5``: 20
questions each, written later to check the guard on questions it was not
written for) replaces the first set.  Every run goes through
``python -m logical_pyserini.search``:
``--plain`` on the question, ``--rewrite R --rewrite-guard off|on|propose``, and
``--plain boolean`` on the same rewrites (the Boolean peer).  Reports the
seed-000 measures, paired sign tests against plain BM25 and the number of
questions each run ranks worse than plain BM25 (nDCG@10).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from _common import EVAL, RESULTS, base_parser, command, header, log, write_lines

LONGQ = EVAL / "longq"


def _runs(index: str, topics: Path, rewriter: str, out: Path, quick: bool,
          model_cache: str | None = None, verify: bool = False) -> dict[str, Path]:
    from logical_pyserini.search import SearchConfig, run_topics

    plan: dict[str, dict] = {"bm25 (question)": {"plain": "text"}}
    extra = {"model_cache": model_cache} if model_cache else {}
    guards = ("off", "on") if quick else ("off", "on", "propose")
    for guard in guards:
        plan[f"{rewriter} guard={guard}"] = {"rewrite": rewriter, "rewrite_guard": guard, **extra}
        plan[f"boolean peer, {rewriter} guard={guard}"] = {"rewrite": rewriter, "rewrite_guard": guard,
                                                           "plain": "boolean", **extra}
    if verify:
        checked = {"rewrite": rewriter, "rewrite_guard": "propose", "rewrite_verify": "model",
                   "model_cache": model_cache}
        plan[f"{rewriter} guard=propose + check"] = checked
        plan[f"boolean peer, {rewriter} guard=propose + check"] = {**checked, "plain": "boolean"}
    paths = {}
    for i, (name, options) in enumerate(plan.items()):
        paths[name] = out / f"run{i}.txt"
        log(f"[guard] {name}")
        report = run_topics(SearchConfig(topics=str(topics), output=str(paths[name]), index=index, hits=1000,
                                         quiet=True, **options))
        if report.failures:
            raise SystemExit(f"{name}: {len(report.failures)} topics failed: {report.failures}")
    return paths


def _section(title: str, qrels: Path, meta: Path, paths: dict[str, Path], field: str) -> list[str]:
    from logical_pyserini.eval import (evaluate_runs, format_sign_tests, format_table, per_query_values, read_groups,
                                       sign_tests)

    groups = read_groups(f"{meta}:{field}")[1]
    rows = evaluate_runs(qrels, paths, "seed000", groups)
    base = per_query_values(qrels, next(iter(paths.values())), "nDCG@10")
    worse = []
    for name, path in paths.items():
        vals = per_query_values(qrels, path, "nDCG@10")
        below = sorted(q for q in base if vals[q]["nDCG@10"] < base[q]["nDCG@10"] - 1e-9)
        # Name the questions below plain BM25 (with the drop): they are what a reader checks first.
        named = ", ".join(f"{q} ({vals[q]['nDCG@10'] - base[q]['nDCG@10']:+.3f})" for q in below)
        worse.append(f"| {name} | {len(below)} | "
                     f"{sum(vals[q]['nDCG@10'] > base[q]['nDCG@10'] + 1e-9 for q in base)} | {named} |")
    tests = sign_tests(qrels, paths, "nDCG@10 P@1", None, groups)
    return [f"## {title}", "", format_table(rows, field), "",
            "Questions ranked worse / better than plain BM25 on the question (nDCG@10):", "",
            "| run | worse | better | questions worse |", "|---|---:|---:|---|", *worse, "",
            "Paired two-tailed sign tests against plain BM25:", "", format_sign_tests(tests, field), ""]


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--rewriter", default="rules", help="Rewriter spec (rules, rules:explicit, llm, llm:MODEL).")
    p.add_argument("--long-only", action="store_true", help="Only the long questions (not the demo's 160).")
    p.add_argument("--model-cache", default=None, metavar="FILE", help="SQLite cache of model answers (llm).")
    p.add_argument("--verify", action="store_true",
                   help="Add the default guard with the model's exclusion check (--rewrite-verify model) and its "
                   "Boolean peer; the other guarded rows run without the check.")
    p.add_argument("--longq", default=str(LONGQ), metavar="DIR",
                   help="Long-question set built by eval/longq_build.py (eval/longq2: held out, written after the "
                   "guard's cue lists); a set other than eval/longq names the results file after it.")
    args = p.parse_args(argv)
    longq = Path(args.longq)

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index

    lines = header("Rewriting that does no harm: long questions and the demo", command(__file__, argv),
                   "bm25 = `LuceneSearcher.search` on the question; guard=off: the rewrite as is; guard=on: the "
                   "question as positive leaf (a short question's reliable parse keeps its structure) plus the "
                   "NOTs the question's exclusion cues confirm; guard=propose: also the exclusions the question "
                   "states that the rewrite missed; boolean peer: the strict Lucene BooleanQuery of the same "
                   "rewrite.")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        n_questions = sum(1 for line in (longq / "topics.tsv").read_text(encoding="utf-8").splitlines() if line)
        n_docs = sum(1 for line in (longq / "corpus.jsonl").read_text(encoding="utf-8").splitlines() if line)
        sets = [(f"Long questions ({longq.parent.name}/{longq.name}: {n_questions} questions, {n_docs} articles)",
                 longq / "corpus.jsonl", longq / "topics.tsv", longq / "qrels.txt", longq / "metadata.jsonl", "kind")]
        if not args.quick and not args.long_only:
            sets.append(("Demo English questions (160)", DEMO_DIR / "corpus.jsonl", DEMO_DIR / "topics.natural.tsv",
                         DEMO_DIR / "qrels.txt", DEMO_DIR / "metadata.jsonl", "negations"))
        for k, (title, corpus, topics, qrels, meta, field) in enumerate(sets):
            index = tmp / f"index{k}"
            ensure_index(corpus, index)
            out = tmp / f"runs{k}"
            out.mkdir()
            paths = _runs(str(index), topics, args.rewriter, out, args.quick, args.model_cache, args.verify)
            lines += _section(title, qrels, meta, paths, field)
    suffix = "" if longq.resolve() == LONGQ.resolve() else f"_{longq.name}"
    name = f"rewrite_guard_{args.rewriter.replace(':', '-').replace('/', '_')}{suffix}.md"
    path = write_lines(Path(args.results) / name, lines)
    print("\n".join(lines))
    log(f"[guard] written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
