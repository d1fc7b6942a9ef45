"""The LLM pipeline on the ITLR synthetic benchmark: natural question -> LLM rewrite -> ITLR -> OrLog(LLM).

    python eval/bench_synthetic_llm.py [--per-template 2] [--model embedded] [--dtype bfloat16] [--cache FILE]

The synthetic benchmark (``eval/itlr_synthetic.py``, seed 001 section 3.1) has logical queries over topic names
and, per query, 2-6 documents judged 1 / 0 by construction (hard negatives differ from a positive in one topic;
10% of documents carry a denial that names an absent topic, a lexical trap for NOT).  It has no natural-language
questions, so each three-term query is *verbalised* deterministically (``verbalise``: "Documents about hurricanes
and about ice cream but not about chess"; an OR of clauses becomes "..., or documents ...") and the pipeline
starts from that text, as a user would.

Rows, all on the same queries and per-query pools (ranked against their own documents only, like
``itlr_eval.py table1``; ties broken by the same fixed random order):

* BM25 on the question (what a user types);
* the Boolean peer: a strict Lucene BooleanQuery of the **gold** logical query (Lucene semantics over the exact
  leaf scores, ``Bench.boolean``);
* ITLR on the gold logical query;
* ITLR on the LLM rewrite of the question (the base run of the reranker);
* + OrLog(LLM): every pool document judged on every predicate of the rewrite, ProbLog posterior, fused with the
  base score (``--fusion``; a comma list gives one row per weight, from the same model answers).

Measures: nDCG@10 and P@1 by number of negations in the gold query, and per template; paired sign tests.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import itlr_synthetic as synth  # noqa: E402
from _common import base_parser, command, header, log, md_table, write_lines  # noqa: E402
from itlr_eval import NEGATIONS, Bench, fmt, negations  # noqa: E402

from logical_pyserini.query import And, Node, Not, Or, Term, shape  # noqa: E402

SUBJECT = "This document"  # the untitled synthetic documents' subject in the oracle's claims


def _clause(node: Node, both: bool = False) -> str:
    """``about X`` / ``not about X`` / ``about X and about Y but not about Z`` for a term, NOT or AND node.

    Wanted topics come first and excluded ones after a "but" (AND is commutative, so the gold query is
    unchanged): "about X but not about Y and about Z" would be ambiguous.  ``both`` marks a conjunction that
    sits inside a disjunction ("documents about both X and Y, or ...").
    """
    if isinstance(node, Term):
        return f"about {node.text}"
    if isinstance(node, Not) and isinstance(node.child, Term):
        return f"not about {node.child.text}"
    if isinstance(node, And):
        pos = [c.text for c in node.children if isinstance(c, Term)]
        neg = [c.child.text for c in node.children if isinstance(c, Not)]
        if len(pos) + len(neg) != len(node.children):
            raise ValueError(f"cannot verbalise {node}")
        if not pos:
            return "not about " + _and(neg, "or")
        out = ("about both " if both and len(pos) == 2 else "about ") + _and(pos)
        return out + (" but not about " + _and(neg, "or") if neg else "")
    raise ValueError(f"cannot verbalise {node}")


def _and(items: list[str], last: str = "and") -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {last} {items[-1]}"


def verbalise(tree: Node) -> str:
    """A natural question for a three-term query tree (AND / OR of terms and negated terms).

    >>> from logical_pyserini.query import parse_query
    >>> verbalise(parse_query('NOT "a" AND "b" AND NOT "c"'))
    'Documents about b but not about a or c'
    >>> verbalise(parse_query('NOT "a" OR "b" AND "c"'))
    'Documents not about a, or documents about both b and c'
    >>> verbalise(parse_query('NOT "a" AND NOT "b" AND NOT "c"'))
    'Documents not about a, b or c'
    """
    if isinstance(tree, Or):
        return "Documents " + ", or documents ".join(_clause(c, both=True) for c in tree.children)
    return f"Documents {_clause(tree)}"


class _Hit:
    """The reranker's view of a pool document: docid and base score."""

    def __init__(self, docid: str, score: float):
        self.docid, self.score = docid, score


