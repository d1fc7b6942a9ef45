"""ROG (seed 004) on NELL995: exact / scored / llm executors beside the seed's Tables 1-2.

Subcommands (each writes ``eval/results/kg_<name>.md``; per-query rows go to ``runs/``):

* ``exact``  -- complete protocol (graph = full KG): a correctness check (MRR must be 100) and throughput.
* ``scored`` -- standard protocol (graph = train+valid, hard answers scored, easy ones filtered).
* ``embedding`` -- standard protocol: ``--projection logistic / embedding / fused`` on the same queries (the
  link predictor from ``python -m logical_pyserini.kg train-embeddings``); writes
  ``kg_scored_embedding_<per-type>_s<seed>[_<tag>].md``; ``--baseline DIR`` puts an earlier run of the same
  projections and queries (e.g. with a less trained link predictor) beside the new rows.
* ``union``  -- standard protocol, the same queries through the steps of the union / calibration work: the
  earlier model (``--union max``, no head-breadth feature) with the earlier filter, taken from a committed row;
  with BetaE's filter of every easy answer; + the head-breadth feature; + the probabilistic-sum union (the
  default); writes ``kg_scored_union_<per-type>_s<seed>.md``.
* ``llm``    -- the llm executor's rows (``--rows``, finished or ``.partial`` JSONL files from
  ``python -m logical_pyserini.kg --executor llm``, one table row each) against ``scored`` on exactly the
  same queries.
* ``calibrate`` -- the likelihood ratios of the llm executor's judgements (``--judgement odds``), per band of
  shown position (``--lr-bands``), pooled over llm runs' rows (use samples other than the one you evaluate
  on); writes ``kg_llm_calibration.md``.

The NELL995 BetaE files are not in the repository: point ``--data`` at a copy (ids only), e.g. the
``data/NELL-betae`` folder redistributed by github.com/zjukg/ENeSy.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import _common as C  # noqa: F401 - puts the checkout on sys.path

from logical_pyserini.kg import TYPES, aggregate
from logical_pyserini.kg.__main__ import main as kg_main

# MRR (%) on NELL995 as printed in the seed's Tables 1 (nine positive types) and 2 (negation types).
SEED = {
    "GQE": dict(zip(TYPES[:9], (52.5, 29.5, 15.3, 35.6, 38.8, 28.5, 25.4, 26.9, 18.6))),
    "Q2B": dict(zip(TYPES[:9], (53.1, 31.0, 22.4, 51.4, 46.9, 31.1, 29.1, 37.6, 21.5))),
    "CQD": dict(zip(TYPES[:9], (66.4, 32.7, 26.8, 55.8, 51.2, 37.7, 33.6, 45.4, 39.2))),
    "BetaE": dict(zip(TYPES[9:], (29.6, 27.9, 23.4, 21.1, 15.6))),
    "ROG": dict(zip(TYPES, (83.3, 59.2, 41.5, 61.1, 58.7, 42.9, 50.1, 62.2, 57.2,
                                   34.7, 32.8, 29.5, 27.3, 19.5))),
}


def _run(args: list[str]) -> dict:
    out = Path(args[args.index("--output") + 1])
    if kg_main(args) != 0:
        sys.exit(f"kg run failed: {' '.join(args)}")
    return json.loads(Path(f"{out}.metrics.json").read_text())


def _run_executor(ns, executor: str, protocol: str, name: str, *extra: str) -> tuple[dict, dict]:
    """Run ``executor`` on ``ns.per_type`` queries per type (seed ``ns.seed``): (metrics per type, run info)."""
    m = _run(["--data", ns.data, "--executor", executor, "--protocol", protocol, "--per-type", str(ns.per_type),
              "--seed", str(ns.seed), "--output", str(Path(ns.runs) / name), "--quiet", *extra])
    return m, m.pop("_run")


def _row(name: str, metrics: dict, key: str = "MRR") -> list:
    return [name] + [f"{metrics[t][key]:.1f}" if t in metrics else "" for t in TYPES]


def _seed_rows() -> list[list]:
    return [[f"{name} (seed, Tables 1-2)"] + [f"{row[t]:.1f}" if t in row else "" for t in TYPES]
            for name, row in SEED.items()]


def _write(path: Path, lines: list[str]) -> None:
    from logical_pyserini._io import atomic_write_text

    atomic_write_text(path, "\n".join(lines) + "\n")
    print(f"wrote {path}")


def exact(ns, argv) -> None:
    m, run = _run_executor(ns, "exact", "complete", "kg-exact-complete.jsonl")
    lines = C.header("ROG exact executor, complete protocol (NELL995)", C.command(__file__, argv),
                     "Graph = the full KG (train+valid+test); every answer is scored with the other answers "
                     "filtered. The answers come from an independent plain-Python set evaluator "
                     "(`kg/_answers.py`), so MRR 100 checks plan compiler, CSR projection, set algebra and "
                     "ranking together.")
    lines += C.md_table(["executor", *TYPES], [_row("exact MRR", m), _row("exact Hits@1", m, "Hits@1")])
    lines += ["", f"Queries: {run['scored']} scored ({ns.per_type} per type; 1p has 17,021 in the file), "
              f"{run['errors']} errors, {run['skipped']} skipped.", "",
              f"Time: load (triples, queries, reference graphs) {run['load_seconds']} s; executor alone "
              f"{run['exec_seconds']} s = **{run['queries_per_second']} queries/s**; whole run including "
              f"reference answers, ranking and writing rows {run['total_seconds']} s."]
    _write(Path(ns.results) / "kg_exact.md", lines)


def scored(ns, argv) -> None:
    rules, run_rules = _run_executor(ns, "scored", "standard", f"kg-scored-rules-standard-{ns.per_type}.jsonl",
                                     "--projection", "rules")
    before, run_before = _run_executor(ns, "scored", "standard", f"kg-scored-group-standard-{ns.per_type}.jsonl",
                                       "--intermediate", "group")
    m, run = _run_executor(ns, "scored", "standard", f"kg-scored-standard-{ns.per_type}.jsonl")
    lines = C.header("ROG scored executor, standard protocol (NELL995)", C.command(__file__, argv),
                     "Graph = train+valid; hard answers (only reachable with test edges) are scored, easy "
                     "ones filtered; filtered MRR in percent, ties at their expected rank. All rows run the "
                     "same queries (seed fixed). `rules` = fuzzy sets, projections completed by the noisy-or "
                     "of 1-hop/2-hop relation-path rules and a co-tail walk whose confidences are counted on "
                     "the training graph. `logistic` = the same rules, walk and tail popularity as features of "
                     "a logistic model fitted on 5% of the graph's edges held out (with their inverse edges), "
                     "i.e. on crisp single heads. `group` (before) projects a fuzzy intermediate set as two "
                     "groups (its certain members together, the uncertain rest together); `members` (after, "
                     "the default) projects each of its 256 best entities as a crisp head, scales by the "
                     "entity's score and keeps the max per tail (CQD's max over intermediate entities). No "
                     "learned embeddings; product t-norm for intersection, probabilistic sum 1-prod(1-v) for union "
                     "(`--union max` before 2026-11-24), 1-x for negation.")
    lines += C.md_table(["method", *TYPES], _seed_rows() + [
        _row(f"scored, rules, {ns.per_type}/type", rules),
        _row(f"scored, logistic group (before), {ns.per_type}/type", before),
        _row(f"scored, logistic members (after), {ns.per_type}/type", m),
        _row("after - before", {t: {"MRR": m[t]["MRR"] - before[t]["MRR"]} for t in m if t in before}),
        _row("after - CQD / BetaE (seed)", {t: {"MRR": m[t]["MRR"] - (SEED["CQD"].get(t) or SEED["BetaE"][t])}
                                            for t in m}),
        _row("group Hits@1", before, "Hits@1"), _row("members Hits@1", m, "Hits@1"),
        _row("group Hits@10", before, "Hits@10"), _row("members Hits@10", m, "Hits@10")])
    lines += ["", f"Queries: {run['scored']} scored, {run['skipped']} without hard answers skipped, "
              f"{run['errors']} errors (rules: {run_rules['errors']}, group: {run_before['errors']}). Setup (rule "
              f"mining; with logistic also mining on the reduced graph and the fit): rules "
              f"{run_rules['setup_seconds']} s, group {run_before['setup_seconds']} s, members "
              f"{run['setup_seconds']} s; executor {run_rules['queries_per_second']} / "
              f"{run_before['queries_per_second']} / {run['queries_per_second']} queries/s. 1-minute load "
              f"average at the end: {os.getloadavg()[0]:.1f}."]
    _write(Path(ns.results) / "kg_scored.md", lines)


def embedding(ns, argv) -> None:
    """The learned link predictor's projections (``embedding``, ``fused``) beside ``logistic`` on the same queries."""
    from logical_pyserini.kg import LinkPredictor, default_embedding_path

    path = Path(ns.embeddings) if ns.embeddings else default_embedding_path(ns.data)
    info = LinkPredictor.load(path).info  # fails with the command that creates it
    extra = ("--embeddings", str(path))
    runs = {}
    for name in ns.projections:
        out = f"kg-scored-{name}-standard-{ns.per_type}-s{ns.seed}.jsonl"
        runs[name] = _run_executor(ns, "scored", "standard", out,
                                   "--projection", name, *(extra if name in ("embedding", "fused") else ()))
    m = {name: r[0] for name, r in runs.items()}
    rows = _seed_rows()[2:4] + [_row(f"scored, {name}, {ns.per_type}/type", m[name]) for name in m]
    best = ns.projections[-1]
    base = {}
    if ns.baseline:  # the same projections and queries from an earlier run, e.g. a less trained predictor
        label = ns.baseline_label or ns.baseline
        for name in m:
            f = Path(ns.baseline) / f"kg-scored-{name}-standard-{ns.per_type}-s{ns.seed}.jsonl.metrics.json"
            if name in ("embedding", "fused") and f.exists():
                old = json.loads(f.read_text())
                old.pop("_run", None)
                base[f"{name}, {label}"] = old
                rows.append(_row(f"{name}, {label}", old))
                rows.append(_row(f"{name}: this - {label}", {t: {"MRR": m[name][t]["MRR"] - old[t]["MRR"]}
                                                              for t in m[name] if t in old}))
    if "logistic" in m and best != "logistic":
        rows.append(_row(f"{best} - logistic", {t: {"MRR": m[best][t]["MRR"] - m["logistic"][t]["MRR"]}
                                                for t in m[best] if t in m["logistic"]}))
    rows.append(_row(f"{best} - CQD / BetaE (seed)", {t: {"MRR": m[best][t]["MRR"] - (SEED["CQD"].get(t) or
                                                                                      SEED["BetaE"][t])}
                                                      for t in m[best]}))
    rows += [_row(f"{name} Hits@1", m[name], "Hits@1") for name in m]
    rows += [_row(f"{name} Hits@10", m[name], "Hits@10") for name in m]
    means = ", ".join(f"{name} {sum(v[t]['MRR'] for t in v) / max(len(v), 1):.1f}" for name, v in {**m, **base}.items())
    lines = C.header("ROG scored executor with a learned link predictor, standard protocol (NELL995)",
                     C.command(__file__, argv),
                     "Graph = train+valid; hard answers scored, easy ones filtered; filtered MRR in percent; all "
                     "rows run the same queries. `logistic` = the graph-feature projection (rules, co-tail walk, "
                     "popularity, head breadth; fitted on 5% held-out edges). `embedding` = the ComplEx-N3 link "
                     "predictor's log-probability alone, calibrated by a one-feature logistic fit on valid.txt "
                     "edges (which it was not trained on). `fused` = the graph features and the log-probability in one "
                     "logistic model fitted on the same valid edges. All: member-wise projection of fuzzy sets "
                     "(256 best members, max over members), product t-norm, probabilistic sum for union, 1-x for "
                     "negation; every train+valid answer filtered (BetaE's test_step).",
                     f"Link predictor `{path.name}`: ComplEx-N3 rank {info.get('rank')}, trained 1-vs-all on "
                     f"train.txt only ({info.get('train_triples')} triples, sha {info.get('train_sha256')}), best "
                     f"epoch {info.get('best_epoch')} of {info.get('epochs_run')} by filtered tail MRR on "
                     f"{info.get('valid_sample')} valid triples = {info.get('valid_mrr')}; training "
                     f"{info.get('seconds')} s on 2 CPU threads (`nice -n 19`, bf16 "
                     f"{info.get('config', {}).get('bf16')}).")
    lines += C.md_table(["method", *TYPES], rows)
    lines += ["", f"Mean MRR over the 14 types: {means}.", ""]
    for name, (_, run) in runs.items():
        lines.append(f"- {name}: {run['scored']} queries scored, {run['errors']} errors; setup (mining, fit) "
                     f"{run['setup_seconds']} s; executor {run['queries_per_second']} queries/s "
                     f"({1000 / run['queries_per_second'] if run['queries_per_second'] else 0:.0f} ms/query).")
    lines += ["", f"1-minute load average at the end: {os.getloadavg()[0]:.1f}."]
    tag = f"_{ns.tag}" if ns.tag else ""
    _write(Path(ns.results) / f"kg_scored_embedding_{ns.per_type}_s{ns.seed}{tag}.md", lines)


