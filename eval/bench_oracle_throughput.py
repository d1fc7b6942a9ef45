"""OrLog(LLM) oracle throughput on any machine (CPU or GPU), from recorded prompts, with agreement checks.

Two steps, so the machine that measures needs neither Java nor an index, only the model:

    # 1. where the demo runs: record every (document, predicate) prompt OrLog(LLM) judges on the demo
    #    topics (LLM rewrite -> ITLR -> top --depth), with this machine's answers (model cache or computed)
    python eval/bench_oracle_throughput.py export --topics-per-template 16 --depth 30 \
        --cache runs/demo.model-cache.sqlite --output eval/data/oracle_pairs.jsonl
    # 2. anywhere the model is: score them cold (no answer cache) per batch size, and compare each answer
    #    with the recorded one (the same prompts on another device or batch size must give the same answers)
    python eval/bench_oracle_throughput.py run --pairs eval/data/oracle_pairs.jsonl --model embedded \
        --batch-size 512 --pairs-per-call 64,4096 --pool-topics 1,16 --output eval/results/oracle_throughput.md

``run`` calls the product's path, ``TransformersModel.true_false_probability`` (head and document prefix
key/value caches shared, left-padded batches), in calls of at most ``--pairs-per-call`` pairs (the reranker's
``oracle_batch``) from ``--pool-topics`` consecutive topics: 1 is the reranker's per-query call, more is what
``OrLogReranker.prefetch`` sends for a search batch (which also judges a pair shared by several topics once;
here every recorded prompt is computed, so pooled rows understate it).  ``--random-weights`` builds the model from the folder's config with random
weights: the same shapes and token counts, so the same speed, but no answers worth comparing (for a machine
the weights cannot reach; the output says so).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def _ints(text: str) -> list[int]:
    return [int(x) for x in str(text).split(",") if x.strip()]


# -- step 1: record the prompts ------------------------------------------------------------------------------
def export(args: argparse.Namespace) -> int:
    from logical_pyserini._io import atomic_write_text
    from logical_pyserini._topics import read_topics
    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.demo import ensure_index, llm_subset
    from logical_pyserini.models import get_model
    from logical_pyserini.rerank import LLMOracle, OrLogQuery, OrLogReranker, searcher_doc_text_fn, valuation_parts
    from logical_pyserini.rewrite import LLMRewriter
    from logical_pyserini.search import LogicalLuceneSearcher

    data = Path(DEMO_DIR)
    ensure_index(data / "corpus.jsonl", Path(args.index))
    qids = llm_subset(data, args.topics_per_template, args.skip_per_template)
    natural = read_topics(data / "topics.natural.tsv")
    lm = get_model(args.model, cache=args.cache, threads=args.threads, dtype=args.dtype)
    rewriter = LLMRewriter(lm)
    searcher = LogicalLuceneSearcher(args.index)
    doc_text = searcher_doc_text_fn(searcher)
    rows: list[dict] = []

    class Recorder(LLMOracle):
        """The product's oracle, writing down each prompt it judges and the answer."""

        qid = ""

        def plausibilities(self, pairs):
            values = super().plausibilities(pairs)
            for (entity, statement), p in zip(pairs, values):
                prefix, suffix = valuation_parts(entity, statement, self.prompt)
                rows.append({"qid": self.qid, "docid": entity.docid, "prefix": prefix, "suffix": suffix,
                             "p": float(p)})
            return values

    oracle = Recorder(lm)
    reranker = OrLogReranker(oracle, args.depth)
    for q in qids:
        rw = rewriter.rewrite(natural[q])
        query = OrLogQuery.coerce(rw.decomposition) if rw.decomposition else OrLogQuery.from_tree(rw.tree, natural[q])
        oracle.qid = q
        reranker.rerank(query, searcher.search(rw.tree, k=100), doc_text)
        print(f"[export] {q}: {len(rows)} pairs so far", file=sys.stderr)
    header = {"model": lm.id, "device": getattr(lm, "device", ""), "version": oracle.prompt_version,
              "system": oracle.system or "", "topics": qids, "depth": args.depth,
              "date": f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC"}
    atomic_write_text(args.output, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in [header, *rows]))
    print(f"[export] {len(rows)} pairs of {len(qids)} topics -> {args.output}", file=sys.stderr)
    return 0