def main(argv=None) -> int:
    from logical_pyserini.models import DTYPES

    p = base_parser(__doc__)
    p.add_argument("--per-template", type=int, default=2, help="Test-split queries per three-term template.")
    p.add_argument("--skip", type=int, default=0, help="Skip the first N test-split queries of each template "
                   "(a held-out sample after choosing settings on the first ones).")
    p.add_argument("--model", default="embedded")
    p.add_argument("--dtype", default="bfloat16", choices=DTYPES)
    p.add_argument("--fusion", default=None, help="Posterior weight(s), comma-separated (default: the reranker's).")
    p.add_argument("--lift-ratio", default=None,
                   help="OrLog lift ratio(s), comma-separated (default: the reranker's); each with every --fusion.")
    p.add_argument("--cache", default=None, help="SQLite model-answer cache (rerun = no model calls).")
    p.add_argument("--threads", type=int, default=None)
    args = p.parse_args(argv)
    cmd = command(__file__, argv)

    from logical_pyserini.models import get_model
    from logical_pyserini.rerank import DEFAULT_FUSION, LLMOracle, OrLogQuery, OrLogReranker
    from logical_pyserini.rewrite import LLMRewriter

    data = Path(args.data) / ("itlr-quick" if args.quick else "itlr")
    synth.ensure(data, n_three=5 if args.quick else 100, n_scaling=5 if args.quick else 100, seed=13)
    bench = Bench(data, ["bm25"])
    per_template: dict[str, list[str]] = {}
    for qid in bench.qids("three", "test"):
        per_template.setdefault(bench.queries[qid].meta["template"], []).append(qid)
    qids = [q for t in synth.three_term_templates()
            for q in per_template.get(t, [])[args.skip: args.skip + args.per_template]]
    log(f"{len(qids)} queries ({args.per_template} per template after skipping {args.skip}, test split)")

    lm = get_model(args.model, cache=args.cache, threads=args.threads, dtype=args.dtype)
    rewriter = LLMRewriter(lm)
    weights = [DEFAULT_FUSION] if args.fusion is None else [float(f) for f in args.fusion.split(",")]
    ratios = [None] if args.lift_ratio is None else [float(r) for r in args.lift_ratio.split(",")]
    fusions = [(f, r) for f in weights for r in ratios]  # one row each, from the same model answers
    leaves = bench.leaves["bm25"]
    texts = _texts(data, {d for q in qids for d in bench.queries[q].docids})
    oracle = LLMOracle(lm)  # one oracle: every fusion weight reranks with the same answers
    rerankers = {(f, r): OrLogReranker(oracle, depth=10, fusion=f, **({} if r is None else {"lift_ratio": r}))
                 for f, r in fusions}
    doc_text = lambda hit: (SUBJECT, texts[hit.docid])  # noqa: E731 - the reranker's doc_text_fn
    rows: dict[object, dict[str, np.ndarray]] = {"question": {}, "rewrite": {}, **{f: {} for f in fusions}}
    rewrites, start, rewrite_s = {}, time.perf_counter(), 0.0
    for n, qid in enumerate(qids, 1):
        q = bench.queries[qid]
        question = verbalise(q.tree)
        t0 = time.perf_counter()
        rw = rewriter.rewrite(question)
        rewrite_s += time.perf_counter() - t0
        rewrites[qid] = (question, rw.tree)
        rows["question"][qid] = np.asarray(leaves.score(question, q.docids), dtype=np.float64)
        base = np.asarray(bench.score_tree(rw.tree, q), dtype=np.float64)
        rows["rewrite"][qid] = base
        order = np.lexsort((q.tie, -base))
        hits = [_Hit(q.docids[j], float(base[j])) for j in order]
        oq = OrLogQuery.coerce(rw.decomposition) if rw.decomposition else OrLogQuery.from_tree(rw.tree, question)
        for f, reranker in rerankers.items():
            reranked, stats = reranker.rerank(oq, hits, doc_text)
            if stats.fallback:
                log(f"{qid}: OrLog (fusion {f}) fell back to the base ranking: {stats.error}")
            score_of = {h.docid: h.score for h in reranked}
            rows[f][qid] = np.array([score_of[d] for d in q.docids])
        log(f"[{n}/{len(qids)}] {qid} {q.meta['template']}: {question!r} -> {rw.tree} "
            f"({time.perf_counter() - start:.0f}s)")

    systems = {
        "bm25 (question)": lambda q: rows["question"][q.qid],
        "Boolean peer (gold logic)": bench.boolean("bm25"),
        "ITLR (gold logic)": bench.logical("bm25"),
        "ITLR on the LLM rewrite (base)": lambda q: rows["rewrite"][q.qid],
        **{f"+ OrLog(LLM), fusion {f}" + ("" if r is None else f", lift ratio {r}"):
           (lambda q, k=(f, r): rows[k][q.qid]) for f, r in fusions},
    }
    res = bench.evaluate(systems, qids, negations)
    per_t = bench.evaluate(systems, qids, lambda q: q.meta["template"])
    s = rerankers[fusions[0]].summary()
    exact = sum(1 for q in qids if rewrites[q][1] == bench.queries[q].tree)
    same_shape = sum(1 for q in qids if shape(rewrites[q][1]) == shape(bench.queries[q].tree))
    lines = header("The LLM pipeline on the ITLR synthetic benchmark (natural question -> rewrite -> ITLR -> OrLog)",
                   cmd, __doc__.split("\n\n")[2].replace("\n", " "),
                   f"Model `{lm.id}` on {lm.device}; {len(qids)} test-split queries ({args.per_template} per "
                   f"template of 32 after skipping {args.skip}); rewrites {rewrite_s:.0f}s (exact gold query "
                   f"{exact}/{len(qids)}, gold shape {same_shape}/{len(qids)}); OrLog: {int(s['pairs'])} pairs "
                   f"({int(s['cache_hits'])} cached), {s['oracle_seconds']:.0f}s (first fusion weight; the others "
                   "reuse its answers), all pool documents reranked.")
    for measure in ("nDCG@10", "P@1"):
        lines += [f"## {measure} by number of negations (gold query)", "",
                  *md_table(["system", *NEGATIONS, "all"],
                            [[name, *(fmt(res[(name, g)][measure]) if (name, g) in res else "" for g in NEGATIONS),
                              fmt(res[(name, "all")][measure])] for name in systems]), ""]
    names = list(systems)
    lines += ["## nDCG@10 per template", "",
              *md_table(["template", *names], [[f"`{t}`", *(fmt(per_t[(n, t)]["nDCG@10"]) for n in names)]
                                               for t in synth.three_term_templates() if (names[0], t) in per_t]), ""]
    lines += ["## Rewrites", "", *md_table(["qid", "question", "LLM rewrite", "gold"],
                                          [[q, rewrites[q][0], f"`{rewrites[q][1]}`", f"`{bench.queries[q].tree}`"]
                                           for q in qids], "llll"), ""]
    out = write_lines(Path(args.results) / "synthetic_llm.md", lines)
    print("\n".join(lines[:40]))
    log(f"wrote {out}")
    bench.close()
    return 0


def _texts(data: Path, docids: set[str]) -> dict[str, str]:
    """The contents of the given documents (corpus.jsonl holds the text; docs.jsonl the labels)."""
    import json

    out = {}
    with (data / "corpus.jsonl").open(encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            if d["id"] in docids:
                out[d["id"]] = d["contents"]
    return out


if __name__ == "__main__":
    sys.exit(main())