# The committed default row of kg_scored.md (200/type, seed 1), measured before the BetaE easy-answer filter:
# negation queries then ranked the observed graph's answers that a test edge negates against the hard answers.
BEFORE_200_S1 = dict(zip(TYPES, (56.2, 20.5, 17.6, 37.4, 53.3, 23.3, 25.4, 18.4, 12.8, 8.3, 15.7, 6.0, 7.2, 3.9)))
OLD_FEATURES = ("rules", "best_rule", "rules_fired", "walk", "popularity", "typed")


def union(ns, argv) -> None:
    """The scored executor before and after the union / breadth-calibration / easy-filter changes, same queries."""
    steps = [("earlier model, BetaE filter", ["--union", "max", "--features", *OLD_FEATURES]),
             ("+ head breadth feature", ["--union", "max"]),
             ("+ probabilistic-sum union (default)", [])]
    runs = []
    for i, (label, extra) in enumerate(steps):
        runs.append((label, *_run_executor(ns, "scored", "standard",
                                           f"kg-scored-union-{i}-{ns.per_type}-s{ns.seed}.jsonl", *extra)))
    m = {label: metrics for label, metrics, _ in runs}
    first, last = runs[0][1], runs[-1][1]
    rows = _seed_rows()[2:4]
    if (ns.per_type, ns.seed) == (200, 1):
        rows.append(_row("before: committed default (kg_scored.md), earlier filter",
                         {t: {"MRR": v} for t, v in BEFORE_200_S1.items()}))
    rows += [_row(label, metrics) for label, metrics in m.items()]
    rows.append(_row("after - earlier model (both BetaE filter)",
                     {t: {"MRR": last[t]["MRR"] - first[t]["MRR"]} for t in last if t in first}))
    seed_best = {t: SEED["CQD"].get(t) or SEED["BetaE"][t] for t in last}
    rows.append(_row("after - CQD / BetaE (seed)", {t: {"MRR": last[t]["MRR"] - seed_best[t]} for t in last}))
    rows += [_row(f"{label} Hits@1", metrics, "Hits@1") for label, metrics in (runs[0][:2], runs[-1][:2])]
    rows += [_row(f"{label} Hits@10", metrics, "Hits@10") for label, metrics in (runs[0][:2], runs[-1][:2])]
    means = ", ".join(f"{label} {sum(v[t]['MRR'] for t in v) / max(len(v), 1):.2f}" for label, v in m.items())
    lines = C.header("ROG scored executor: unions, breadth calibration and BetaE's easy-answer filter (NELL995)",
                     C.command(__file__, argv),
                     "Standard protocol (graph = train+valid, hard answers scored), filtered MRR in percent, every row "
                     "on the same queries. `earlier model` = `--projection logistic` with the six graph features "
                     "and `--union max` (the default before this change); `head breadth` = the seventh feature "
                     "log(1 + tails the head already has under the relation); `probabilistic-sum union` = "
                     "`1 - prod(1 - v)`, the t-conorm dual to the product t-norm under `1 - x`. `BetaE filter` = every "
                     "answer on train+valid is filtered, as KGReasoning's test_step does (before, the observed "
                     "graph's answers that only a test edge of a negated branch excludes were ranked against the hard "
                     "answers: only the five negation types change).")
    lines += C.md_table(["method", *TYPES], rows)
    lines += ["", f"Mean MRR over the 14 types: {means}.", ""]
    for label, _, run in runs:
        lines.append(f"- {label}: {run['scored']} queries scored, {run['errors']} errors; setup (mining, fit) "
                     f"{run['setup_seconds']} s; executor {run['queries_per_second']} queries/s.")
    lines += ["", f"1-minute load average at the end: {os.getloadavg()[0]:.1f}."]
    _write(Path(ns.results) / f"kg_scored_union_{ns.per_type}_s{ns.seed}.md", lines)


