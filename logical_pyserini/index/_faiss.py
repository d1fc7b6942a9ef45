"""Build a Pyserini-compatible Faiss index (``index`` + ``docid``) from a JSONL corpus."""

from __future__ import annotations

import json
import os

import numpy as np
from tqdm import tqdm

from .._io import atomic_directory
from ._corpus import check_index_dir, iter_documents

__all__ = ["build_faiss_index"]

# Documents read, length-sorted and encoded together: sorting by length inside
# a chunk cuts padding (a batch is as long as its longest text) without
# holding the corpus in memory.
_CHUNK_BATCHES = 16


def build_faiss_index(
    input_path: str | os.PathLike,
    index_dir: str | os.PathLike,
    encoder=None,
    batch_size: int = 64,
    overwrite: bool = False,
    progress: bool = True,
) -> int:
    """Encode a JSONL corpus (JsonCollection or BEIR form) into a flat inner-product index.

    The directory gets what ``FaissSearcher`` reads -- ``index`` (a
    ``faiss.IndexFlatIP`` of unit vectors, so scores are cosines) and
    ``docid`` (one docid per line, in row order) -- plus ``meta.json`` naming
    the encoder, so a search with another encoder can be told apart.

    Parameters
    ----------
    input_path : str
        JSONL file or folder of JSONL files.
    index_dir : str
        Directory to create.
    encoder : SentenceEncoder or str, optional
        Encoder object (shared weights) or model name / directory (default:
        the packaged all-MiniLM-L6-v2).
    batch_size : int
        Texts per forward pass.
    overwrite : bool
        Replace a non-empty ``index_dir``.
    progress : bool
        Show a progress bar.

    Returns
    -------
    int
        Number of documents indexed.

    Raises
    ------
    FileExistsError
        If ``index_dir`` is not empty and ``overwrite`` is False.
    FileNotFoundError
        For a missing corpus or an unknown encoder.
    ValueError
        For an invalid corpus line or a duplicate docid (naming the line).
    """
    import faiss

    from ..encode import SentenceEncoder

    if batch_size < 1:
        raise ValueError(f"batch size must be >= 1, got {batch_size}")
    index_dir = check_index_dir(index_dir, overwrite)
    total = _validate(input_path)  # a half-built index is worse than none: check every line first
    model = encoder if isinstance(encoder, SentenceEncoder) else SentenceEncoder(encoder)
    index = faiss.IndexFlatIP(model.dimension)
    docids: list[str] = []
    chunk: list = []
    with tqdm(total=total, desc="encode", unit="doc", disable=not progress) as bar:
        for doc in iter_documents(input_path):
            chunk.append(doc)
            if len(chunk) == batch_size * _CHUNK_BATCHES:
                _add(index, docids, chunk, model, batch_size)
                bar.update(len(chunk))
                chunk = []
        if chunk:
            _add(index, docids, chunk, model, batch_size)
            bar.update(len(chunk))
    # Written into a temporary sibling and swapped in: a killed build leaves the old index.
    with atomic_directory(index_dir, overwrite=True) as tmp:
        faiss.write_index(index, str(tmp / "index"))
        (tmp / "docid").write_text("".join(f"{d}\n" for d in docids), encoding="utf-8")
        meta = {"encoder": model.name, "encoder_path": str(model.path), "dimension": model.dimension,
                "documents": len(docids), "pooling": "mean", "normalized": True, "metric": "inner_product"}
        (tmp / "meta.json").write_text(json.dumps(meta, indent=2) + "\n", encoding="utf-8")
    return len(docids)


def _validate(input_path: str | os.PathLike) -> int:
    seen: set[str] = set()
    for n, doc in enumerate(iter_documents(input_path), 1):
        if doc.id in seen:
            raise ValueError(f"{input_path}: duplicate docid {doc.id!r} (document {n}); a dense index needs unique ids")
        if "\n" in doc.id:
            raise ValueError(f"{input_path}: docid {doc.id!r} contains a newline (the docid file is one per line)")
        seen.add(doc.id)
    return len(seen)


def _add(index, docids: list[str], chunk: list, model, batch_size: int) -> None:
    texts = [d.contents for d in chunk]
    order = np.argsort([len(t) for t in texts], kind="stable")
    vectors = np.empty((len(texts), model.dimension), dtype=np.float32)
    vectors[order] = model.encode([texts[i] for i in order], batch_size=batch_size)
    index.add(vectors)
    docids.extend(d.id for d in chunk)
