"""Helpers shared by the evaluation scripts under ``eval/``.

Every script takes ``--quick`` (seconds, for the harness tests), ``--results``
(where Markdown tables and PNG figures go) and, when it generates data,
``--data`` (generated corpora and indexes; ignored by git).  Result files
start with the command that made them and the date.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import sys
from pathlib import Path
from typing import Iterable, Sequence

ROOT = Path(__file__).resolve().parents[1]
EVAL = ROOT / "eval"
RESULTS = EVAL / "results"
QUICK_RESULTS = EVAL / "results-quick"  # ignored by git
DATA = EVAL / "data"
SOURCES = EVAL / "sources"

if str(ROOT) not in sys.path:  # run from a checkout without `pip install -e .`
    sys.path.insert(0, str(ROOT))

from logical_pyserini._cli import HelpFormatter  # noqa: E402  (after the path is set)


class _Parser(argparse.ArgumentParser):
    """Resolves ``--results`` after parsing: ``--quick`` runs never overwrite the committed full results."""

    def parse_args(self, args=None, namespace=None):  # noqa: D102 - argparse API
        ns = super().parse_args(args, namespace)
        if getattr(ns, "results", "") is None:
            ns.results = str(QUICK_RESULTS if ns.quick else RESULTS)
        return ns


def base_parser(doc: str, data: bool = True) -> argparse.ArgumentParser:
    """Parser with the flags every script shares: ``--quick``, ``--results`` and (optionally) ``--data``.

    Parameters
    ----------
    doc : str
        The script's module docstring (its first line becomes the description).
    data : bool
        Whether the script writes generated data (adds ``--data``).
    """
    p = _Parser(description=doc.strip().splitlines()[0], formatter_class=HelpFormatter)
    p.add_argument("--quick", action="store_true", help="Tiny configuration that runs in seconds (tests).")
    p.add_argument("--results", default=None, metavar="DIR",
                   help="Where tables and figures go (default eval/results, or eval/results-quick with --quick).")
    if data:
        p.add_argument("--data", default=str(DATA), metavar="DIR", help="Where generated data and indexes go.")
    return p


def command(script: str, argv: Sequence[str] | None) -> str:
    """The command line that reproduces a run, e.g. ``python eval/itlr_eval.py table1 --quick``."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", f"eval/{Path(script).name}", *args])


def today() -> str:
    return dt.date.today().isoformat()


def header(title: str, cmd: str, *notes: str) -> list[str]:
    """Title, command, date and machine lines of a result file."""
    lines = [f"# {title}", "", f"Command: `{cmd}`  ",
             f"Date: {today()}; machine: {platform.machine()}, {os.cpu_count()} cores, "
             f"Python {platform.python_version()}.", ""]
    for note in notes:
        lines += [note, ""]
    return lines


def md_table(columns: Sequence[str], rows: Iterable[Sequence], align: str | None = None) -> list[str]:
    """Markdown table lines; ``align`` is one letter per column (``l`` or ``r``, default left then right)."""
    align = align or "l" + "r" * (len(columns) - 1)
    rule = "|" + "|".join("---:" if a == "r" else "---" for a in align) + "|"
    return ["| " + " | ".join(columns) + " |", rule] + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def write_lines(path: str | os.PathLike, lines: Sequence[str]) -> Path:
    """Write a Markdown result file (parents created); return its path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines).rstrip("\n") + "\n", encoding="utf-8")
    return path


def qrels_subset(qrels: str | os.PathLike, topics: Iterable[str], out: str | os.PathLike) -> list[str]:
    """Write the lines of ``qrels`` whose topic is in ``topics`` to ``out`` and return them: runs of a topic
    subset are scored against the subset (a topic missing from a run would count as 0)."""
    keep = set(topics)
    lines = [line for line in Path(qrels).read_text(encoding="utf-8").splitlines()
             if line.split()[:1] and line.split()[0] in keep]
    Path(out).write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return lines


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def long_sets() -> list[Path]:
    """The long-question sets (``eval/longq``, ``eval/longq2`` ...) in their order."""
    sets = [p.parent for p in EVAL.glob("longq*/questions.jsonl")]
    return sorted(sets, key=lambda p: int(p.name[5:] or 1))


def ndcg_per_query(qrels: str | os.PathLike, run: str | os.PathLike) -> dict[str, float]:
    """nDCG@10 of each query of ``run`` (ir_measures)."""
    from logical_pyserini.eval import per_query_values

    return {q: v["nDCG@10"] for q, v in per_query_values(qrels, run, "nDCG@10").items()}


def search_run(index: str | os.PathLike, topics: str | os.PathLike, out: str | os.PathLike, **options) -> Path:
    """``python -m logical_pyserini.search`` in process (1,000 hits, quiet) into ``out``; any failed topic stops
    the benchmark with its message (a run missing topics would score them 0)."""
    from logical_pyserini.search import SearchConfig, run_topics

    report = run_topics(SearchConfig(topics=str(topics), output=str(out), index=str(index), hits=1000, quiet=True,
                                     **options))
    if report.failures:
        raise SystemExit(f"{out}: {len(report.failures)} topics failed: {report.failures}")
    return Path(out)