def _read_rows(path: str) -> tuple[Path, list[dict]]:
    rows_path = Path(path)
    if not rows_path.exists() and Path(f"{rows_path}.partial").exists():
        rows_path = Path(f"{rows_path}.partial")
    return rows_path, [json.loads(line) for line in rows_path.read_text().splitlines() if line.strip()]


def llm(ns, argv) -> None:
    from logical_pyserini.eval import sign_counts, sign_test

    runs = [_read_rows(r) for r in ns.rows]
    labels = ns.labels or [p.name for p, _ in runs]
    if len(labels) != len(runs):
        sys.exit("--labels: one label per --rows file")
    # every table row covers the same queries: those scored in all the --rows files
    done = set.intersection(*({(r["type"], r["index"]) for r in rows if r.get("metrics")} for _, rows in runs))
    llm_runs = [[r for r in rows if (r["type"], r["index"]) in done] for _, rows in runs]
    out = Path(ns.runs) / "kg-scored-standard-llm-queries.jsonl"
    _run_executor(ns, "scored", "standard", out.name)
    scored_rows = [json.loads(line) for line in out.read_text().splitlines()]
    same = [r for r in scored_rows if (r["type"], r["index"]) in done]
    b = aggregate(same)
    info = [r.get("info", {}) for r in llm_runs[0]]
    n = max(1, len(info))
    prompts = sum(i.get("prompts", 0) for i in info) / n
    # cost per prompt the model really ran (a resumed run serves its earlier prompts from the cache, at 0 tokens)
    ran = max(1, sum(i.get("prompts", 0) - i.get("cache_hits", 0) for i in info))
    tokens = sum(i.get("prompt_tokens", 0) for i in info) / ran * prompts
    gen = sum(i.get("generated_tokens", 0) for i in info) / ran * prompts
    secs = sum(i.get("seconds_llm", 0.0) for i in info if i.get("prompt_tokens", 0)) / ran * prompts
    bad = sum(i.get("unsupported", 0) for i in info)
    malformed = sum(i.get("malformed", 0) for i in info)
    cache_hits = sum(i.get("cache_hits", 0) for i in info)
    lines = C.header("ROG llm executor vs scored on the same queries (NELL995, standard protocol)",
                     C.command(__file__, argv),
                     "llm rows: " + ", ".join(f"`{p.name}` ({lab})" for (p, _), lab in zip(runs, labels)) +
                     f"; {len(done)} queries scored in all of them. Embedded model "
                     "(Qwen2.5-Coder-1.5B-Instruct, bf16) on 2 shared CPU cores. Each projection is one prompt: "
                     "abstract ids, the capped query-aware neighbourhood, the top candidates of `scored` with "
                     "their rule paths; the reply is one id per line or NONE. Only shown candidates and evidence "
                     "facts of the step can be accepted. `--judgement rank`: the model's vote share first, the "
                     "scored order as tie-break (entities the model did not accept keep 0.99 x their scored "
                     "probability, so set steps read probabilities); `--judgement odds`: each shown candidate's "
                     "scored odds times the likelihood ratio of its judgement (kg_llm_calibration.md).")
    aggs = [aggregate(rows) for rows in llm_runs]
    table = [_row(f"llm, {lab}", a) + [str(len(done))] for lab, a in zip(labels, aggs)]
    table += [_row("scored, same queries", b) + [str(len(same))]]
    table += [_row(f"llm Hits@1, {lab}", a, "Hits@1") + [""] for lab, a in zip(labels, aggs)]
    table += [_row("scored Hits@1", b, "Hits@1") + [""]]
    table += [row + [""] for row in _seed_rows()]  # the seed's published rows (full test sets), for scale
    lines += C.md_table(["method", *TYPES, "n"], table)

    def mean(m: dict) -> float:
        return sum(m[t]["MRR"] for t in TYPES if t in m) / max(1, sum(t in m for t in TYPES))

    by_query = {(r["type"], r["index"]): r["metrics"]["MRR"] for r in same}
    paired = []
    for lab, rows in zip(labels, llm_runs):
        w, lo, ties = sign_counts((r["metrics"]["MRR"] - by_query[(r["type"], r["index"])] for r in rows), tol=1e-9)
        paired.append(f"{lab}: {w} better / {lo} worse / {ties} tied (sign test p = {sign_test(w, lo):.3f})")
    lines += ["", "Mean MRR over the types: " + ", ".join(f"{lab} {mean(a):.1f}" for lab, a in zip(labels, aggs)) +
              f", scored {mean(b):.1f}.",
              "", "Per query against scored (reciprocal rank of the query's hard answers): " + "; ".join(paired) + ".",
              "", f"Per query ({labels[0]}): {prompts:.1f} prompts, {tokens:.0f} prompt tokens, {gen:.1f} generated "
              f"tokens, {secs:.1f} s of model time (per prompt the model ran, times prompts per query; "
              f"{cache_hits} prompts were served from the cache). "
              f"Ids rejected as unsupported by evidence or candidates: {bad}; malformed replies: {malformed}.",
              "", "Per-type counts are tiny (see n): differences of a few points are noise."]
    _write(Path(ns.results) / "kg_llm.md", lines)


