"""Seed 001's synthetic-data tables on the generated ITLR benchmark: base retrieval vs logical composition.

    python eval/itlr_eval.py table1       [--quick] [--retrievers bm25,dense]   # Table 1 (+ per template)
    python eval/itlr_eval.py table2       [--quick] [--retrievers bm25,dense]   # Table 2: operators x normalisation
    python eval/itlr_eval.py figure3      [--quick] [--retrievers bm25,dense]   # Figure 3: term scaling (PNG)
    python eval/itlr_eval.py calibration  [--quick] [--retrievers bm25,dense]   # Table 7: calibrated ITLR
    python eval/itlr_eval.py fullcorpus   [--quick] [--retrievers bm25,dense]   # same queries, whole corpus
    python eval/itlr_eval.py all          [--quick] ...                         # all of the above, one process

The benchmark comes from ``eval/itlr_synthetic.py`` (generated on first use
into ``--data``/itlr, or itlr-quick with ``--quick``: 5 queries per template).

Evaluation setting (seed 001, section 3.1): every query is ranked against
**its own document set only** (2-6 documents; random scores give about 0.7
nDCG@10, reported as the ``random`` row).  All documents are indexed once
(Lucene BM25; Faiss with the packaged all-MiniLM-L6-v2 for ``dense``) and a
query's pool is scored with the package's own parts: exact leaf scores from
``searcher.leaves.score`` (``LuceneLeafScorer`` / ``FaissLeafScorer``), the
package's leaf normalisation (``LeafNormalizer``: ``max`` divides by the
leaf's best score in the whole index, ``minmax`` uses the lowest score of the
pool, dense ``max`` clips negative cosines) and composition
(``logical_pyserini.compose.compose``).  *Base* scores the query's terms
without quotes and operators as one plain query (BM25 bag of words, or the
cosine with the encoded text).  Ties are broken by one fixed random order
per query, the same for every system, and runs are written with strictly
decreasing scores, so trec_eval's docid tie-breaking cannot leak labels.

``fullcorpus`` instead searches the whole corpus with ``LogicalLuceneSearcher`` /
``LogicalFaissSearcher`` (``search`` vs ``plain_search``, top 10).  Relevance
is known by construction for every document (the topics it covers), so the
qrels judge each query's own documents, every retrieved document and enough
further relevant documents (10) to make the ideal DCG@10 exact.  Queries with
no positive term (all three terms negated) cannot select candidates and are
skipped there.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import itlr_synthetic as synth  # noqa: E402
from _common import base_parser, command, header, log, md_table, pyplot, write_lines  # noqa: E402

from logical_pyserini.calibrate import LeafScores  # noqa: E402
from logical_pyserini.compose import Normalizer, Operators, compose  # noqa: E402
from logical_pyserini.query import Node, Term, distinct_terms, parse_query, positive_terms  # noqa: E402

MEASURES = "nDCG@10 P@1"
NEGATIONS = ["0", "1", "2", "3"]
RETRIEVER_LABEL = {"bm25": "BM25", "dense": "dense (all-MiniLM-L6-v2)"}
# Seed 001, Tables 1 and 7 (dense embeddings, LLM-written data): reference only.
SEED_TABLE1 = {"Base": [0.95, 0.77, 0.65, 0.52], "ITLR": [0.99, 0.97, 0.96, 1.00],
               "Calibrated ITLR": [1.00, 0.98, 0.97, 1.00]}
# Seed 001, Table 2 (NV-Embed-V1): (AND, OR) -> (NOT 1-x, NOT 1/x).
SEED_TABLE2 = {("min", "max"): (0.86, 0.86), ("min", "sum"): (0.92, 0.87), ("product", "max"): (0.90, 0.89),
               ("product", "sum"): (0.97, 0.90), ("sum", "max"): (0.91, 0.81), ("sum", "sum"): (0.97, 0.82)}
DEFAULT_OPS = Operators()


# --------------------------------------------------------------------------- data


@dataclass
class Query:
    """One benchmark query with its document pool (labels 1 / 0)."""

    qid: str
    meta: dict
    tree: Node
    docids: list[str]
    labels: np.ndarray
    tie: np.ndarray  # fixed random tie-break order of the pool

    @property
    def keys(self) -> list[tuple]:
        return [t.key for t in distinct_terms(self.tree)]

    @property
    def topic_of(self) -> dict[tuple, int]:
        """Term key -> the topic id it names."""
        return {Term(n).key: t for n, t in zip(self.meta["terms"], self.meta["topics"])}


@dataclass
class Pool:
    """Raw scores of one query's pool under one retriever."""

    raw: dict[tuple, np.ndarray]
    leaf_max: dict[tuple, float]
    base: np.ndarray


