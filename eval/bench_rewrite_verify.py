"""Exclusions checked by the model: does the verifier veto the guard's junk NOTs, on text the guard never saw?

    python eval/bench_rewrite_verify.py [--model-cache FILE] [--quick]
    python eval/bench_rewrite_verify.py first-runs      # regenerate eval/verify/first_runs.jsonl from git history

The guard's cue lists were tuned round after round on blind labelled sets
(``eval/cues/phrasings_*.jsonl``, ``eval/longq*``), so its output on those sets
flatters it.  What it does on text it has not seen is recorded by its *first
runs*: each blind set was measured once with the guard committed before it was
written.  ``first-runs`` rebuilds those outputs from git history (the package at
the parent of the commit that added each file; the original ``eval/longq`` came
before the guard and is skipped) into ``eval/verify/first_runs.jsonl``: per
question, the kept exclusions and the guarded query.

The benchmark then asks the model (``ExclusionVerifier``, the ``verify``
prompt, the embedded model unless ``--model``) about every kept exclusion of
the first runs and of today's guard, and reports:

1. **Labelled exclusions**: an exclusion is right when it shares a content word
   with a labelled excluded item (``bench_guard_cues``' rule), wrong otherwise
   (every NOT of a control is wrong); how many of each the verifier vetoes at
   several thresholds, and the ROC AUC of P(situation).
2. **Retrieval** on every long-question set: nDCG@10 and the number of
   questions below plain BM25 for the first run and today's guard, each without
   and with the check (the threshold of the prompt).  Today's rows run through
   ``python -m logical_pyserini.search`` (``--rewrite rules
   --rewrite-verify off|model``; the Boolean peer on the checked rewrites);
   first runs are replayed from the file: a vetoed NOT leaves the stored tree,
   and with none left the question is searched plain, as the guard does.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from _common import EVAL, ROOT, base_parser, command, header, log, write_lines

FIRST_RUNS = EVAL / "verify" / "first_runs.jsonl"
PHRASINGS = sorted((EVAL / "cues").glob("phrasings_*.jsonl"))
LONGQ = sorted((p.parent for p in EVAL.glob("longq*/questions.jsonl")),
               key=lambda p: int(p.name[5:] or 1))
THRESHOLDS = (0.64, 0.66, 0.68, 0.70, 0.72)
# Sets written after the threshold was chosen (or left untuned by the session before): reported on their own.
HELD_OUT = ("phrasings_z", "phrasings_aa", "phrasings_ab", "longq30", "longq31", "longq32")

_REPLAY = r"""
import json, sys
from logical_pyserini.rewrite import get_rewriter, guard_decision, guard_rewrite
rw = get_rewriter("rules")
for path in sys.argv[1:]:
    for line in open(path, encoding="utf-8"):
        if line.strip():
            q = json.loads(line)
            r = rw.rewrite(q["question"])
            print(json.dumps({"kept": list(guard_decision(r, propose=True).kept),
                              "query": guard_rewrite(r, "propose").query}))
