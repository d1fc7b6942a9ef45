"""π-CoT benchmarks (seed 003): the symbolic path on PhantomWiki, and the LM methods on small subsets.

    python eval/bench_picot.py symbolic --universes eval/data/picot/pw-s-1 eval/data/picot/pw-m-1 ...
    python eval/bench_picot.py llm --universe eval/data/picot/pw-s-1 --limit 20 --llm embedded
    python eval/bench_picot.py llm --multihop 2wiki --limit 20 --llm embedded

Universes come from ``python eval/picot_data.py phantomwiki --seed S --size 50|500 --output DIR``.
``symbolic``: gold Prolog + template reader + no model (``--llm none``): it can only fail through
retrieval or execution; EM/F1 per hop count, retriever calls and seconds per question.
``llm``: CoT / standard RAG / IRCoT / π-CoT with the same model and retriever, paired t-tests.
Results go to ``eval/results/picot_symbolic.md`` and ``eval/results/picot_llm*.md``.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path
from typing import Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from eval._common import base_parser, command, header, log, md_table, today, write_lines  # noqa: E402
from logical_pyserini._io import atomic_write_text  # noqa: E402


MACHINE = "2 CPU cores shared with other jobs (no AMX)"


def _fmt(m: dict, scale: float = 100.0) -> str:
    return f"{m['mean'] * scale:.1f} ± {m['se'] * scale:.1f}"


def _universe(path: Path):
    from logical_pyserini.picot import LuceneRetriever, load_questions, phantomwiki_schema

    rules = (path / "rules.pl").read_text(encoding="utf-8") if (path / "rules.pl").exists() else ""
    retriever = LuceneRetriever(path / "index", path / "corpus.jsonl")
    meta = json.loads((path / "meta.json").read_text()) if (path / "meta.json").exists() else {}
    return load_questions(path / "questions.jsonl"), phantomwiki_schema(rules), retriever, meta


def cmd_symbolic(args) -> None:
    from logical_pyserini.picot import RunConfig, run_questions, summarize

    rows_out, hop_rows, all_rows = [], {}, []
    for u in args.universes:
        path = Path(u)
        questions, schema, retriever, meta = _universe(path)
        if args.limit:
            questions = questions[: args.limit]
        cfg = RunConfig(method="picot", reader="template", gold_prolog=True, k=args.hits)
        start = time.perf_counter()
        rows = run_questions(questions, cfg, schema, retriever, None, progress=not args.quiet)
        wall = time.perf_counter() - start
        s = summarize(rows)
        all_rows += rows
        n_docs = sum(1 for _ in open(path / "corpus.jsonl", encoding="utf-8"))
        rows_out.append([path.name, meta.get("seed", "?"), n_docs, s["n"], _fmt(s["em"]), _fmt(s["f1"]),
                         f"{s['retriever_calls']['mean']:.1f}", f"{s['seconds']['mean'] * 1000:.0f}",
                         f"{wall:.0f}", s["errors"]])
        for h, v in s["by_hops"].items():
            hop_rows.setdefault(path.name, {})[int(h)] = v["em"]["mean"]
        log(f"{path.name}: EM {s['em']['mean']:.3f} ({s['n']} questions, {wall:.0f}s)")
    hops = sorted({h for v in hop_rows.values() for h in v})
    cmd = command(__file__, args.argv)
    lines = header("π-CoT symbolic path on PhantomWiki (gold Prolog, template reader, no model)", cmd,
                   "Each universe is a fresh PhantomWiki 1.0.3 universe made by `eval/picot_data.py` (the real "
                   "generator, easy mode, question depth 20, 10 questions per template; `size` is the max family "
                   "tree size: 50 = PW-S, 500 = PW-M). Every sub-query runs as SLICE: BM25 through "
                   f"`LogicalLuceneSearcher.plain_search` (k = {args.hits} passages per call), the template reader, "
                   "SWI-Prolog state. Derived relations (sibling, parent, child) are resolved through the universe's "
                   "rules, whose bodies ask for article-level facts the same way. EM/F1 over answer sets "
                   "(PhantomWiki's scoring), mean ± 1 s.e. in %; ms/q is wall time per question on this machine "
                   "(2 shared cores).")
    lines += md_table(["universe", "seed", "articles", "questions", "EM", "F1", "retriever calls/q", "ms/q",
                       "total s", "errors"], rows_out)
    lines += ["", "EM by hop count (the question's difficulty):", ""]
    lines += md_table(["universe"] + [str(h) for h in hops],
                      [[name] + [f"{v[h]:.3f}" if h in v else "" for h in hops] for name, v in hop_rows.items()])
    s = summarize(all_rows)
    lines += ["", f"All universes together: {s['n']} questions, EM {_fmt(s['em'])}, F1 {_fmt(s['f1'])}, "
              f"{s['retriever_calls']['mean']:.1f} retriever calls and 0 model calls per question."]
    out = write_lines(Path(args.results) / "picot_symbolic.md", lines)
    log(f"wrote {out}")


def cmd_llm(args) -> None:
    from logical_pyserini.models import get_model
    from logical_pyserini.picot import (LuceneRetriever, Passage, RunConfig, Schema, load_corpus, load_multihop,
                                        load_questions, run_questions)

    model = get_model(args.llm, cache=args.model_cache,
                      **({"threads": args.model_threads} if args.llm != "none" and ":" not in args.llm else {}))
    if args.universe:
        path = Path(args.universe)
        questions, schema, retriever, meta = _universe(path)
        name, dataset = f"PhantomWiki {path.name}", "phantomwiki"
        corpus = [Passage(d, t) for d, t in load_corpus(path / "corpus.jsonl").items()]
        k = args.hits
    else:
        dataset = args.multihop
        from eval.picot_data import multihop_source

        qrows, corpus_rows = load_multihop(args.source or multihop_source(), dataset)
        work = Path(args.data) / "picot" / dataset
        work.mkdir(parents=True, exist_ok=True)
        # Atomic: methods run as parallel processes, and one must never read the other's half-written file.
        cpath = work / "corpus.jsonl"
        if not cpath.exists():
            atomic_write_text(cpath, "".join(json.dumps(d, ensure_ascii=False) + "\n" for d in corpus_rows))
        qpath = work / "questions.jsonl"
        text = "".join(json.dumps(q, ensure_ascii=False) + "\n" for q in qrows)
        if not qpath.exists() or qpath.read_text(encoding="utf-8") != text:
            atomic_write_text(qpath, text)
        questions = load_questions(qpath)
        schema, retriever, corpus = Schema({}), LuceneRetriever(work / "index", cpath), []
        name = {"2wiki": "2WikiMultiHopQA", "hotpotqa": "HotpotQA"}[dataset]
        k = args.hits or {"2wiki": 16, "hotpotqa": 14}[dataset]
    if args.max_hops:
        questions = [q for q in questions if q.hops is None or q.hops <= args.max_hops]
    questions = questions[:: args.every][args.skip: args.skip + args.limit]  # --every: spread over templates
    dsname = dataset if dataset != "phantomwiki" else Path(args.universe).name
    save = Path(args.save_runs or Path(args.data) / "picot" / "runs" / dsname)
    save.mkdir(parents=True, exist_ok=True)
    note = (f"{len(questions)} questions (every {args.every}-th"
            f"{f' of those with at most {args.max_hops} hops' if args.max_hops else ''}, "
            f"{f'after the first {args.skip}, ' if args.skip else ''}first {args.limit}); "
            f"model {model.id} ({args.model_threads} torch thread(s)); BM25 k = {k}"
            f"{f' (SLICE calls: {args.slice_hits})' if args.slice_hits else ''}"
            f"{f', passages cut to {args.max_passage_tokens} tokens' if args.max_passage_tokens else ''}; "
            f"evidence at most {args.max_evidence_tokens} tokens; plan max new tokens {args.plan_max_new_tokens}; π-CoT plan: "
            f"{'gold Prolog' if args.gold_prolog else 'generated by the model (few-shot, checked by SWI-Prolog, one repair)'}; "
            f"fact verification: {args.verify}; reader/final max new tokens {args.reader_max_new_tokens}/{args.max_new_tokens}; "
            f"at most {args.max_slice_calls} SLICE calls per question; answer extraction: "
            f"{'on' if args.answer_extraction else 'off'}")
    # One (label, config) per method; questions go in chunks, every method answering a chunk before the
    # next, so a run cut short still leaves paired rows.  Rows already saved (.jsonl or .jsonl.partial of
    # an earlier run with the same label) are skipped, and the model cache makes repeated calls free.
    runs = []
    for spec in args.methods:
        method, _, setting = spec.partition("@")
        setting = setting or "retrieval"
        cfg = RunConfig(method=method, setting=setting, reader="llm", gold_prolog=args.gold_prolog and method == "picot",
                        dataset=dataset, k=k, verify=args.verify, corpus_passages=corpus,
                        max_evidence_tokens=args.max_evidence_tokens, max_new_tokens=args.max_new_tokens,
                        max_slice_calls=args.max_slice_calls, reader_max_new_tokens=args.reader_max_new_tokens,
                        plan_max_new_tokens=args.plan_max_new_tokens, slice_k=args.slice_hits,
                        max_passage_tokens=args.max_passage_tokens, answer_extraction=args.answer_extraction)
        label = f"{spec}+gold-prolog" if cfg.gold_prolog else spec
        stem = label.replace("@", "-").replace("+", "-")
        done = {r["qid"]: r for r in _saved_rows(save, stem)}
        atomic_write_text(save / f"{stem}.meta.json", json.dumps(
            {"spec": label, "command": command(__file__, args.argv), "note": note}, ensure_ascii=False) + "\n")
        runs.append((label, stem, cfg, done))
    chunk = args.chunk or len(questions) or 1
    for i in range(0, len(questions), chunk):
        for label, stem, cfg, done in runs:
            todo = [q for q in questions[i:i + chunk] if q.qid not in done]
            if not todo:
                continue
            log(f"{name}: {label}, questions {i + 1}-{i + len(questions[i:i + chunk])} of {len(questions)}")
            with open(save / f"{stem}.jsonl.partial", "a", encoding="utf-8") as partial:  # kept if interrupted
                for r in run_questions(todo, cfg, schema, retriever, model, progress=not args.quiet,
                                       on_row=lambda r: (partial.write(json.dumps(r, ensure_ascii=False) + "\n"),
                                                         partial.flush())):
                    done[r["qid"]] = r
    for label, stem, cfg, done in runs:
        rows = [done[q.qid] for q in questions if q.qid in done]
        atomic_write_text(save / f"{stem}.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        (save / f"{stem}.jsonl.partial").unlink(missing_ok=True)
    report(save, f"π-CoT vs baselines on {name} ({args.llm}, CPU)", dataset == "phantomwiki",
           Path(args.results) / f"picot_llm_{dsname}.md", f"{MACHINE}, load average {os.getloadavg()[0]:.1f} at the end")


def _saved_rows(folder: Path, stem: str) -> list[dict]:
    """Rows of ``stem`` saved by earlier runs: the finished ``.jsonl`` and the ``.jsonl.partial`` of a
    run that was cut short (a torn last line is skipped)."""
    rows = {}
    for path in (folder / f"{stem}.jsonl", folder / f"{stem}.jsonl.partial"):
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    r = json.loads(line)
                except ValueError:
                    continue
                rows[r["qid"]] = r
    return list(rows.values())


def report(folder: Path, title: str, by_hops: bool, out: Path, machine: str = MACHINE) -> None:
    """One table over every method run saved in ``folder`` (runs may come from parallel processes)."""
    write_lines(out, [f"# {title}", "", f"Date: {today()}; machine: {machine}.", ""] + section([folder], by_hops))
    log(f"wrote {out}")


def section(folders: Sequence[Path], by_hops: bool) -> list[str]:
    """Markdown for the method runs saved in ``folders`` (one sample split over several, e.g. questions 1-40 and
    41-100): commands, table, paired tests, F1 by hops."""
    from logical_pyserini.picot import compare, summarize

    runs: dict[str, list[dict]] = {}
    metas: list[dict] = []
    for folder in folders:
        for meta_path in sorted(folder.glob("*.meta.json")):
            meta = json.loads(meta_path.read_text(encoding="utf-8"))
            rows = _saved_rows(folder, meta_path.name[: -len(".meta.json")])
            have = {r["qid"] for r in runs.get(meta["spec"], [])}
            if have & {r["qid"] for r in rows}:
                raise SystemExit(f"report: {folder} repeats questions of {meta['spec']} from another folder")
            if rows:
                runs.setdefault(meta["spec"], []).extend(rows)
            metas.append(meta)
    summaries = {spec: summarize(rows) for spec, rows in runs.items()}
    table = []
    for spec, s in summaries.items():
        table.append([spec, s["n"], _fmt(s["em"]), _fmt(s["f1"]),
                      f"{s['retriever_calls']['mean']:.2f} ± {s['retriever_calls']['se']:.2f}",
                      f"{s['model_calls']['mean']:.1f}", f"{s['seconds']['mean']:.1f}", s["errors"],
                      s["fallbacks"]])
    lines = ["Commands (one per method; methods may run in parallel processes):", ""]
    by_command: dict[tuple, list[str]] = {}
    for m in metas:  # one process may run several methods: list its command once
        by_command.setdefault((m["command"], m["note"]), []).append(m["spec"])
    lines += [f"- {', '.join(specs)}: `{cmd}` — {note}" for (cmd, note), specs in by_command.items()]
    lines += ["", "Same model and retriever for every method; `@incontext` = the question's own passages (PhantomWiki: "
              "the whole universe), otherwise BM25 retrieval over the pooled corpus. EM/F1 mean ± 1 s.e. in %; "
              "calls and seconds per question (s/q on a heavily shared machine: compare within this table only).", ""]
    lines += md_table(["method", "questions", "EM", "F1", "retriever calls/q", "model calls/q", "s/q", "errors",
                       "answered by RAG (no plan, no answer or an echo)"], table)
    tests = compare(runs, "f1")
    if tests:
        lines += ["", "Paired tests on per-question F1 over the questions both methods answered: the exact sign test "
                  "(A better / B better / tied) and the t-test (the seed's Table 4 test):", ""]
        lines += md_table(["A", "B", "n", "mean F1 diff (A - B)", "A better / B better / tied", "sign-test p", "t", "t-test p"],
                          [[t["a"], t["b"], t["n"], f"{t['mean_diff'] * 100:.1f}", f"{t['wins']} / {t['losses']} / {t['ties']}",
                            f"{t['sign_p']:.3g}", f"{t['t']:.2f}", f"{t['p']:.3g}"] for t in tests])
    hops = sorted({int(h) for s in summaries.values() for h in s["by_hops"]})
    if by_hops and hops:  # HotpotQA / 2Wiki rows carry no hop count: no empty table
        lines += ["", "F1 by hop count (%):", ""]
        lines += md_table(["method"] + [str(h) for h in hops],
                          [[spec] + [f"{s['by_hops'][str(h)]['f1']['mean'] * 100:.0f}"
                                     if str(h) in s["by_hops"] else "" for h in hops]
                           for spec, s in summaries.items()])
    return lines


def cmd_report(args) -> None:
    """One file with a section per saved-runs folder (``--runs DIR ... --titles T ...``)."""
    if len(args.titles) != len(args.runs):
        raise SystemExit("report: give one --titles entry per --runs folder")
    lines = [f"# {args.title}", "", f"Date: {today()}; machine: {args.machine}.", ""] + list(args.preamble or [])
    for folders, title in zip(args.runs, args.titles):
        lines += ["", f"## {title}", ""] + section([Path(f) for f in folders.split(",")], args.by_hops)
    write_lines(Path(args.output), lines)
    log(f"wrote {args.output}")


#: methods whose prediction is the parse of their one saved reply (π-CoT's also depends on its Prolog answer)
REPARSABLE = ("rag", "cot")


def cmd_reparse(args) -> None:
    """Copy saved runs to ``--output``, re-parsing the final reply of one-reply methods with today's answer
    parser and rescoring (no model call); other rows and every ``.meta.json`` are copied unchanged."""
    from logical_pyserini._io import atomic_write_text
    from logical_pyserini.picot import score
    from logical_pyserini.picot._run import final_prediction

    src, out = Path(args.runs), Path(args.output)
    if src.resolve() == out.resolve():
        raise SystemExit("reparse: --output must differ from --runs")
    out.mkdir(parents=True, exist_ok=True)
    for meta_path in sorted(src.glob("*.meta.json")):
        stem = meta_path.name[: -len(".meta.json")]
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        rows, changed = _saved_rows(src, stem), 0
        reparsable = meta["spec"].split("@")[0] in REPARSABLE
        if reparsable:
            for r in rows:
                if r.get("reply") is None:
                    continue
                pred = final_prediction(r["reply"], r.get("reply_extract"), r.get("question"))  # as in the run
                if pred != r["prediction"]:
                    changed += 1
                    r["prediction"] = pred
                    r["em"], r["f1"] = score(pred, r["gold"], args.score_mode)
            meta["note"] = (meta.get("note", "")
                            + f"; predictions re-parsed from the saved replies ({changed} changed, no model call)")
        atomic_write_text(out / meta_path.name, json.dumps(meta, ensure_ascii=False, indent=1))
        atomic_write_text(out / f"{stem}.jsonl", "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
        log(f"{stem}: {len(rows)} rows, {changed} re-parsed predictions changed")


def main(argv: list[str] | None = None) -> None:
    p = base_parser(__doc__)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("symbolic")
    s.add_argument("--universes", nargs="+", required=True)
    s.add_argument("--hits", type=int, default=10)
    s.add_argument("--limit", type=int, default=None)
    s.add_argument("--quiet", action="store_true")
    s.set_defaults(func=cmd_symbolic)
    m = sub.add_parser("llm")
    g = m.add_mutually_exclusive_group(required=True)
    g.add_argument("--universe")
    g.add_argument("--multihop", choices=["2wiki", "hotpotqa"])
    m.add_argument("--source", default=None, help="multihop dev subsets (default: ../shared/data/multihop)")
    m.add_argument("--methods", nargs="+", default=["cot@incontext", "rag", "ircot", "picot"])
    m.add_argument("--gold-prolog", action="store_true")
    m.add_argument("--llm", default="embedded")
    m.add_argument("--model-cache", default=None)
    m.add_argument("--verify", default="cot", choices=["cot", "logit"])
    m.add_argument("--hits", type=int, default=None)
    m.add_argument("--limit", type=int, default=20)
    m.add_argument("--max-hops", type=int, default=None, help="only questions of at most this many hops")
    m.add_argument("--every", type=int, default=1, help="take every N-th question (PhantomWiki files are grouped by template)")
    m.add_argument("--skip", type=int, default=0, help="skip the first N questions of the --every sample (to split one "
                   "sample over processes writing to separate --save-runs folders)")
    m.add_argument("--max-evidence-tokens", type=int, default=6000)
    m.add_argument("--max-new-tokens", type=int, default=256)
    m.add_argument("--no-answer-extraction", dest="answer_extraction", action="store_false",
                   help="no second turn asking for the answer when the final reply names none")
    m.add_argument("--reader-max-new-tokens", type=int, default=160)
    m.add_argument("--plan-max-new-tokens", type=int, default=384)
    m.add_argument("--max-slice-calls", type=int, default=2000, help="SLICE calls per question before it is cut off")
    m.add_argument("--slice-hits", type=int, default=None, help="passages per SLICE call (default: --hits)")
    m.add_argument("--max-passage-tokens", type=int, default=None, help="cut each passage to N model tokens")
    m.add_argument("--model-threads", type=int, default=1,
                   help="torch threads (1: on a shared 2-core machine two threads decoded ~10x slower)")
    m.add_argument("--chunk", type=int, default=5, help="every method answers N questions before the next N")
    m.add_argument("--save-runs", default=None)
    m.add_argument("--quiet", action="store_true")
    m.set_defaults(func=cmd_llm)
    rp = sub.add_parser("reparse", help="re-parse saved RAG / CoT replies with the current answer parser")
    rp.add_argument("--runs", required=True, help="a saved-runs folder (--save-runs of llm)")
    rp.add_argument("--output", required=True, help="the folder to write (a copy with re-parsed predictions)")
    rp.add_argument("--score-mode", default="set", choices=["set", "token"],
                    help="set (PhantomWiki) or token (HotpotQA / 2Wiki)")
    rp.set_defaults(func=cmd_reparse)

    r = sub.add_parser("report", help="rewrite a table from saved runs")
    r.add_argument("--runs", nargs="+", required=True,
                   help="saved-runs folders (--save-runs of llm); A,B joins folders of one sample into one section")
    r.add_argument("--titles", nargs="+", required=True, help="one section title per folder")
    r.add_argument("--title", required=True)
    r.add_argument("--machine", default=MACHINE)
    r.add_argument("--preamble", nargs="*", help="paragraphs placed under the title")
    r.add_argument("--by-hops", action="store_true")
    r.add_argument("--output", required=True)
    r.set_defaults(func=cmd_report)
    args = p.parse_args(argv)
    args.argv = argv
    if args.cmd == "symbolic" and args.quick:
        args.limit = args.limit or 20
    args.func(args)


if __name__ == "__main__":
    main()