class PoolLeaves(LeafScores):
    """The package's ``LeafScores`` (exact leaf scores of any documents, by docid) for one searcher.

    Every docid -> key mapping is read in one pass, and :meth:`best` caches
    each leaf's best score in the whole index (what ``max`` normalisation
    divides by).
    """

    def __init__(self, name: str, searcher):
        super().__init__(name, searcher.leaves)
        docids = self.scorer.docids(np.arange(self.scorer.num_docs, dtype=np.int64))
        self._keys.update(zip(docids, range(len(docids))))  # instead of one index lookup per docid
        self._best: dict[str, float] = {}

    def best(self, text: str) -> float:
        if text not in self._best:
            self._best[text] = self.scorer.search(text, 1).max
        return self._best[text]


class Bench:
    """The generated benchmark, its indexes and the raw pool scores of every query.

    Parameters
    ----------
    data : Path
        Directory written by :func:`itlr_synthetic.generate`.
    retrievers : list of str
        ``bm25`` and/or ``dense``.
    """

    def __init__(self, data: Path, retrievers: list[str]):
        self.data = data
        self.retrievers = retrievers
        self.docs = {d["id"]: d for d in _read_jsonl(data / "docs.jsonl")}
        self.docids = list(self.docs)
        self.row = {d: i for i, d in enumerate(self.docids)}
        n_topics = 1 + max(t for d in self.docs.values() for t in d["topics"])
        self.covers = np.zeros((len(self.docids), n_topics), dtype=bool)  # document x topic it is about
        for i, d in enumerate(self.docs.values()):
            self.covers[i, d["topics"]] = True
        by_q: dict[str, list] = {}
        for d in self.docs.values():
            by_q.setdefault(d["qid"], []).append(d)
        self.queries: dict[str, Query] = {}
        for meta in _read_jsonl(data / "queries.jsonl"):
            pool = sorted(by_q[meta["qid"]], key=lambda d: d["id"])
            rng = np.random.default_rng(int(meta["qid"][1:]) + 7919)
            self.queries[meta["qid"]] = Query(meta["qid"], meta, parse_query(meta["query"]),
                                              [d["id"] for d in pool], np.array([d["label"] for d in pool]),
                                              rng.permutation(len(pool)))
        self.searchers: dict[str, object] = {}
        self.leaves: dict[str, PoolLeaves] = {}
        self.pools: dict[str, dict[str, Pool]] = {}
        for name in retrievers:
            self.searchers[name] = self._open(name)
            self.leaves[name] = PoolLeaves(name, self.searchers[name])
            self.pools[name] = self._score_pools(self.leaves[name])

    def _open(self, name: str):
        """Build the index on first use (tagged with the data's manifest) and open a searcher."""
        stamp = (self.data / "manifest.json").read_text(encoding="utf-8")
        index = self.data / f"index-{name}"
        if not (index / "manifest.json").is_file() or (index / "manifest.json").read_text() != stamp:
            log(f"indexing {self.data / 'corpus.jsonl'} ({name})")
            if name == "bm25":
                from logical_pyserini.index import build_lucene_index

                build_lucene_index(self.data / "corpus.jsonl", index, overwrite=True, progress=False)
            else:
                from logical_pyserini.index import build_faiss_index

                build_faiss_index(self.data / "corpus.jsonl", index, overwrite=True, progress=False)
            (index / "manifest.json").write_text(stamp)
        if name == "bm25":
            from logical_pyserini.search import LogicalLuceneSearcher

            return LogicalLuceneSearcher(str(index))
        from logical_pyserini.search import LogicalFaissSearcher

        return LogicalFaissSearcher(str(index))

    def _score_pools(self, leaves: PoolLeaves) -> dict[str, Pool]:
        log(f"scoring {len(self.queries)} query pools ({leaves.name})")
        if leaves.name == "dense":  # every leaf and base text in one encoder batch
            leaves.scorer.encode(sorted({t.text for q in self.queries.values() for t in distinct_terms(q.tree)}
                                        | {q.meta["base"] for q in self.queries.values()}))
        pools = {}
        for q in self.queries.values():
            terms = distinct_terms(q.tree)
            pools[q.qid] = Pool({t.key: leaves.score(t.text, q.docids) for t in terms},
                                {t.key: leaves.best(t.text) for t in terms},
                                leaves.score(q.meta["base"], q.docids))
        return pools

    def relevant(self, q: Query, docids: list[str] | None = None) -> np.ndarray:
        """Ground truth of ``q`` for ``docids`` (default: every document), from the topics they cover."""
        rows = slice(None) if docids is None else [self.row[d] for d in docids]
        truth = {k: self.covers[rows, t] for k, t in q.topic_of.items()}
        return np.asarray(synth.holds(q.tree, truth), dtype=bool)

    # -- systems -----------------------------------------------------------
    def qids(self, family: str = "three", split: str | None = None) -> list[str]:
        return [q for q, v in self.queries.items()
                if v.meta["family"] == family and (split is None or v.meta["split"] == split)]

    def base(self, retriever: str) -> Callable[[Query], np.ndarray]:
        return lambda q: self.pools[retriever][q.qid].base

    def logical(self, retriever: str, operators: Operators = DEFAULT_OPS,
                normalizer: Normalizer = Normalizer("max")) -> Callable[[Query], np.ndarray]:
        """Scores of the package's composition over a query's pool."""
        from logical_pyserini.search import LeafNormalizer

        norm = LeafNormalizer(normalizer)

        def scores(q: Query) -> np.ndarray:
            pool = self.pools[retriever][q.qid]
            return _composed(q.tree, pool.raw, pool.leaf_max, norm, retriever, operators)

        return scores

    def score_tree(self, tree: Node, q: Query, retriever: str = "bm25", operators: Operators = DEFAULT_OPS,
                   normalizer: Normalizer = Normalizer("max")) -> np.ndarray:
        """ITLR scores of any tree (e.g. a rewrite of ``q``'s question) over ``q``'s pool, exactly as
        :meth:`logical` scores the gold tree."""
        from logical_pyserini.search import LeafNormalizer

        leaves = self.leaves[retriever]
        terms = distinct_terms(tree)
        raw = {t.key: np.asarray(leaves.score(t.text, q.docids), dtype=np.float64) for t in terms}
        leaf_max = {t.key: leaves.best(t.text) for t in terms}
        return _composed(tree, raw, leaf_max, LeafNormalizer(normalizer), retriever, operators)

    def boolean(self, retriever: str = "bm25") -> Callable[[Query], np.ndarray]:
        """The Boolean peer on a query's pool: Lucene ``BooleanQuery`` semantics over the exact leaf scores.

        A BM25 bag-of-words leaf matches a document iff its exact score is > 0;
        AND = MUST (all match, scores summed), OR = SHOULD with one required
        (matching children summed), NOT = MUST_NOT (excludes, adds nothing);
        documents that fail the logic are not returned, so they rank last (in the
        fixed tie order).  This is the score ``LogicalLuceneSearcher.boolean_search``
        gets from Lucene (tested there), computed from the same exact leaf scores.
        Only meaningful for BM25 leaves (a cosine is never 0).
        """
        from logical_pyserini.query import And, Not, Or

        def walk(node, raw) -> tuple[np.ndarray, np.ndarray]:
            if isinstance(node, Term):
                return raw[node.key] > 0, raw[node.key].astype(np.float64)
            if isinstance(node, Not):
                matched, _ = walk(node.child, raw)
                return ~matched, np.zeros(len(matched))
            parts = [walk(c, raw) for c in node.children]
            matched = np.logical_and.reduce([m for m, _ in parts]) if isinstance(node, And) else \
                np.logical_or.reduce([m for m, _ in parts])
            return matched, sum(np.where(m, v, 0.0) for m, v in parts)

        def scores(q: Query) -> np.ndarray:
            matched, value = walk(q.tree, self.pools[retriever][q.qid].raw)
            return np.where(matched, value, -1e9)

        return scores

    def orlog_leaf(self, retriever: str, normalizer: Normalizer = Normalizer("max")) -> Callable[[Query], np.ndarray]:
        """OrLog with the leaf-score oracle on a query's pool: the ProbLog posterior of the formula with each
        atom's plausibility = the leaf's normalised exact score (what ``--rerank orlog --oracle leaf`` computes);
        ties keep the ITLR order."""
        from logical_pyserini.rerank import CompiledFormula, OrLogQuery
        from logical_pyserini.search import LeafNormalizer

        norm = LeafNormalizer(normalizer)
        itlr = self.logical(retriever, normalizer=normalizer)

        def scores(q: Query) -> np.ndarray:
            pool = self.pools[retriever][q.qid]
            query = OrLogQuery.from_tree(q.tree)
            matrix = np.column_stack([np.clip(norm(pool.raw[t.key], pool.leaf_max[t.key], float(pool.raw[t.key].min()),
                                                   retriever), 0.0, 1.0) for t in distinct_terms(q.tree)])
            posterior = np.asarray(CompiledFormula(query.formula).posteriors(matrix), dtype=np.float64)
            base = np.asarray(itlr(q), dtype=np.float64)
            ranks = np.argsort(np.argsort(-base, kind="stable"), kind="stable")  # ITLR rank as the tie-break
            return posterior - 1e-12 * ranks

        return scores

    @staticmethod
    def random() -> Callable[[Query], np.ndarray]:
        return lambda q: np.random.default_rng(int(q.qid[1:])).random(len(q.docids))

    # -- evaluation --------------------------------------------------------
    def evaluate(self, systems: dict[str, Callable[[Query], np.ndarray]], qids: list[str],
                 group: Callable[[Query], str] | None = None) -> dict[tuple[str, str], dict[str, float]]:
        """(system, group) -> measure -> mean, via ``logical_pyserini.eval.evaluate_runs`` on TREC files."""
        from logical_pyserini.eval import evaluate_runs

        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            qrels = tmp / "qrels.txt"
            with qrels.open("w") as f:
                for qid in qids:
                    q = self.queries[qid]
                    f.writelines(f"{qid} 0 {d} {int(y)}\n" for d, y in zip(q.docids, q.labels))
            runs = {}
            for i, (name, fn) in enumerate(systems.items()):
                runs[name] = tmp / f"run{i}.txt"
                with runs[name].open("w") as f:
                    for qid in qids:
                        q = self.queries[qid]
                        order = np.lexsort((q.tie, -np.asarray(fn(q), dtype=np.float64)))
                        f.writelines(f"{qid} Q0 {q.docids[j]} {r + 1} {len(order) - r} {i}\n"
                                     for r, j in enumerate(order))
            groups = {qid: group(self.queries[qid]) for qid in qids} if group else None
            rows = evaluate_runs(qrels, runs, MEASURES, groups)
        return {(r.run, r.group): r.values for r in rows}

    def close(self) -> None:
        for s in self.searchers.values():
            if hasattr(s, "close"):
                s.close()