def calibrate(ns, argv) -> None:
    """Likelihood ratios of the model's judgements (``--judgement odds``) from llm runs' transcripts.

    Only steps whose output is the query's answer set are used (the last projection of 1p / 2p / 3p), so
    every shown candidate is a true (hard) answer or not; easy answers (in the executor's graph) are left
    out, as the filtered metrics leave them out, but keep their place in the shown order.  Ratios are
    measured per band of shown positions (``--lr-bands``), since a judgement of the proposer's top candidate
    need not carry what a judgement of its eighth does.
    """
    from logical_pyserini.kg import ExecutorError, LikelihoodRatios, ReferenceGraph, reference_answers
    from logical_pyserini.kg._evaluate import load_dataset
    from logical_pyserini.kg._llm import parse_ids

    def nested(x):
        return tuple(nested(v) for v in x) if isinstance(x, list) else x

    bands = tuple(ns.lr_bands)
    try:  # the executor's own band rule (and its check of the bounds), with ratios still to be measured
        banding = LikelihoodRatios((1.0,) * (len(bands) + 1), (1.0,) * (len(bands) + 1), bands)
    except ExecutorError as exc:
        sys.exit(f"--lr-bands: {exc}")
    names = [f"{lo}" if lo == hi else f"{lo}-{hi}" for lo, hi in zip((1, *(b + 1 for b in bands)), bands)]
    names.append(f"{bands[-1] + 1}+" if bands else "all")
    data = load_dataset(ns.data)
    full, observed = ReferenceGraph(data.full), ReferenceGraph(data.observed)
    # per band: [accepted vote share of true answers, true answers shown, accepted share of others, others shown]
    counts = [[0.0, 0, 0.0, 0] for _ in names]
    used, sources = 0, []
    for path in ns.rows:
        rows_path, rows = _read_rows(path)
        sources.append(rows_path.name)
        for r in rows:
            if r["type"] not in ("1p", "2p", "3p") or not r.get("metrics") or not r.get("info", {}).get("transcript"):
                continue
            query = nested(r["query"])
            answers = reference_answers(full, r["type"], query)
            easy = reference_answers(observed, r["type"], query)
            step = r["info"]["transcript"][-1]
            votes = [set(parse_ids(text)[0]) for text in step["replies"]]
            used += 1
            for pos, c in enumerate(step["candidates"], 1):
                if c in easy:
                    continue
                share = sum(c in v for v in votes) / max(1, len(votes))
                band = counts[banding.band(pos)]
                k = 0 if c in answers else 2
                band[k] += share
                band[k + 1] += 1
    if not used or not sum(c[1] for c in counts):
        sys.exit(f"{', '.join(ns.rows)}: no 1p/2p/3p query with a transcript and a true answer among its shown "
                 "candidates; calibrate needs the rows of an llm run over those types")
    acc, rej, table = [], [], []
    for name, (pa, na, po, no) in zip(names, counts):
        # One pseudo-observation per class at the band's pooled acceptance rate: a band with few (or no)
        # true answers gets a ratio near 1, never an infinite one or one set by the prior alone.
        rate = (pa + po + 0.5) / (na + no + 1)
        acc.append(((pa + rate) / (na + 1)) / ((po + rate) / (no + 1)))
        rej.append(((na - pa + 1 - rate) / (na + 1)) / ((no - po + 1 - rate) / (no + 1)))
        table.append([name, str(na), f"{pa:.1f}", f"{pa / max(1, na):.3f}", str(no), f"{po:.1f}",
                      f"{po / max(1, no):.3f}", f"{acc[-1]:.2f}", f"{rej[-1]:.2f}"])
    flags = (f"--lr-bands {' '.join(map(str, bands))} " if bands else "--lr-bands ") + \
        f"--accept-lr {' '.join(f'{x:.2f}' for x in acc)} --reject-lr {' '.join(f'{x:.2f}' for x in rej)}"
    lines = C.header("Likelihood ratios of the llm executor's judgements (calibration for --judgement odds)",
                     C.command(__file__, argv),
                     f"Rows: {', '.join(f'`{n}`' for n in sources)}; {used} queries (1p / 2p / 3p, last projection); "
                     "shown candidates that are easy answers are left out (they keep their place in the order).")
    lines += C.md_table(["shown position", "true answers", "accepted", "rate", "others", "accepted", "rate",
                         "accept-lr", "reject-lr"], table)
    lines += ["", f"**`{flags}`** (each class smoothed by one observation at the band's pooled acceptance rate): "
              "an accepted candidate's odds of being a true answer are multiplied by its band's accept-lr, "
              "a shown but not accepted one's by its reject-lr."]
    _write(Path(ns.results) / "kg_llm_calibration.md", lines)


