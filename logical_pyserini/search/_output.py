"""Run writers: Pyserini's, with enough digits for logical scores."""

from __future__ import annotations

import contextlib
import os
from typing import Iterator

from pyserini.output_writer import OutputFormat, TrecWriter, get_output_writer

from .._io import atomic_write, partial_path

__all__ = ["PreciseTrecWriter", "completed_topics", "open_run_writer", "partial_path"]


class PreciseTrecWriter(TrecWriter):
    """Pyserini's TREC writer with 10 significant digits instead of 6 decimals.

    A product of several normalised leaf scores can fall below 1e-6; with
    ``%.6f`` those documents would all be written as 0.000000 and trec_eval /
    ir_measures would re-order them by docid, silently changing the ranking.
    """

    def write(self, topic: str, hits) -> None:
        for docid, rank, score, _ in self.hits_iterator(hits):
            self._file.write(f"{topic} Q0 {docid} {rank} {score:.10g} {self.tag}\n")


@contextlib.contextmanager
def open_run_writer(path: str, output_format: str, max_hits: int, tag: str, resume: bool = False) -> Iterator:
    """A Pyserini output writer that writes ``PATH.partial`` and renames it to ``PATH`` at the end.

    Each topic is flushed as it is written.  If the run is interrupted
    (exception, Ctrl-C, ``kill``) ``PATH`` keeps its previous content and
    ``PATH.partial`` holds the topics done so far; ``resume=True`` appends to
    it (see :func:`completed_topics`).

    Raises
    ------
    OutputError
        When the file cannot be written (one line: unwritable, disk full).
    """
    if output_format == "trec":
        writer = PreciseTrecWriter(path, "w", max_hits=max_hits, tag=tag)
    else:
        writer = get_output_writer(path, OutputFormat(output_format), "w", max_hits=max_hits, tag=tag)
    with atomic_write(path, "a" if resume else "w", partial=True) as f:
        writer._file = f  # Pyserini's writers only use _file once opened
        write = writer.write

        def write_and_flush(topic: str, hits) -> None:
            write(topic, hits)
            f.flush()

        writer.write = write_and_flush
        yield writer


def completed_topics(path: str | os.PathLike, output_format: str = "trec") -> list[str]:
    """Topics finished in an interrupted run's ``PATH.partial``, which is cut back to them.

    Topics are written one after the other, so every topic but the last one
    in the file is complete; the last one (possibly cut by the interruption,
    or by a partly written line) is removed and will be searched again.
    Returns the completed qids in file order (empty when there is no partial file).
    """
    partial = partial_path(path)
    if not partial.is_file():
        return []
    data = partial.read_bytes()
    end = data.rfind(b"\n") + 1  # drop a half-written last line
    lines = data[:end].decode("utf-8", errors="replace").splitlines(keepends=True)
    qids: list[str] = []
    keep = 0
    offset = 0
    for line in lines:
        qid = _qid_of(line, output_format)
        if not qids or qids[-1] != qid:
            qids.append(qid)
            keep = offset  # the file up to the start of this (maybe last) topic
        offset += len(line.encode("utf-8"))
    if not qids:
        keep = 0
    with open(partial, "r+b") as f:
        f.truncate(keep)
        f.flush()
        os.fsync(f.fileno())
    return qids[:-1]


def _qid_of(line: str, output_format: str) -> str:
    if output_format == "msmarco":
        return line.split("\t", 1)[0]
    return line.split(None, 1)[0] if line.strip() else ""