def _composed(tree: Node, raw: dict, leaf_max: dict, norm, retriever: str, operators: Operators) -> np.ndarray:
    """Normalise each leaf's raw pool scores (``norm``: a LeafNormalizer) and compose them."""
    values = {k: norm(r, leaf_max[k], float(r.min()), retriever) for k, r in raw.items()}
    return compose(tree, values, operators)


def _read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def negations(q: Query) -> str:
    return str(q.meta["negations"])


def fmt(x: float) -> str:
    return f"{x:.3f}"


def by_negation_rows(results: dict, systems: list[tuple[str, str, str]], measure: str) -> list[list[str]]:
    """Rows ``leaves | system | 0 | 1 | 2 | 3 | all`` for (run name, leaves label, system label)."""
    return [[leaves, label, *(fmt(results[(run, g)][measure]) for g in NEGATIONS), fmt(results[(run, "all")][measure])]
            for run, leaves, label in systems]


def standard_systems(bench: Bench) -> tuple[dict, list[tuple[str, str, str]]]:
    """Random, then base and ITLR (default operators, max normalisation) per retriever."""
    systems = {"random": bench.random()}
    labels = [("random", "-", "random scores")]
    for r in bench.retrievers:
        systems[f"{r}-base"] = bench.base(r)
        labels += [(f"{r}-base", RETRIEVER_LABEL[r], "base")]
        if r == "bm25":  # a strict BooleanQuery needs leaves that can fail to match
            systems[f"{r}-boolean"] = bench.boolean(r)
            labels += [(f"{r}-boolean", RETRIEVER_LABEL[r], "Boolean peer (strict BooleanQuery)")]
        systems[f"{r}-itlr"] = bench.logical(r)
        labels += [(f"{r}-itlr", RETRIEVER_LABEL[r], "ITLR")]
    return systems, labels