# -- step 2: score them ---------------------------------------------------------------------------------------
def read_pairs(path: str | os.PathLike) -> tuple[dict, list[dict]]:
    """The header and the rows of an ``export`` file (clear errors for anything else)."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    if not lines:
        raise SystemExit(f"{path}: empty; write it with `bench_oracle_throughput.py export`")
    try:
        header, rows = json.loads(lines[0]), [json.loads(line) for line in lines[1:] if line.strip()]
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{path}: not an export file (line {exc.lineno}: {exc.msg})") from None
    bad = next((i for i, r in enumerate(rows, 2) if not {"qid", "prefix", "suffix"} <= set(r)), None)
    if "version" not in header or bad is not None:
        raise SystemExit(f"{path}: not an export file (line {bad or 1} lacks its fields)")
    return header, rows


def _load(args: argparse.Namespace):
    """The model under test: the product's loader, or (``--random-weights``) its architecture with random weights."""
    from logical_pyserini.models import ModelCache, TransformersModel, embedded_path, get_model

    off = ModelCache(enabled=False)
    if not args.random_weights:
        return get_model(args.model, cache=off, threads=args.threads, dtype=args.dtype, device=args.device)
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    folder = Path(embedded_path() if args.model == "embedded" else args.model)
    config = AutoConfig.from_pretrained(str(folder), local_files_only=True)
    torch.manual_seed(0)
    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    with torch.device(device):  # initialised where it runs: seconds on a GPU instead of minutes on its host
        model = AutoModelForCausalLM.from_config(config, dtype=getattr(torch, args.dtype or "bfloat16"))
    tokenizer = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    return TransformersModel(model=model.to(device).eval(), tokenizer=tokenizer, model_id=f"random:{folder.name}",
                             cache=off, threads=args.threads)


def _peak_memory(device: str) -> tuple[float, str]:
    import torch

    if device.startswith("cuda"):
        return torch.cuda.max_memory_allocated() / 2**30, "GPU GiB (peak allocated)"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, "GiB (peak RSS)"


def score(model, header: dict, rows: list[dict], batch_size: int, per_call: int, pool: int = 1):
    """Score ``rows`` cold with one model setting; returns (answers, seconds, prompt tokens, tokens run).

    Calls hold at most ``per_call`` pairs of ``pool`` consecutive topics (1: one query at a time, as the
    reranker calls the oracle; more: what ``OrLogReranker.prefetch`` sends for a search batch).
    """
    import numpy as np
    import torch

    from logical_pyserini.models import ModelCache, TransformersModel

    m = TransformersModel(model=model.model, tokenizer=model.tokenizer, model_id=model.id, batch_size=batch_size,
                          cache=ModelCache(enabled=False))
    by_topic: dict[str, list[int]] = {}
    for i, r in enumerate(rows):
        by_topic.setdefault(r["qid"], []).append(i)
    blocks = list(by_topic.values())
    blocks = [[i for b in blocks[s : s + pool] for i in b] for s in range(0, len(blocks), max(1, pool))]
    out = np.empty(len(rows))
    if m.device.startswith("cuda"):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
    start = time.perf_counter()
    for idx in blocks:  # in the reranker's entity-major order
        for s in range(0, len(idx), per_call):
            chunk = idx[s : s + per_call]
            out[chunk] = m.true_false_probability([(rows[i]["prefix"], rows[i]["suffix"]) for i in chunk],
                                                  version=header["version"], system=header["system"] or None)
    if m.device.startswith("cuda"):
        torch.cuda.synchronize()
    return out, time.perf_counter() - start, m.usage["prompt_tokens"], m.usage["computed_tokens"]


def _profile(model, header: dict, rows: list[dict], batch: int, per_call: int, pool: int) -> None:
    """Where the time of the first setting goes (torch.profiler, ten topics), printed to stderr."""
    from torch.profiler import ProfilerActivity, profile

    keep = sorted({r["qid"] for r in rows})[:10]
    sample = [r for r in rows if r["qid"] in set(keep)]
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if model.device.startswith("cuda") else [])
    with profile(activities=activities) as prof:
        score(model, header, sample, batch, per_call, pool)
    key = "self_cuda_time_total" if model.device.startswith("cuda") else "self_cpu_time_total"
    print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=25), file=sys.stderr)
    print(prof.key_averages().table(sort_by=key, row_limit=15), file=sys.stderr)


