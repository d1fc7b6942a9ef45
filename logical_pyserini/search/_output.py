"""Run writers: Pyserini's, with enough digits for logical scores."""

from __future__ import annotations

import contextlib
from typing import Iterator

from pyserini.output_writer import OutputFormat, TrecWriter, get_output_writer

from .._io import atomic_write

__all__ = ["PreciseTrecWriter", "RunFile", "open_run_writer"]


class PreciseTrecWriter(TrecWriter):
    """Pyserini's TREC writer with 10 significant digits instead of 6 decimals.

    A product of several normalised leaf scores can fall below 1e-6; with
    ``%.6f`` those documents would all be written as 0.000000 and trec_eval /
    ir_measures would re-order them by docid, silently changing the ranking.
    """

    def write(self, topic: str, hits) -> None:
        for docid, rank, score, _ in self.hits_iterator(hits):
            self._file.write(f"{topic} Q0 {docid} {rank} {score:.10g} {self.tag}\n")


class RunFile:
    """A Pyserini output writer bound to an open file: ``write(qid, hits)`` and ``flush()``."""

    def __init__(self, writer, handle):
        self._writer = writer
        self._handle = handle
        writer._file = handle  # Pyserini's writers write to ``_file`` (set by their own __enter__ otherwise)

    def write(self, topic: str, hits) -> None:
        self._writer.write(topic, hits)

    def flush(self) -> None:
        self._handle.flush()


@contextlib.contextmanager
def open_run_writer(path, output_format: str, max_hits: int, tag: str, resume: bool = False) -> Iterator[RunFile]:
    """A Pyserini run writer whose file appears atomically at ``path`` when the block completes.

    The run grows in ``PATH.partial`` (appended to with ``resume``) and is
    renamed to ``path`` at the end; if the block raises, ``PATH.partial`` stays
    for a later ``resume``.
    """
    path = str(path)
    if output_format == "trec":
        writer = PreciseTrecWriter(path, "w", max_hits=max_hits, tag=tag)
    else:
        writer = get_output_writer(path, OutputFormat(output_format), "w", max_hits=max_hits, tag=tag)
    with atomic_write(path, "a" if resume else "w", partial=True) as handle:
        yield RunFile(writer, handle)