SETTING_NOTE = ("Setting: every query ranked against its own documents only (per-query pools, seed 001 section 3.1); "
                "ITLR = AND product, OR sum, NOT 1-x, leaf scores divided by the leaf's best score in the index "
                "(package defaults).  Base = the terms without quotes/operators as one plain query.")


# --------------------------------------------------------------------------- tables


def table1(bench: Bench, results_dir: Path, cmd: str) -> Path:
    """Seed 001 Table 1: nDCG@10 by number of negations; plus P@1 and a per-template breakdown."""
    qids = bench.qids("three")
    systems, labels = standard_systems(bench)
    for r in bench.retrievers:  # the model-free default OrLog oracle must not do worse than ITLR
        systems[f"{r}-orlog-leaf"] = bench.orlog_leaf(r)
        labels.append((f"{r}-orlog-leaf", RETRIEVER_LABEL[r], "ITLR + OrLog (leaf oracle)"))
    res = bench.evaluate(systems, qids, negations)
    lines = header("ITLR synthetic benchmark: seed 001 Table 1 (base vs logical by number of negations)", cmd,
                   SETTING_NOTE, f"{len(qids)} three-term queries (32 templates).")
    cols = ["leaves", "system", *NEGATIONS, "all"]
    for measure in MEASURES.split():
        lines += [f"## {measure} by number of negations", "", *md_table(cols, by_negation_rows(res, labels, measure)),
                  ""]
    lines += ["Seed 001 Table 1 for reference (nDCG@10; LLM-written documents, API embedding models):", "",
              *md_table(["system", *NEGATIONS], [[k, *(f"{x:.2f}" for x in v)] for k, v in SEED_TABLE1.items()
                                                 if k != "Calibrated ITLR"]),
              ""]
    out = write_lines(results_dir / "itlr_table1.md", lines)

    per_t = bench.evaluate({k: v for k, v in systems.items() if k != "random"}, qids, lambda q: q.meta["template"])
    names = [n for n in systems if n != "random"]
    rows = [[f"`{t}`", *(fmt(per_t[(n, t)]["nDCG@10"]) for n in names)] for t in synth.three_term_templates()]
    write_lines(results_dir / "itlr_templates.md",
                header("ITLR synthetic benchmark: nDCG@10 per template", cmd, SETTING_NOTE)
                + md_table(["template", *names], rows))
    return out