def main(argv: list[str] | None = None) -> None:
    p = C.base_parser(__doc__, data=False)
    p.add_argument("what", choices=["exact", "scored", "embedding", "union", "llm", "calibrate"])
    p.add_argument("--data", required=True, help="NELL995 in BetaE form (train.txt, valid.txt, test.txt, "
                   "test-queries.pkl[.ori])")
    p.add_argument("--per-type", type=int, default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--runs", default=str(C.ROOT / "runs"), help="where per-query JSONL rows go")
    p.add_argument("--rows", nargs="+", help="llm: the JSONL (or .partial) files of llm runs with the same "
                   "--per-type/--seed (one table row each); calibrate: the rows of llm runs (pooled)")
    p.add_argument("--lr-bands", type=int, nargs="*", default=[1, 3], metavar="POS",
                   help="calibrate: last shown position of each band but the last (default 1 3: position 1, 2-3, "
                   "4 on); none for one band over all positions")
    p.add_argument("--labels", nargs="+", help="llm: what each --rows file is called in the table")
    p.add_argument("--embeddings", help="embedding: the link-predictor file (default: the train-embeddings default)")
    p.add_argument("--projections", nargs="+", default=["logistic", "embedding", "fused"],
                   help="embedding: the --projection rows, in order (the last one is compared with the others)")
    p.add_argument("--baseline", metavar="DIR", help="embedding: --runs folder of an earlier run (same --per-type, "
                   "--seed) whose embedding / fused rows go beside the new ones")
    p.add_argument("--baseline-label", help="embedding: what the --baseline rows are called (default: DIR)")
    p.add_argument("--tag", help="embedding: suffix of the results file name (kg_scored_embedding_N_sS_TAG.md)")
    ns = p.parse_args(argv)
    if ns.what in ("llm", "calibrate") and not ns.rows:
        p.error(f"{ns.what} needs --rows (the JSONL of a python -m logical_pyserini.kg --executor llm run)")
    ns.per_type = ns.per_type or {"exact": 4000, "scored": 200, "embedding": 50, "union": 200, "llm": 2,
                                   "calibrate": 2}[ns.what]
    Path(ns.runs).mkdir(parents=True, exist_ok=True)
    {"exact": exact, "scored": scored, "embedding": embedding, "union": union,
     "llm": llm, "calibrate": calibrate}[ns.what](ns, sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    main()
