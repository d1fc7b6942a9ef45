"""Run every benchmark and write ``README.md``: an index of the result files with command and date.

    python eval/run_all.py [--quick] [--results DIR] [--data DIR] [--retrievers bm25,dense] [--skip NAME ...]

Steps (each a script of its own, run as a subprocess so one failure does not
hide the others; ``--skip`` leaves steps out):

* ``synthetic``: ``eval/itlr_synthetic.py`` -- the ITLR benchmark and its design summary;
* ``itlr``: ``eval/itlr_eval.py all`` -- seed 001 Tables 1, 2, 7, Figure 3 and the full-corpus setting;
* ``latency``: ``eval/bench_latency.py`` -- latency, peak RSS, ProbLog cost per candidate;
* ``orlog``: ``eval/orlog_figure2.py`` -- runs ``eval/bench_orlog.py`` (a colleague's), seed 000 Table 2
  (tokens per pair) and Figure 2 (ΔP@1 per template);
* ``guard``: ``eval/bench_rewrite_guard.py`` -- rewriting that does no harm (long questions, demo questions);
* ``cues``: ``eval/bench_guard_cues.py`` -- the exclusions the guard keeps, against blind labelled phrasings;
* ``soft-not``: ``eval/bench_soft_not.py`` -- the strength of the guard's NOTs (soft exclusions, ``NOT^w``);
* ``phrase-not``: ``eval/bench_phrase_not.py`` -- the guard's NOTs as ``phrase:`` leaves (``--rewrite-phrases``);
* ``leaf-oracle``: ``eval/bench_leaf_oracle.py`` -- the model-free default OrLog oracle vs the dense one.

``--quick`` passes ``--quick`` to every step (seconds to a few minutes in all).
The exit status is 1 if any step failed; ``README.md`` lists what each step
wrote, with the single command that regenerates each file.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, RESULTS, ROOT, base_parser, log, md_table, today, write_lines  # noqa: E402

# Result file -> what it reproduces.  Files are listed in this order.
DESCRIPTIONS = {
    "itlr_synthetic.md": "ITLR synthetic benchmark: design and statistics",
    "itlr_table1.md": "seed 001 Table 1: base vs ITLR by number of negations (BM25 and dense leaves)",
    "itlr_templates.md": "seed 001 Table 1, broken down by the 32 templates",
    "itlr_table2.md": "seed 001 Table 2: AND x OR x NOT operators (with noisy-or) x normalisation",
    "itlr_figure3.md": "seed 001 Figure 3: term scaling, AND / OR, 2..8 terms (numbers)",
    "itlr_figure3.png": "seed 001 Figure 3 (plot)",
    "itlr_calibration.md": "seed 001 Table 7: calibrated ITLR (held-out fit split)",
    "itlr_calibration.json": "fitted σ((s-τ)λ) parameters (`search --calibration` file)",
    "itlr_fullcorpus.md": "three-term queries against the whole synthetic corpus",
    "latency.md": "latency and peak RSS vs plain LuceneSearcher; ProbLog ms per candidate",
    "latency.png": "latency and peak RSS vs corpus size (plot)",
    "orlog.md": "OrLog benchmark (eval/bench_orlog.py, a colleague's)",
    "orlog_tokens.md": "seed 000 Table 2: tokens per (query, entity) pair",
    "orlog_figure2.md": "seed 000 Figure 2: ΔP@1 per template (numbers)",
    "orlog_figure2.png": "seed 000 Figure 2 (plot)",
    "rewrite_guard_rules.md": "rewriting that does no harm: plain BM25 vs rules (unguarded / guarded) vs Boolean peer",
    "leaf_oracle.md": "default OrLog oracle without an LLM: leaf scores vs dense MiniLM on the demo",
    "guard_cues.md": "exclusion phrasings: what the guard keeps against labels written blind (no retrieval)",
    "guard_cues_phrases.md": "the same with --rewrite-phrases (items that lost shared words kept whole)",
    "soft_not.md": "soft exclusions: the guard's NOTs at weights 1 to 0.2 on first runs, today's guard and the demo",
    "phrase_not.md": "phrase exclusions (--rewrite-phrases) vs the guard's unshared words, long sets and the demo",
}


def steps(args) -> dict[str, list[str]]:
    """Step name -> argv (after ``python``)."""
    quick = ["--quick"] if args.quick else []
    res = _flag("--results", args.results, RESULTS)
    data = _flag("--data", args.data, DATA)
    latency_out = Path(args.results) / "latency.md"
    return {
        "synthetic": ["eval/itlr_synthetic.py", *quick, *res, *data],
        "itlr": ["eval/itlr_eval.py", "all", *quick, *res, *data,
                 *(["--retrievers", args.retrievers] if args.retrievers != "bm25,dense" else [])],
        "latency": ["eval/bench_latency.py", *quick, *data, *_flag("--output", latency_out, RESULTS / "latency.md"),
                    *([] if args.quick or args.sizes == "10000,100000" else ["--sizes", args.sizes])],
        "orlog": ["eval/orlog_figure2.py", *quick, *res],
        "guard": ["eval/bench_rewrite_guard.py", *quick, *res],
        "cues": ["eval/bench_guard_cues.py", *quick, *res],
        "soft-not": ["eval/bench_soft_not.py", *quick, *res],
        "phrase-not": ["eval/bench_phrase_not.py", *quick, *res],
        "leaf-oracle": ["eval/bench_leaf_oracle.py", *quick, *res],
    }


def _flag(flag: str, value: str | Path, default: Path) -> list[str]:
    """``[flag, value]`` unless ``value`` is the default; paths inside the checkout are written relative."""
    path = Path(value).resolve()
    if path == default.resolve():
        return []
    return [flag, str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)]


def file_command(path: Path) -> str:
    """The ``Command:`` line a result file starts with (Markdown), else the file it belongs to."""
    if path.suffix == ".md":
        match = re.search(r"^Command: `([^`]*)`", path.read_text(encoding="utf-8"), re.M)
        return f"`{match.group(1).strip()}`" if match else "-"
    sibling = {"itlr_calibration.json": "itlr_calibration.md"}.get(path.name, path.with_suffix(".md").name)
    return f"see `{sibling}`" if (path.parent / sibling).is_file() else "-"


def readme(results: Path, report: list[list[str]], quick: bool) -> Path:
    """``README.md`` of the results folder: one row per result file, then the steps of this run."""
    rows = []
    names = sorted((p.name for p in results.iterdir() if p.is_file() and p.name != "README.md"),
                   key=lambda n: (list(DESCRIPTIONS).index(n) if n in DESCRIPTIONS else len(DESCRIPTIONS), n))
    for name in names:
        path = results / name
        date = time.strftime("%Y-%m-%d", time.localtime(path.stat().st_mtime))
        rows.append([f"[`{name}`]({name})", DESCRIPTIONS.get(name, "-"), file_command(path), date])
    lines = ["# Evaluation results", "",
             f"Index written by `python eval/run_all.py{' --quick' if quick else ''}` on {today()}.  Each file "
             "starts with the command that regenerates it alone; dates are the files' modification dates.", "",
             *md_table(["file", "reproduces", "command", "date"], rows, "llll"), ""]
    if report:
        lines += ["## Steps of the last run_all", "",
                  *md_table(["step", "status", "seconds", "command"], report, "llrl")]
    return write_lines(results / "README.md", lines)


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__)
    p.add_argument("--retrievers", default="bm25,dense", help="Leaf retrievers of the ITLR tables.")
    p.add_argument("--sizes", default="10000,100000", help="Latency corpus sizes (full mode).")
    p.add_argument("--skip", nargs="*", default=[], choices=["synthetic", "itlr", "latency", "orlog", "guard", "cues",
                                                                 "soft-not", "phrase-not", "leaf-oracle"])
    args = p.parse_args(argv)
    results = Path(args.results)
    results.mkdir(parents=True, exist_ok=True)
    report, failed = [], 0
    for name, step in steps(args).items():
        if name in args.skip:
            continue
        shown = "python " + " ".join(step)
        log(f"== {name}: {shown}")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, *step], cwd=ROOT)
        seconds = time.perf_counter() - start
        failed += done.returncode != 0
        report.append([name, "ok" if done.returncode == 0 else f"FAILED ({done.returncode})", f"{seconds:.0f}",
                       f"`{shown}`"])
    log(f"index: {readme(results, report, args.quick)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