NORMALISATIONS = {"bm25": ["max", "minmax"], "dense": ["none", "max", "minmax"]}


def table2(bench: Bench, results_dir: Path, cmd: str) -> Path:
    """Seed 001 Table 2: every AND x OR x NOT combination (with noisy-or) and normalisation."""
    from logical_pyserini.compose import AND_OPERATORS, NOT_OPERATORS, OR_OPERATORS

    qids = bench.qids("three")
    lines = header("ITLR synthetic benchmark: seed 001 Table 2 (operator combinations)", cmd,
                   "nDCG@10 on the three-term queries, per-query pools.  NOT 1/x is floored at x = 1e-3 "
                   "(logical_pyserini.compose.INVERSE_EPSILON).  Normalisation: max = divide by the leaf's best "
                   "score in the index, minmax = between the pool's lowest score and that best, none = raw scores "
                   "(cosines; the seed's setting for dense).  Bold: best cell per retriever.")
    for r in bench.retrievers:
        systems, cells = {}, {}
        for a in AND_OPERATORS:
            for o in OR_OPERATORS:
                for norm in NORMALISATIONS[r]:
                    for n in NOT_OPERATORS:
                        name = f"{a}|{o}|{n}|{norm}"
                        systems[name] = bench.logical(r, Operators(a, o, n), Normalizer(norm))
        res = bench.evaluate(systems, qids)
        cells = {name: res[(name, "all")]["nDCG@10"] for name in systems}
        best = max(cells.values())
        cols = ["AND", "OR", *(f"NOT {'1-x' if n == 'complement' else '1/x'} ({norm})"
                               for norm in NORMALISATIONS[r] for n in NOT_OPERATORS)]
        rows = []
        for a in AND_OPERATORS:
            for o in OR_OPERATORS:
                vals = [cells[f"{a}|{o}|{n}|{norm}"] for norm in NORMALISATIONS[r] for n in NOT_OPERATORS]
                rows.append([a, o, *(f"**{fmt(v)}**" if v == best else fmt(v) for v in vals)])
        lines += [f"## {RETRIEVER_LABEL[r]} leaves", "", *md_table(cols, rows, "ll" + "r" * (len(cols) - 2)), ""]
    lines += ["Seed 001 Table 2 for reference (NV-Embed-V1, nDCG@10; no noisy-or there):", "",
              *md_table(["AND", "OR", "NOT 1-x", "NOT 1/x"],
                        [[a, o, *(f"{x:.2f}" for x in v)] for (a, o), v in SEED_TABLE2.items()], "llrr"), ""]
    return write_lines(results_dir / "itlr_table2.md", lines)