def agreement(a, b) -> dict:
    """How far two answer vectors are apart: mean and max |difference|, same side of 0.5, Pearson r."""
    import numpy as np

    a, b = np.asarray(a, float), np.asarray(b, float)
    r = float(np.corrcoef(a, b)[0, 1]) if len(a) > 1 and a.std() > 0 and b.std() > 0 else float("nan")
    return {"mean_abs": float(np.abs(a - b).mean()), "max_abs": float(np.abs(a - b).max()),
            "same_side": float(((a >= 0.5) == (b >= 0.5)).mean()), "pearson": r}


def run(args: argparse.Namespace) -> int:
    import torch
    import transformers

    from logical_pyserini._io import atomic_write_text

    header, rows = read_pairs(args.pairs)
    if args.every > 1:  # a sample spread over all templates (topics are numbered template by template)
        keep = sorted({r["qid"] for r in rows})[:: args.every]
        rows = [r for r in rows if r["qid"] in set(keep)]
    if args.limit:
        rows = rows[: args.limit]
    if not rows:
        raise SystemExit(f"{args.pairs}: no pairs to score")
    t0 = time.perf_counter()
    model = _load(args)
    load_s = time.perf_counter() - t0
    device = model.device
    name = (torch.cuda.get_device_name(0) if device.startswith("cuda")
            else f"{platform.processor() or platform.machine()} CPU")
    # Warm-up (kernel selection, allocator), not timed: the first topic at the first setting.
    first = [i for i, r in enumerate(rows) if r["qid"] == rows[0]["qid"]]
    score(model, header, [rows[i] for i in first], _ints(args.batch_size)[0], _ints(args.pairs_per_call)[0])

    recorded, source = [r.get("p") for r in rows], header.get("device", "?")
    if args.reference:  # answers of another run of this script (--values), e.g. the same model on a CPU
        ref = [json.loads(line) for line in Path(args.reference).read_text(encoding="utf-8").splitlines() if line]
        if [(r["qid"], r.get("docid")) for r in ref] != [(r["qid"], r.get("docid")) for r in rows]:
            raise SystemExit(f"{args.reference}: not the answers to these pairs (same --pairs/--every/--limit?)")
        recorded, source = [r["p"] for r in ref], args.reference
    table, results, reference = [], [], None
    settings = [(b, c, k) for k in _ints(args.pool_topics) for c in _ints(args.pairs_per_call)
                for b in _ints(args.batch_size)]
    for batch, per_call, pool in settings:
        values, seconds, prompt, computed = score(model, header, rows, batch, per_call, pool)
        memory, unit = _peak_memory(device)
        reference = values if reference is None else reference
        same = agreement(values, reference)
        results.append({"batch_size": batch, "pairs_per_call": per_call, "pool_topics": pool, "pairs": len(rows),
                        "seconds": seconds,
                        "pairs_per_s": len(rows) / seconds, "prompt_tokens": prompt, "computed_tokens": computed,
                        "peak_memory_gib": memory, "max_abs_vs_first_setting": same["max_abs"]})
        table.append(f"| {batch} | {per_call} | {pool} | {len(rows)} | {seconds:.1f} | **{len(rows) / seconds:.1f}** | "
                     f"{computed / seconds:,.0f} | {prompt:,} | {computed:,} | {memory:.1f} | {same['max_abs']:.4f} |")
        print(table[-1], file=sys.stderr)
    if args.profile:
        _profile(model, header, rows, *settings[0])
    if args.values:
        atomic_write_text(args.values, "".join(json.dumps({"qid": r["qid"], "docid": r.get("docid"), "p": float(v)})
                                               + "\n" for r, v in zip(rows, reference)))
    lines = [
        "# OrLog(LLM) oracle throughput", "",
        f"Command: `python eval/bench_oracle_throughput.py run {' '.join(args.argv)}`  ",
        f"Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; device: {name}; "
        f"{os.cpu_count()} CPUs; torch {torch.__version__}, transformers {transformers.__version__}; model "
        f"`{model.id}`{' (RANDOM WEIGHTS: speed only)' if args.random_weights else ''}, {args.dtype or 'bfloat16'}, "
        f"loaded in {load_s:.1f}s.  ",
        f"Pairs: {len(rows)} (document, predicate) prompts of {len({r['qid'] for r in rows})} topics, recorded "
        f"{header.get('date', '?')} by `{header.get('model', '?')}` on {header.get('device', '?')} (depth "
        f"{header.get('depth', '?')}); scored cold (no answer cache) in calls of at most 'pairs per call' pairs of "
        "'topics per call' topics (1: one query at a time, as the reranker calls the oracle per query; more: as "
        "`OrLogReranker.prefetch` pools a search batch), after one untimed warm-up topic.", "",
        "| batch size | pairs per call | topics per call | pairs | seconds | pairs/s | tokens run/s | prompt tokens | "
        f"tokens run | peak {unit} | max \\|ΔP\\| vs first row |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|", *table, "",
        "Prompt tokens: what unshared prompts would hold; tokens run: what the model computed (head and document "
        "prefix encoded once).",
    ]
    if args.random_weights:
        lines += ["", "Random weights: no agreement with the recorded answers is computed."]
    elif all(p is not None for p in recorded):
        a = agreement(reference, recorded)
        lines += ["", f"Agreement of the first row's answers with the reference ones ({source}): "
                      f"mean |ΔP| {a['mean_abs']:.4f}, max |ΔP| {a['max_abs']:.4f}, same side of 0.5 "
                      f"{a['same_side']:.1%}, Pearson r {a['pearson']:.4f}."]
    text = "\n".join(lines) + "\n"
    atomic_write_text(args.output, text)
    if args.json:
        summary = {"device": name, "model": model.id, "random_weights": args.random_weights, "results": results}
        atomic_write_text(args.json, json.dumps(summary, indent=1) + "\n")
    print(text)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="record the prompts OrLog(LLM) judges on the demo topics")
    ex.add_argument("--index", default=str(ROOT / "indexes" / "demo"))
    ex.add_argument("--topics-per-template", type=int, default=16)
    ex.add_argument("--skip-per-template", type=int, default=0)
    ex.add_argument("--depth", type=int, default=30)
    ex.add_argument("--cache", default=str(ROOT / "runs" / "demo.model-cache.sqlite"))
    ex.add_argument("--output", required=True)
    rn = sub.add_parser("run", help="score recorded prompts cold and report pairs/s")
    rn.add_argument("--pairs", required=True, help="file written by `export`")
    rn.add_argument("--batch-size", default="16", help="prompts per forward pass, comma-separated")
    rn.add_argument("--pairs-per-call", default="64", help="pairs per oracle call (the reranker's oracle_batch), "
                    "comma-separated")
    rn.add_argument("--pool-topics", default="1", help="topics whose pairs share a call, comma-separated (1: "
                    "one query at a time, as the reranker calls)")
    rn.add_argument("--profile", action="store_true", help="print a torch.profiler table of the first setting")
    rn.add_argument("--every", type=int, default=1, metavar="K", help="keep every K-th topic")
    rn.add_argument("--limit", type=int, default=0, help="score only the first N pairs")
    rn.add_argument("--device", default=None, help="torch device (default cuda if present, else cpu)")
    rn.add_argument("--random-weights", action="store_true", help="the model folder's architecture with random "
                    "weights (speed only)")
    rn.add_argument("--reference", default=None, help="compare with these answers (a --values file of the same "
                    "pairs) instead of the recorded ones")
    rn.add_argument("--values", default=None, help="write the answers of the first setting here (JSONL)")
    rn.add_argument("--json", default=None, help="write the table as JSON here")
    rn.add_argument("--output", required=True)
    for p in (ex, rn):
        p.add_argument("--model", default="embedded")
        p.add_argument("--dtype", default=None)
        p.add_argument("--threads", type=int, default=None)
    args = ap.parse_args(argv)
    args.argv = list(argv if argv is not None else sys.argv[1:])[1:]
    return export(args) if args.command == "export" else run(args)


if __name__ == "__main__":
    sys.exit(main())
