"""``impact``: learned-sparse leaves (uniCOIL, SPLADE, pre-computed weights) over a Lucene impact index.

An impact index stores each document's term weights as term frequencies
(Anserini ``-impact -pretokenized``, from a ``JsonVectorCollection``); a leaf
scores ``sum_t w_q(t) * w_d(t)`` over its query terms, exactly what Pyserini's
``LuceneImpactSearcher`` computes.  The query weights come from a Pyserini
query encoder: by default each whitespace token weighs its count (pre-tokenized
queries), or ``--impact-encoder`` names one as ``LuceneImpactSearcher`` accepts
it (a local uniCOIL / SPLADE model directory, or a JSONL file of pre-encoded
queries).  Like Pyserini, tokens absent from the index or present in every
document (idf 0) are dropped and weights are integers.

    python -m logical_pyserini.search --index indexes/bm25 --impact-index indexes/impact \\
        --topics topics.tsv --output run.txt        # leaves written impact:"..." use the impact index
"""

from __future__ import annotations

from pathlib import Path

from .._bootstrap import ensure_pyserini, jvm_lock
from ._lucene import LuceneLeafScorer, check_lucene_index

__all__ = ["ImpactLeafScorer"]


class ImpactLeafScorer(LuceneLeafScorer):
    """Leaf sub-searches and exact scores on a Lucene impact index (registry name ``impact``).

    Parameters
    ----------
    index_dir : str
        Lucene impact index directory.
    encoder : pyserini QueryEncoder, str or None
        Query encoder, or a spec for ``LuceneImpactSearcher`` (see the module
        docstring); None: whitespace tokens weighted by count.
    """

    name = "impact"
    index_option = "--impact-index"
    index_help = ("Lucene impact index (Anserini -impact -pretokenized, e.g. uniCOIL/SPLADE term weights) for "
                  "leaves written impact:\"...\" (or all leaves with --leaf-retriever impact).")

    def __init__(self, index_dir: str, encoder=None):
        ensure_pyserini()
        from jnius import autoclass
        from pyserini.search.lucene import LuceneImpactSearcher

        super().__init__(str(index_dir), similarity=autoclass("io.anserini.search.similarity.ImpactSimilarity")())
        self.encoder = (LuceneImpactSearcher._init_query_encoder_from_str(encoder)
                        if encoder is None or isinstance(encoder, str) else encoder)
        self._term = autoclass("org.apache.lucene.index.Term")
        self._term_query = autoclass("org.apache.lucene.search.TermQuery")
        self._boost_query = autoclass("org.apache.lucene.search.BoostQuery")
        self._should = autoclass("org.apache.lucene.search.BooleanClause$Occur").SHOULD
        self._boolean = autoclass("org.apache.lucene.search.BooleanQuery$Builder")

    @classmethod
    def open(cls, index: str, impact_encoder=None) -> "ImpactLeafScorer":
        check_lucene_index(index)
        return cls(index, impact_encoder)

    def weights(self, text: str) -> dict[str, int]:
        """Query term -> integer weight, after Pyserini's filter (in the index, idf > 0)."""
        encoded = self.encoder.encode(text)
        out: dict[str, int] = {}
        with jvm_lock:  # pyjnius calls (see jvm_lock)
            for token, weight in encoded.items():
                df = self._reader.docFreq(self._term("contents", token))
                if 0 < df < self.num_docs and int(weight) > 0:
                    out[token] = int(weight)
        return out

    def query(self, text: str):
        """``SHOULD`` clauses of ``TermQuery`` boosted by the query weight; ImpactSimilarity scores ``boost * tf``."""
        weights = self.weights(text)
        with jvm_lock:
            builder = self._boolean()
            for token, weight in weights.items():
                builder.add(self._boost_query(self._term_query(self._term("contents", token)), float(weight)),
                            self._should)
            return builder.build()

    @staticmethod
    def build_index(input_dir: str | Path, index_dir: str | Path, threads: int = 1) -> None:
        """Index a folder of ``JsonVectorCollection`` JSONL files (``{"id", "contents", "vector": {term: weight}}``)
        with Anserini's ``IndexCollection -impact -pretokenized``, as Pyserini's indexer does."""
        ensure_pyserini()
        from jnius import autoclass

        autoclass("io.anserini.index.IndexCollection").main([
            "-collection", "JsonVectorCollection", "-input", str(input_dir), "-index", str(index_dir),
            "-generator", "DefaultLuceneDocumentGenerator", "-impact", "-pretokenized",
            "-threads", str(int(threads)), "-storeRaw",
        ])