def figure3(bench: Bench, results_dir: Path, cmd: str) -> Path:
    """Seed 001 Figure 3: nDCG@10 vs number of terms for AND-only and OR-only queries (PNG + table)."""
    qids = bench.qids("scaling")
    systems, labels = standard_systems(bench)
    cal = fit_calibration(bench)  # fitted on three-term queries: the scaling set is entirely held out
    for r in bench.retrievers:
        systems[f"{r}-cal"] = bench.logical(r, normalizer=Normalizer("sigmoid", cal.generation))
        labels.append((f"{r}-cal", RETRIEVER_LABEL[r], "calibrated ITLR"))
    res = bench.evaluate(systems, qids, lambda q: f"{q.meta['op']}-{q.meta['n_terms']}")
    ns = list(synth.SCALING_TERMS)
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), sharey=True)
    styles = {"base": "--", "ITLR": "-", "calibrated ITLR": "-.", "random scores": ":",
              "Boolean peer (strict BooleanQuery)": (0, (1, 1))}
    markers = {"base": "s", "ITLR": "o", "calibrated ITLR": "^"}
    colors = {r: f"C{i}" for i, r in enumerate(bench.retrievers)}
    lines = header("ITLR synthetic benchmark: seed 001 Figure 3 (term scaling)", cmd, SETTING_NOTE,
                   f"{len(qids)} queries: `t1 AND ... AND tn` and `t1 OR ... OR tn`, n = 2..8.  "
                   "Figure: `itlr_figure3.png`.  *Calibrated ITLR* (seed 001 Figure 4) uses the sigmoid "
                   "parameters fitted on the three-term `fit` split (see `itlr_calibration.md`).")
    for ax, op in zip(axes, ("AND", "OR")):
        rows = []
        for run, leaves, label in labels:
            ys = [res[(run, f"{op}-{n}")]["nDCG@10"] for n in ns]
            name = label if run == "random" else f"{leaves.split(' ')[0]} {label}"
            ax.plot(ns, ys, linestyle=styles[label], marker=markers.get(label), label=name,
                    color="grey" if run == "random" else colors[run.split("-")[0]])
            rows.append([name, *map(fmt, ys)])
        ax.set_title(f"{op} queries")
        ax.set_xlabel("number of terms")
        ax.grid(alpha=0.3)
        lines += [f"## nDCG@10, {op} queries", "", *md_table(["system", *map(str, ns)], rows), ""]
    axes[0].set_ylabel("nDCG@10 (per-query pools)")
    axes[1].legend(loc="lower left", fontsize=8)
    fig.suptitle("ITLR synthetic benchmark: term scaling (seed 001, Figure 3)")
    fig.tight_layout()
    fig.savefig(results_dir / "itlr_figure3.png", dpi=120)
    plt.close(fig)
    return write_lines(results_dir / "itlr_figure3.md", lines)


