"""Bundled data for logical_pyserini.

``DEMO_DIR`` holds a small synthetic encyclopedia (museums, films, novels and
restaurants) with logical queries, natural-language paraphrases of them and
exact qrels.  The qrels come from each document's hidden attributes; the text
is deliberately noisy (about 13% of attribute mentions are paraphrased without
the query term, about 8% of documents name an attribute they lack in a
contrastive or negated sentence, lengths and term frequencies vary), so BM25
leaves miss and over-match the way they do on real text.  It is produced by
``scripts/make_demo_data.py`` in the source tree (its vocabulary and query
templates are data files in ``scripts/demo_data/``; ``noise_records()`` there
gives the per-document record of the noise); rebuild it with
``python scripts/make_demo_data.py --output DIR``.

Files in ``DEMO_DIR``:

* ``corpus.jsonl`` -- Pyserini ``JsonCollection`` documents (``id``, ``title``,
  ``contents``).
* ``topics.logical.tsv`` -- ``qid<TAB>query`` in the logical query language.
* ``topics.natural.tsv`` -- ``qid<TAB>question`` in plain English.
* ``qrels.txt`` -- TREC qrels (``qid 0 docid 1``), relevant documents only.
* ``metadata.jsonl`` -- per query: template, number of ``NOT``, operators and
  number of relevant documents.
"""

from __future__ import annotations

from pathlib import Path

DEMO_DIR: Path = Path(__file__).resolve().parent / "demo"

__all__ = ["DEMO_DIR"]
