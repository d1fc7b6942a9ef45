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

The index may be one of Pyserini's prebuilt impact indexes by name
(``msmarco-v1-passage.splade-pp-ed``...), resolved through Pyserini's
registry and cache; it then needs its query encoder (see
:func:`impact_query_encoder`).

    python -m logical_pyserini.search --index indexes/bm25 --impact-index indexes/impact \\
        --topics topics.tsv --output run.txt        # leaves written impact:"..." use the impact index
"""

from __future__ import annotations

import os
from pathlib import Path

from .._bootstrap import ensure_pyserini, jvm_lock
from ._lucene import LuceneLeafScorer, check_lucene_index

__all__ = ["ImpactLeafScorer", "impact_query_encoder"]

# Pyserini's query encoder per model family, found in the encoder's or the index's name
# (``LuceneImpactSearcher._init_query_encoder_from_str``'s rule, which returns None for anything else).
_FAMILIES = {"unicoil": "UniCoilQueryEncoder", "splade": "SpladeQueryEncoder", "slim": "SlimQueryEncoder"}


def impact_query_encoder(spec=None, index_name: str | None = None):
    """The Pyserini query encoder of an impact index, as ``LuceneImpactSearcher`` builds it from a string.

    Parameters
    ----------
    spec : QueryEncoder, str or None
        An encoder object (returned as is); a JSONL file of pre-encoded queries
        (``CachedDataQueryEncoder``: ``{"contents": text, "vector": {...}}``);
        a local model directory; or None: whitespace tokens weighted by count.
    index_name : str, optional
        The prebuilt index name: it names the model family (``splade``,
        ``unicoil``, ``slim``) when the directory's path does not.

    Raises
    ------
    ValueError
        For a string that is not a file or directory here (nothing is
        downloaded from a model hub), or a directory of no known family.
    """
    if spec is not None and not isinstance(spec, (str, os.PathLike)):
        return spec
    ensure_pyserini()
    from pyserini import encode

    if spec is None:
        return encode.TokFreqQueryEncoder()
    path = Path(spec)
    if path.is_file():
        return encode.CachedDataQueryEncoder(str(path))
    if not path.is_dir():
        raise ValueError(f"impact query encoder {spec} is neither a local model directory nor a JSONL file of "
                         "pre-encoded queries (models are not downloaded: fetch it on a machine with network)")
    for text in (str(path), index_name or ""):
        family = next((cls for key, cls in _FAMILIES.items() if key in text.lower()), None)
        if family:
            return getattr(encode, family)(str(path))
    raise ValueError(f"cannot tell which Pyserini query encoder reads {spec}: its path (and the index name) "
                     f"names none of {', '.join(_FAMILIES)}")


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

        super().__init__(str(index_dir), similarity=autoclass("io.anserini.search.similarity.ImpactSimilarity")())
        self.encoder = impact_query_encoder(encoder)
        self._term = autoclass("org.apache.lucene.index.Term")
        self._term_query = autoclass("org.apache.lucene.search.TermQuery")
        self._boost_query = autoclass("org.apache.lucene.search.BoostQuery")
        self._should = autoclass("org.apache.lucene.search.BooleanClause$Occur").SHOULD
        self._boolean = autoclass("org.apache.lucene.search.BooleanQuery$Builder")

    @classmethod
    def open(cls, index: str, impact_encoder=None) -> "ImpactLeafScorer":
        """The leaves over ``index``: a directory or a Pyserini prebuilt impact index name."""
        from .._resources import check_impact_encoder, resolve_index

        resource = resolve_index(index, "impact")
        check_impact_encoder(resource, impact_encoder)
        check_lucene_index(resource.path)
        return cls(str(resource.path), impact_query_encoder(impact_encoder, resource.name))

    @classmethod
    def from_prebuilt_index(cls, prebuilt_index_name: str, query_encoder) -> "ImpactLeafScorer":
        """Leaves over one of Pyserini's prebuilt impact indexes, from Pyserini's cache.

        The counterpart of ``LuceneImpactSearcher.from_prebuilt_index``:
        ``query_encoder`` is a Pyserini ``QueryEncoder``, a local model
        directory or a JSONL file of pre-encoded queries.  Unlike Pyserini's,
        it raises instead of printing and returning None.

        Raises
        ------
        FileNotFoundError
            For a name Pyserini does not know.
        ResourceError
            For an index of another kind, a missing encoder, or an index that is
            not cached and cannot be downloaded here (naming the cache path).
        """
        leaves = cls.open(prebuilt_index_name, query_encoder)
        leaves.prebuilt_index_name = prebuilt_index_name
        return leaves

    def encode(self, text: str) -> dict:
        """The query encoder's token weights for ``text`` (before Pyserini's filter)."""
        try:
            return self.encoder.encode(text)
        except KeyError:  # CachedDataQueryEncoder: a text the pre-encoded queries file lacks
            raise ValueError(f"leaf {text!r} is not in the pre-encoded queries file of the impact encoder") from None

    def weights(self, text: str) -> dict[str, int]:
        """Query term -> integer weight, after Pyserini's filter (in the index, idf > 0)."""
        encoded = self.encode(text)
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