def calibration_pairs(bench: Bench, retriever: str, qids: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """(raw leaf score, is the document about the term) for every term x pool document of ``qids``.

    This is the seed's appendix E labelling (documents known to be about a
    term or not), available here because the generator records the topics
    every document covers.
    """
    scores, labels = [], []
    for qid in qids:
        q = bench.queries[qid]
        pool = bench.pools[retriever][qid]
        for key, topic in q.topic_of.items():
            scores.append(pool.raw[key])
            labels.append(bench.covers[[bench.row[d] for d in q.docids], topic])
    return np.concatenate(scores), np.concatenate(labels).astype(int)


@dataclass
class Calibration:
    """Sigmoid parameters per retriever fitted on the ``fit`` split, two ways (see :func:`fit_calibration`)."""

    generation: dict = field(default_factory=dict)
    package: dict = field(default_factory=dict)
    package_pool_qrels: dict = field(default_factory=dict)
    notes: list = field(default_factory=list)


def fit_calibration(bench: Bench) -> Calibration:
    """Fit σ((s − τ)λ) per retriever on the three-term ``fit`` split (cached on the bench).

    ``generation``: (term, pool document) pairs labelled by whether the
    document is about the term.  ``package``: the pairs
    ``logical_pyserini.calibrate.collect_pairs`` builds from topic qrels
    pooled to depth 100 and judged by construction.  ``package_pool_qrels``:
    the same with qrels that judge only each query's own documents (what a
    user with the benchmark's qrels file would run).
    """
    if getattr(bench, "_calibration", None) is not None:
        return bench._calibration
    from logical_pyserini.calibrate import collect_pairs, fit_sigmoid

    fit = bench.qids("three", "fit")
    cal = Calibration()
    for r in bench.retrievers:
        s, y = calibration_pairs(bench, r, fit)
        cal.generation[r] = fit_sigmoid(s, y)
        # The package's own labelling (python -m logical_pyserini.calibrate): leaves whose truth the topic's
        # judgement forces, negatives sampled from the positive leaves' top 100 in the whole corpus.  Those
        # are judged by construction (pooled qrels): with the pool labels alone, documents from other queries
        # that are about a term would count as non-relevant (unjudged) and invert the fit.
        trees = {qid: bench.queries[qid].tree for qid in fit}
        own = {qid: dict(zip(bench.queries[qid].docids, map(int, bench.queries[qid].labels))) for qid in fit}
        own_pairs = collect_pairs(trees, own, [bench.leaves[r]], depth=100)
        cal.package_pool_qrels[r] = fit_sigmoid(own_pairs.scores[r], own_pairs.labels)
        qrels = {}
        for qid in fit:
            q = bench.queries[qid]
            judged = set(q.docids)
            for t in positive_terms(q.tree):
                judged.update(bench.leaves[r].scorer.docids(bench.leaves[r].scorer.search(t.text, 100).docs))
            judged = sorted(judged)
            qrels[qid] = dict(zip(judged, map(int, bench.relevant(q, judged))))
        pairs = collect_pairs(trees, qrels, [bench.leaves[r]], depth=100)
        cal.package[r] = fit_sigmoid(pairs.scores[r], pairs.labels)
        g, k, o = cal.generation[r], cal.package[r], cal.package_pool_qrels[r]
        cal.notes.append(f"{RETRIEVER_LABEL[r]}: generation labels {len(y)} pairs ({int(y.sum())} about) -> "
                         f"tau = {g.tau:.4f}, lambda = {g.lam:.4f}; package labels {len(pairs.labels)} pairs "
                         f"({int(pairs.labels.sum())} positive) -> tau = {k.tau:.4f}, lambda = {k.lam:.4f}; "
                         f"package labels with pool-only qrels {len(own_pairs.labels)} pairs "
                         f"({int(own_pairs.labels.sum())} positive) -> tau = {o.tau:.4f}, lambda = {o.lam:.4f}.")
    bench._calibration = cal
    return cal


def calibration(bench: Bench, results_dir: Path, cmd: str) -> Path:
    """Seed 001 Table 7: calibrated ITLR, sigmoid fitted on the held-out ``fit`` split."""
    from logical_pyserini.calibrate import write_calibration

    fit, test = bench.qids("three", "fit"), bench.qids("three", "test")
    cal = fit_calibration(bench)
    params, package_params, notes = cal.generation, cal.package, cal.notes
    pool_params = cal.package_pool_qrels
    write_calibration(results_dir / "itlr_calibration.json", params,
                      {"source": "eval/itlr_eval.py calibration", "split": "fit", "queries": len(fit),
                       "labels": "document about / not about the term (generator ground truth)"})
    systems = {"random": bench.random()}
    labels = [("random", "-", "random scores")]
    for r in bench.retrievers:
        systems.update({f"{r}-base": bench.base(r), f"{r}-itlr": bench.logical(r),
                        f"{r}-cal": bench.logical(r, normalizer=Normalizer("sigmoid", params)),
                        f"{r}-calpkg": bench.logical(r, normalizer=Normalizer("sigmoid", package_params)),
                        f"{r}-calown": bench.logical(r, normalizer=Normalizer("sigmoid", pool_params))})
        labels += [(f"{r}-base", RETRIEVER_LABEL[r], "base"), (f"{r}-itlr", RETRIEVER_LABEL[r], "ITLR"),
                   (f"{r}-cal", RETRIEVER_LABEL[r], "calibrated ITLR"),
                   (f"{r}-calpkg", RETRIEVER_LABEL[r], "calibrated ITLR (package labels)"),
                   (f"{r}-calown", RETRIEVER_LABEL[r], "calibrated ITLR (package labels, pool-only qrels)")]
    res = bench.evaluate(systems, test, negations)
    lines = header("ITLR synthetic benchmark: seed 001 Table 7 (calibrated ITLR)", cmd, SETTING_NOTE,
                   "Calibration σ((s − τ)λ) per retriever (`logical_pyserini.calibrate.fit_sigmoid`, "
                   f"scikit-learn LogisticRegression) fitted on the `fit` split ({len(fit)} queries, the first "
                   f"20 % of every template); evaluated on the other {len(test)} queries.  *Calibrated ITLR*: "
                   "pairs (term, pool document) labelled by whether the document is about the term (seed 001 appendix E; parameters "
                   "in `itlr_calibration.json`, usable as `search --calibration`).  *Package labels*: the pairs "
                   "`python -m logical_pyserini.calibrate` builds from topic qrels (leaves whose truth the "
                   "judgement forces; negatives sampled from the positive leaves' top 100 in the whole corpus), "
                   "with qrels pooled to that depth and judged by construction.  *Pool-only qrels*: the same "
                   "with the benchmark's qrels file, which judges only each query's own documents: the package "
                   "takes its negatives from those judged non-relevant documents (an earlier version sampled "
                   "unjudged documents, which are often about the term here, and fitted a negative slope; "
                   "`fit_sigmoid` now refuses one).", *notes)
    cols = ["leaves", "system", *NEGATIONS, "all"]
    for measure in MEASURES.split():
        lines += [f"## {measure} by number of negations (test split)", "",
                  *md_table(cols, by_negation_rows(res, labels, measure)), ""]
    lines += ["Seed 001 Table 7 for reference (nDCG@10):", "",
              *md_table(["system", *NEGATIONS], [[k, *(f"{x:.2f}" for x in v)] for k, v in SEED_TABLE1.items()]), ""]
    return write_lines(results_dir / "itlr_calibration.md", lines)


def fullcorpus(bench: Bench, results_dir: Path, cmd: str) -> Path:
    """The three-term queries against the whole corpus, with relevance known by construction."""
    qids = [q for q in bench.qids("three") if positive_terms(bench.queries[q].tree)]
    skipped = len(bench.qids("three")) - len(qids)
    docids = np.array(bench.docids)
    runs: dict[str, dict[str, list[str]]] = {}
    for r in bench.retrievers:
        s = bench.searchers[r]
        log(f"full-corpus search ({r}, {len(qids)} queries)")
        hits = s.batch_search([bench.queries[q].meta["query"] for q in qids], qids, k=10)
        runs[f"{r}-itlr"] = {q: [h.docid for h in hits[q]] for q in qids}
        runs[f"{r}-base"] = {q: [h.docid for h in s.plain_search(bench.queries[q].meta["base"], 10)] for q in qids}
        if r == "bm25":  # the real Lucene BooleanQuery of the same tree
            runs[f"{r}-boolean"] = {q: [h.docid for h in s.boolean_search(bench.queries[q].tree, 10)] for q in qids}
    from logical_pyserini.eval import evaluate_runs

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        with (tmp / "qrels.txt").open("w") as f:
            for qid in qids:
                q = bench.queries[qid]
                relevant = bench.relevant(q)
                judged = set(q.docids) | {d for run in runs.values() for d in run[qid]}
                judged |= set(docids[relevant][:10])  # enough for an exact ideal DCG@10
                f.writelines(f"{qid} 0 {d} {int(relevant[bench.row[d]])}\n" for d in sorted(judged))
        paths = {}
        for name, run in runs.items():
            paths[name] = tmp / f"{name}.txt"
            with paths[name].open("w") as f:
                for qid, ranked in run.items():
                    f.writelines(f"{qid} Q0 {d} {i + 1} {len(ranked) - i} x\n" for i, d in enumerate(ranked))
        rows = evaluate_runs(tmp / "qrels.txt", paths, MEASURES, {q: negations(bench.queries[q]) for q in qids})
    res = {(r.run, r.group): r.values for r in rows}
    system_names = {"base": "base", "boolean": "Boolean peer (strict BooleanQuery)", "itlr": "ITLR"}
    labels = [(f"{r}-{s}", RETRIEVER_LABEL[r], system_names[s])
              for r in bench.retrievers for s in ("base", "boolean", "itlr") if f"{r}-{s}" in runs]
    lines = header("ITLR synthetic benchmark: full-corpus setting", cmd,
                   f"The {len(qids)} three-term queries with a positive term ({skipped} all-negated queries "
                   f"skipped: they cannot select candidates) searched against all {len(docids):,} documents; "
                   "ITLR = `LogicalLuceneSearcher.search` / `LogicalFaissSearcher.search` (package defaults, "
                   "leaf depth 1000), base = `plain_search` on the terms.  Relevance of every document follows "
                   "from the topics it covers; nDCG@10 and P@1 are exact (see the module docstring).")
    cols = ["leaves", "system", *NEGATIONS[:3], "all"]
    for measure in MEASURES.split():
        rows_ = [[lv, lb, *(fmt(res[(run, g)][measure]) for g in NEGATIONS[:3]), fmt(res[(run, "all")][measure])]
                 for run, lv, lb in labels]
        lines += [f"## {measure} by number of negations", "", *md_table(cols, rows_), ""]
    return write_lines(results_dir / "itlr_fullcorpus.md", lines)


TABLES = {"table1": table1, "table2": table2, "figure3": figure3, "calibration": calibration,
          "fullcorpus": fullcorpus}


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__)
    p.add_argument("what", choices=[*TABLES, "all"], help="Which table or figure to make.")
    p.add_argument("--retrievers", default="bm25,dense", help="Leaf retrievers: bm25, dense or both.")
    p.add_argument("--queries-per-template", type=int, default=100)
    p.add_argument("--scaling-queries", type=int, default=100)
    p.add_argument("--seed", type=int, default=13)
    args = p.parse_args(argv)
    if args.quick:
        args.queries_per_template = args.scaling_queries = 5
    retrievers = [r.strip() for r in args.retrievers.split(",") if r.strip()]
    if not retrievers or set(retrievers) - set(RETRIEVER_LABEL):
        p.error(f"--retrievers takes bm25 and/or dense, got {args.retrievers!r}")
    data = Path(args.data) / ("itlr-quick" if args.quick else "itlr")
    synth.ensure(data, n_three=args.queries_per_template, n_scaling=args.scaling_queries, seed=args.seed)
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    bench = Bench(data, retrievers)
    todo = list(TABLES) if args.what == "all" else [args.what]
    for name in todo:
        # Each table records the single command that regenerates it.
        cmd_argv = [name, *(a for a in (argv if argv is not None else sys.argv[1:]) if a != args.what)]
        out = TABLES[name](bench, results, command(__file__, cmd_argv))
        log(f"{name}: {out}")
    bench.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
