"""Bundled data for logical_pyserini.

``DEMO_DIR`` holds a small synthetic encyclopedia (museums, films, novels and
restaurants) with logical queries, natural-language paraphrases of them and
exact qrels.  It is produced by :mod:`logical_pyserini.data._demo`; rebuild it
with ``python -m logical_pyserini.data._demo --output DIR``.

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