"""


def _items(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _set_name(path: Path) -> str:
    return path.stem if path.suffix == ".jsonl" and path.parent.name == "cues" else path.parent.name


def _qid(item: dict) -> str:
    return item.get("qid") or item["id"]


def first_runs(argv: list[str]) -> int:
    """Rebuild ``eval/verify/first_runs.jsonl`` from git history (needs a clone with history)."""
    files = PHRASINGS + [d / "questions.jsonl" for d in LONGQ]
    rows = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        added = subprocess.run(["git", "log", "--diff-filter=A", "--format=%h", "--", rel], cwd=ROOT,
                               capture_output=True, text=True, check=True).stdout.split()
        if not added:
            log(f"[first-runs] {rel}: not committed yet, skipped")
            continue
        commit = added[-1]
        with tempfile.TemporaryDirectory() as tmp:
            archive = subprocess.run(["git", "archive", f"{commit}^", "logical_pyserini"], cwd=ROOT,
                                     capture_output=True, check=True).stdout
            subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
            # cwd=tmp: "python -c" puts the working directory first on sys.path, before PYTHONPATH
            done = subprocess.run([sys.executable, "-c", _REPLAY, str(path)], capture_output=True, text=True,
                                  cwd=tmp, env={**os.environ, "PYTHONPATH": tmp})
        if done.returncode:
            log(f"[first-runs] {rel}: the guard of {commit}^ does not run ({done.stderr.strip().splitlines()[-1]}); "
                "skipped")
            continue
        outs = [json.loads(line) for line in done.stdout.splitlines()]
        for item, out in zip(_items(path), outs):
            rows.append({"set": _set_name(path), "qid": _qid(item), "guard_commit": f"{commit}^", **out})
        log(f"[first-runs] {rel}: {len(outs)} questions with the guard of {commit}^")
    FIRST_RUNS.parent.mkdir(parents=True, exist_ok=True)
    write_lines(FIRST_RUNS, [json.dumps(r, ensure_ascii=False) for r in rows])
    log(f"[first-runs] written {FIRST_RUNS} ({len(rows)} questions)")
    return 0


def _labelled(quick: bool) -> tuple[list[dict], dict]:
    """Every question of the labelled sets: set, qid, kind, question, gold exclusions, kept now, kept at first run."""
    from logical_pyserini.rewrite import get_rewriter, guard_decision

    first = {(r["set"], r["qid"]): r for r in map(json.loads, FIRST_RUNS.read_text(encoding="utf-8").splitlines())} \
        if FIRST_RUNS.exists() else {}
    rw = get_rewriter("rules")
    rows = []
    for path in PHRASINGS + [d / "questions.jsonl" for d in LONGQ]:
        items = _items(path)[: 4 if quick else None]
        for item in items:
            name = _set_name(path)
            now = guard_decision(rw.rewrite(item["question"]), propose=True)
            rows.append({"set": name, "qid": _qid(item), "kind": item["kind"], "question": item["question"],
                         "gold": item.get("excluded", item.get("neg", [])), "now": list(now.kept),
                         "first": first.get((name, _qid(item)), {}).get("kept")})
        if quick and len(rows) >= 12:
            break
    return rows, first


def _judge(rows: list[dict], verifier) -> tuple[dict[tuple[str, str, str], float], int, int]:
    """P(situation) of every kept exclusion (now and first run), one model call per question; with the tokens of
    the prompts (system and chat template included) and of the questions' shared prefixes, counted whether or not
    the answers came from the cache."""
    from tqdm import tqdm

    out, tokens, prefixes = {}, 0, 0
    system = verifier.prompt.get("system") or ""
    for row in tqdm(rows, desc="verify", unit="question"):
        todo = list(dict.fromkeys(row["now"] + (row["first"] or [])))
        if todo:
            for x, p in zip(todo, verifier.situation_probability(row["question"], todo)):
                out[(row["set"], row["qid"], x)] = float(p)
            parts = verifier.prompt_parts(row["question"], todo)
            count = verifier.model.count_tokens
            tokens += sum(count(system + pre + suf) for pre, suf in parts)
            prefixes += count(system + parts[0][0]) * (len(parts) - 1)  # encoded once per question
    return out, tokens, prefixes


def _label_section(rows: list[dict], p: dict, max_situation: float) -> list[str]:
    from sklearn.metrics import roc_auc_score

    sys.path.insert(0, str(EVAL))
    from bench_guard_cues import _content

    lines = ["## 1. Labelled exclusions", "",
             "Right: the kept NOT shares a content word with a labelled excluded item; wrong: it shares none, or "
             "the question is a control. `first` = the guard committed before the set was written, `now` = "
             "today's. Vetoed = P(situation) above the threshold.", ""]
    for title, keep in (("tuning sets", lambda s: s not in HELD_OUT), ("held out", lambda s: s in HELD_OUT)):
        cands = {}
        for row in rows:
            if not keep(row["set"]):
                continue
            gold = [_content(g) for g in row["gold"]]
            for src in ("now", "first"):
                for x in row[src] or ():
                    key = (row["set"], row["qid"], x)
                    right = row["kind"] != "none" and any(_content(x) & g for g in gold)
                    cands.setdefault(key, {"right": right, "src": set()})["src"].add(src)
        if not cands:
            continue
        y = np.array([c["right"] for c in cands.values()])
        s = np.array([p[k] for k in cands])
        auc = roc_auc_score(y, -s) if 0 < y.sum() < len(y) else float("nan")
        lines += [f"### {title}: {len(cands)} kept exclusions ({int(y.sum())} right, {int((~y).sum())} wrong); "
                  f"AUC of 1 - P(situation) {auc:.3f}", "",
                  "| veto when P(situation) > | right vetoed | wrong vetoed |", "|---|---:|---:|"]
        for t in sorted(set(THRESHOLDS) | {max_situation}):
            v = s > t
            mark = " (default)" if t == max_situation else ""
            lines.append(f"| {t:.2f}{mark} | {int((v & y).sum())} / {int(y.sum())} ({(v & y).sum() / max(y.sum(), 1):.1%}) "
                         f"| {int((v & ~y).sum())} / {int((~y).sum())} ({(v & ~y).sum() / max((~y).sum(), 1):.1%}) |")
        lines.append("")
    return lines


def _replayed(query: str, kept: list[str], question: str, scores: dict, max_situation: float) -> str:
    """A stored guarded query with its vetoed NOTs removed (the question alone when none is left)."""
    from logical_pyserini.query import And, Not, Term, parse_query

    keep = [x for x in kept if scores.get(x, 0.0) <= max_situation]
    if not keep:
        return str(Term(question))
    tree = parse_query(query)
    children = [c for c in (tree.children if isinstance(tree, And) else (tree,))
                if not (isinstance(c, Not) and isinstance(c.child, Term) and c.child.text not in keep)]
    return str(children[0] if len(children) == 1 else And(tuple(children)))


def _retrieval_section(first: dict, p: dict, max_situation: float, model, cache: str | None, quick: bool,
                       tmp: Path) -> list[str]:
    from bench_soft_not import soften
    from logical_pyserini.demo import ensure_index
    from logical_pyserini.eval import per_query_values
    from logical_pyserini.rewrite import GUARD_NOT_WEIGHT
    from logical_pyserini.search import SearchConfig, run_topics

    runs = ["bm25", "first", "first + check", "now", "now + check", "Boolean peer, now + check"]
    lines = ["## 2. Retrieval on the long-question sets (nDCG@10; questions below plain BM25 in brackets)", "",
             f"Check: veto when P(situation) > {max_situation:.2f}. First runs are replayed from "
             "`eval/verify/first_runs.jsonl`, the NOTs of a question kept whole at today's strength "
             f"(`NOT^{GUARD_NOT_WEIGHT:g}`, as `eval/bench_soft_not.py` does); today's rows use the search default.", "",
             "| set | " + " | ".join(runs) + " |", "|---|" + "---:|" * len(runs)]
    totals = {held: {r: [0.0, 0, 0] for r in runs} for held in (False, True)}
    for d in LONGQ[-2:] if quick else LONGQ:
        index = tmp / f"index-{d.name}"
        ensure_index(d / "corpus.jsonl", index)
        topics = {line.split("\t", 1)[0]: line.split("\t", 1)[1]
                  for line in (d / "topics.tsv").read_text(encoding="utf-8").splitlines() if line.strip()}
        base = {"index": str(index), "hits": 100, "quiet": True}
        paths = {}

        def search(name, **options):
            paths[name] = tmp / f"{d.name}-{len(paths)}.txt"
            report = run_topics(SearchConfig(output=str(paths[name]), **base, **options))
            if report.failures:
                raise SystemExit(f"{d.name} {name}: {report.failures}")

        tsv = str(d / "topics.tsv")
        search("bm25", topics=tsv, plain="text")
        checked = dict(rewrite="rules", rewrite_verify="model", model=model, model_cache=cache)
        search("now", topics=tsv, rewrite="rules", rewrite_verify="off")
        search("now + check", topics=tsv, **checked)
        search("Boolean peer, now + check", topics=tsv, plain="boolean", **checked)
        stored = {qid: r for (s, qid), r in first.items() if s == d.name}
        if stored and set(stored) >= set(topics):
            for name, limit in (("first", 1.0), ("first + check", max_situation)):
                lines_tsv = tmp / f"{d.name}-{name.replace(' ', '')}.tsv"
                lines_tsv.write_text("".join(
                    f"{qid}\t{soften(_replayed(stored[qid]['query'], stored[qid]['kept'], text, {x: p.get((d.name, qid, x), 0.0) for x in stored[qid]['kept']}, limit), GUARD_NOT_WEIGHT)}\n"
                    for qid, text in topics.items()), encoding="utf-8")
                search(name, topics=str(lines_tsv))
        qrels = d / "qrels.txt"
        bm25 = per_query_values(qrels, paths["bm25"], "nDCG@10")
        cells = []
        held = d.name in HELD_OUT
        for name in runs:
            if name not in paths:
                cells.append("")
                continue
            vals = per_query_values(qrels, paths[name], "nDCG@10")
            mean = float(np.mean([vals[q]["nDCG@10"] for q in bm25]))
            below = sum(vals[q]["nDCG@10"] < bm25[q]["nDCG@10"] - 1e-9 for q in bm25)
            cells.append(f"{mean:.3f} ({below})")
            t = totals[held][name]
            t[0] += mean
            t[1] += below
            t[2] += 1
        lines.append(f"| {d.name}{' (held out)' if held else ''} | " + " | ".join(cells) + " |")
        log(f"[verify] {d.name}: " + ", ".join(f"{n} {c}" for n, c in zip(runs, cells)))
    for held in (False, True):
        label = "held-out sets" if held else "tuning sets"
        if any(t[2] for t in totals[held].values()):
            lines.append(f"| **mean over the {label}** (questions below BM25 summed) | " + " | ".join(
                f"**{t[0] / t[2]:.3f} ({t[1]})**" if t[2] else "" for t in totals[held].values()) + " |")
    return lines + [""]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["first-runs"]:
        return first_runs(argv[1:])
    p = base_parser(__doc__, data=False)
    p.add_argument("--model", default="embedded", help="Model spec of the verifier (default: embedded).")
    p.add_argument("--model-cache", default=None, metavar="FILE", help="SQLite cache of model answers.")
    p.add_argument("--max-situation", type=float, default=None,
                   help="Veto threshold (default: the verify prompt's).")
    args = p.parse_args(argv)

    from logical_pyserini.models import get_model
    from logical_pyserini.rewrite import ExclusionVerifier

    model = get_model(args.model, cache=args.model_cache)
    verifier = ExclusionVerifier(model, max_situation=args.max_situation)
    rows, first = _labelled(args.quick)
    log(f"[verify] {len(rows)} labelled questions; judging their kept exclusions")
    start = time.perf_counter()
    scores, tokens, shared = _judge(rows, verifier)
    seconds = time.perf_counter() - start
    usage = model.usage
    speed = (f"{usage['calls'] / seconds:.2f} judgements/s computed in this run" if usage["calls"] else
             "all answers from the cache")
    lines = header("Exclusions checked by the model (rewrite guard + verifier)", command(__file__, argv),
                   f"Model `{model.id}`, prompt `{verifier.prompt['version']}` (claim: \"X is part of the writer's "
                   "own situation or problem, not something they reject\"; True = veto). "
                   f"{len(scores)} judgements, {tokens / max(len(scores), 1):.0f} prompt tokens each without the chat "
                   f"template ({tokens} in all, {tokens - shared} to compute when a question's prefix is shared); "
                   f"{usage['cache_hits']} from the cache, {speed}. Held out: {', '.join(HELD_OUT)}. Means are over "
                   "the sets that have the run (the original longq set has no first run: it predates the guard).")
    lines += _label_section(rows, scores, verifier.max_situation)
    with tempfile.TemporaryDirectory() as tmp:
        lines += _retrieval_section(first, scores, verifier.max_situation, args.model, args.model_cache,
                                    args.quick, Path(tmp))
    path = write_lines(Path(args.results) / "rewrite_verify.md", lines)
    print("\n".join(lines))
    log(f"[verify] written {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
