"""Dense and hybrid logical search vs plain dense search on the bundled demo data.

    python eval/bench_dense.py [--quick] [--repeats 5] [--encoder NAME]

Effectiveness (nDCG@10, P@1 by number of negations, ``evaluate_runs``):

* ``dense-plain``: the natural-language topic into Pyserini's ``FaissSearcher``
  (the baseline of seed 001);
* ``dense-logical`` / ``hybrid-logical``: the logical topic into
  ``LogicalFaissSearcher`` / ``LogicalHybridSearcher`` (fused leaves);
* ``*-calibrated``: the same with ``σ((s-τ)λ)`` leaf calibration, fitted by
  2-fold cross-fitting over topics (odd / even topics calibrate each other,
  so no topic is scored with parameters fitted on its own qrels);
* references: ``bm25-plain``, ``bm25-logical``, ``bm25-boolean`` (the Boolean
  peer: the strict Lucene ``BooleanQuery`` of the logical topic; a Boolean query
  needs leaves that can fail to match, so there is no dense one) and
  ``hybrid-plain`` (Pyserini's ``HybridSearcher`` fusion on the natural topic).

Latency: per topic, plain ``FaissSearcher.search`` (natural topic) and the
logical searches (logical topic) run interleaved, ``--repeats`` times, with
the leaf-vector cache cleared before every logical call (so leaf encoding is
counted); medians per query and their ratio.  Indexes are built once into
``eval/data/bench_dense/`` (encoding the corpus takes minutes on 2 busy CPU
cores) and reused.  ``--quick``: every 4th topic, one repeat, 20 timed topics.
Results go to ``eval/results/dense.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MEASURES = "nDCG@10 P@1"


def ensure_indexes(data: Path, corpus: Path, encoder) -> tuple[Path, Path, dict]:
    """Lucene and Faiss indexes of the demo corpus (rebuilt when its content changed)."""
    import hashlib

    from logical_pyserini.index import build_faiss_index, build_lucene_index

    stamp = f"{hashlib.sha256(corpus.read_bytes()).hexdigest()}:{getattr(encoder, 'name', encoder)}"
    lucene, faiss_dir, timing = data / "lucene", data / "faiss", {}
    for path, build in ((lucene, lambda: build_lucene_index(corpus, lucene, overwrite=True, progress=False)),
                        (faiss_dir, lambda: build_faiss_index(corpus, faiss_dir, encoder, overwrite=True))):
        marker = path / "built-from"
        if not marker.is_file() or marker.read_text().split("\n")[0] != stamp:
            start = time.perf_counter()
            build()
            marker.write_text(f"{stamp}\n{time.perf_counter() - start:.1f}\n")
        timing[path.name] = float(marker.read_text().split("\n")[1])
    return lucene, faiss_dir, timing


def read_tsv(path: Path) -> dict[str, str]:
    from logical_pyserini._topics import read_topics

    return read_topics(path)


def run_all(searchers: dict, logical: dict, natural: dict, qids: list[str], hits: int, out: Path,
            calibrations: dict) -> dict[str, Path]:
    """Write one TREC run per system; returns name -> path."""
    from logical_pyserini.compose import Normalizer
    from logical_pyserini.search import open_run_writer

    dense, hybrid = searchers["dense"], searchers["hybrid"]
    systems = {
        "dense-plain": lambda q: dense.plain_search(natural[q], hits),
        "dense-logical": lambda q: dense.search(logical[q], hits),
        "hybrid-plain": lambda q: hybrid.plain_search(natural[q], hits),
        "hybrid-logical": lambda q: hybrid.search(logical[q], hits),
        "bm25-plain": lambda q: hybrid.sparse.plain_search(natural[q], hits),
        "bm25-logical": lambda q: hybrid.sparse.search(logical[q], hits),
        "bm25-boolean": lambda q: hybrid.sparse.boolean_search(logical[q], hits),
    }
    runs = {}
    for name, fn in systems.items():
        runs[name] = out / f"{name}.txt"
        with open_run_writer(str(runs[name]), "trec", hits, name) as writer:
            for qid in qids:
                writer.write(qid, fn(qid))
    # Calibrated: each fold's topics searched with the other fold's parameters.
    for name, searcher in (("dense-logical-calibrated", dense), ("hybrid-logical-calibrated", hybrid)):
        runs[name] = out / f"{name}.txt"
        saved = searcher.normalizer
        with open_run_writer(str(runs[name]), "trec", hits, name) as writer:
            for fold_qids, params in calibrations["folds"]:
                searcher.normalizer = Normalizer("sigmoid", params)
                try:
                    for qid in fold_qids:
                        writer.write(qid, searcher.search(logical[qid], hits))
                finally:
                    searcher.normalizer = saved
    return runs


def cross_fit(hybrid, logical: dict, qrels_path: Path, qids: list[str]) -> dict:
    """2-fold calibration: parameters fitted on odd topics score even topics and vice versa
    (the calibrate CLI's defaults: 3 sampled negatives per positive, even-odds prior)."""
    import ir_measures

    from logical_pyserini.calibrate import LeafScores, collect_pairs, fit_sigmoid
    from logical_pyserini.query import parse_query

    qrels: dict[str, dict[str, int]] = {}
    for q in ir_measures.read_trec_qrels(str(qrels_path)):
        qrels.setdefault(q.query_id, {})[q.doc_id] = int(q.relevance)
    retrievers = [LeafScores("bm25", hybrid.sparse.leaves), LeafScores("dense", hybrid.dense.leaves)]
    halves = [qids[0::2], qids[1::2]]
    folds, fitted = [], []
    for test, train in ((halves[0], halves[1]), (halves[1], halves[0])):
        pairs = collect_pairs({q: parse_query(logical[q]) for q in train}, qrels, retrievers)
        params = {r.name: fit_sigmoid(pairs.scores[r.name], pairs.labels, balanced=True) for r in retrievers}
        folds.append((test, params))
        fitted.append({"pairs": len(pairs.pairs), "positive": int(pairs.labels.sum()),
                       **{name: (p.tau, p.lam) for name, p in params.items()}})
    return {"folds": folds, "fitted": fitted}


def time_queries(searchers: dict, logical: dict, natural: dict, qids: list[str], hits: int, repeats: int) -> dict:
    """Median ms per query: plain FaissSearcher vs logical dense / hybrid, interleaved, cold leaf cache."""
    dense, hybrid = searchers["dense"], searchers["hybrid"]
    calls = {
        "plain dense (FaissSearcher)": lambda q: dense.plain_search(natural[q], hits),
        "logical dense": lambda q: (dense.leaves.clear_cache(), dense.search(logical[q], hits)),
        "logical hybrid": lambda q: (hybrid.dense.leaves.clear_cache(), hybrid.search(logical[q], hits)),
    }
    for q in qids[:5]:  # warm-up
        for fn in calls.values():
            fn(q)
    per_query = {name: {q: [] for q in qids} for name in calls}
    for _ in range(repeats):
        for q in qids:
            for name, fn in calls.items():
                t = time.perf_counter()
                fn(q)
                per_query[name][q].append(time.perf_counter() - t)
    medians = {name: [statistics.median(v) for v in per_query[name].values()] for name in calls}
    base = medians["plain dense (FaissSearcher)"]
    return {
        name: {"ms": statistics.median(m) * 1e3, "ratio": statistics.median(m) / statistics.median(base),
               "median_ratio": statistics.median(a / b for a, b in zip(m, base))}
        for name, m in medians.items()
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="Every 4th topic, 1 repeat, 20 timed topics.")
    p.add_argument("--repeats", type=int, default=5, help="Latency repeats per topic.")
    p.add_argument("--timed", type=int, default=None, help="Topics timed (default: all; 20 with --quick).")
    p.add_argument("--encoder", default=None, help="Dense encoder (default: packaged all-MiniLM-L6-v2).")
    p.add_argument("--data", default=str(ROOT / "eval" / "data" / "bench_dense"), help="Index cache.")
    p.add_argument("--output", default=None, help="Default eval/results/dense.md (eval/results-quick/ with --quick).")
    args = p.parse_args(argv)
    if args.output is None:  # --quick never overwrites the committed full results
        args.output = str(ROOT / "eval" / ("results-quick" if args.quick else "results") / "dense.md")
    if args.quick:
        args.repeats, args.timed = 1, args.timed or 20

    from logical_pyserini.data import DEMO_DIR
    from logical_pyserini.encode import SentenceQueryEncoder
    from logical_pyserini.eval import evaluate_runs, format_table, read_groups
    from logical_pyserini.search import LogicalFaissSearcher, LogicalHybridSearcher

    wall = time.perf_counter()
    query_encoder = SentenceQueryEncoder(args.encoder)
    encoder_load = time.perf_counter() - wall
    lucene, faiss_dir, build_s = ensure_indexes(Path(args.data), DEMO_DIR / "corpus.jsonl", query_encoder.encoder)
    t = time.perf_counter()
    dense = LogicalFaissSearcher(str(faiss_dir), query_encoder)
    dense_load = time.perf_counter() - t
    t = time.perf_counter()
    hybrid = LogicalHybridSearcher(str(lucene), str(faiss_dir), query_encoder)
    hybrid_load = time.perf_counter() - t
    searchers = {"dense": dense, "hybrid": hybrid}

    logical, natural = read_tsv(DEMO_DIR / "topics.logical.tsv"), read_tsv(DEMO_DIR / "topics.natural.tsv")
    qids = list(logical)[:: 4 if args.quick else 1]
    calibrations = cross_fit(hybrid, logical, DEMO_DIR / "qrels.txt", qids)
    with tempfile.TemporaryDirectory() as tmp:
        runs = run_all(searchers, logical, natural, qids, 1000, Path(tmp), calibrations)
        groups = read_groups(f"{DEMO_DIR / 'metadata.jsonl'}:negations")[1]
        groups = {q: g for q, g in groups.items() if q in set(qids)}
        judged = Path(tmp) / "qrels.txt"  # --quick: evaluate the topics that were searched only
        judged.write_text("".join(line for line in (DEMO_DIR / "qrels.txt").open() if line.split()[0] in set(qids)))
        rows = evaluate_runs(judged, runs, MEASURES, groups)
    timed = qids[: args.timed] if args.timed else qids
    latency = {hits: time_queries(searchers, logical, natural, timed, hits, args.repeats) for hits in (1000, 10)}

    cmd = " ".join(argv if argv is not None else sys.argv[1:])
    lines = [
        "# Dense and hybrid logical search vs plain dense search (demo data)",
        "",
        f"Command: `python eval/bench_dense.py {cmd}`".rstrip() + "  ",
        f"Date: {dt.date.today().isoformat()}; machine: {platform.machine()}, {os.cpu_count()} cores (shared), "
        f"Python {platform.python_version()}; encoder {query_encoder.name} ({query_encoder.dimension}-d); "
        f"{hybrid.sparse.num_docs} documents, {len(qids)} topics; leaf depth {dense.leaf_hits}; "
        f"operators product / sum / complement; normalisation max.  ",
        f"Index build (cached): Lucene {build_s['lucene']:.1f}s, Faiss {build_s['faiss']:.1f}s.  "
        f"Load: encoder {encoder_load:.2f}s; LogicalFaissSearcher {dense_load:.2f}s; "
        f"LogicalHybridSearcher {hybrid_load:.2f}s (both indexes; shared encoder), of which mapping Faiss rows "
        f"onto Lucene ids {hybrid.mapping_seconds * 1e3:.1f} ms.",
        "",
        "## Effectiveness by number of negations",
        "",
        format_table(rows, "negations"),
        "",
        "Calibration (2-fold over topics; τ, λ per fold):",
        "",
    ]
    for i, fit in enumerate(calibrations["fitted"], 1):
        lines.append(f"- fold {i}: {fit['pairs']} pairs ({fit['positive']} relevant); "
                     f"bm25 τ={fit['bm25'][0]:.3f} λ={fit['bm25'][1]:.3f}; "
                     f"dense τ={fit['dense'][0]:.3f} λ={fit['dense'][1]:.3f}")
    lines += [
        "",
        f"## Latency vs plain FaissSearcher ({len(timed)} topics, {args.repeats} repeats, interleaved, "
        "leaf-vector cache cleared before each logical call)",
        "",
        "| hits | system | median ms / query | ratio of medians | median per-query ratio |",
        "|---:|---|---:|---:|---:|",
    ]
    for hits, result in latency.items():
        for name, r in result.items():
            lines.append(f"| {hits} | {name} | {r['ms']:.2f} | {r['ratio']:.2f} | {r['median_ratio']:.2f} |")
    lines += ["", f"Total benchmark time {time.perf_counter() - wall:.0f}s.", ""]
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    print(json.dumps({"written": str(out)}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
