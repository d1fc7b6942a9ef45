"""Run writers: Pyserini's, with enough digits for logical scores."""

from __future__ import annotations

from pyserini.output_writer import OutputFormat, TrecWriter, get_output_writer

__all__ = ["PreciseTrecWriter", "open_run_writer"]


class PreciseTrecWriter(TrecWriter):
    """Pyserini's TREC writer with 10 significant digits instead of 6 decimals.

    A product of several normalised leaf scores can fall below 1e-6; with
    ``%.6f`` those documents would all be written as 0.000000 and trec_eval /
    ir_measures would re-order them by docid, silently changing the ranking.
    """

    def write(self, topic: str, hits) -> None:
        for docid, rank, score, _ in self.hits_iterator(hits):
            self._file.write(f"{topic} Q0 {docid} {rank} {score:.10g} {self.tag}\n")


def open_run_writer(path: str, output_format: str, max_hits: int, tag: str):
    """A Pyserini output writer (use as a context manager)."""
    if output_format == "trec":
        return PreciseTrecWriter(path, "w", max_hits=max_hits, tag=tag)
    return get_output_writer(path, OutputFormat(output_format), "w", max_hits=max_hits, tag=tag)
