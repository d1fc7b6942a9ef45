"""Seed 000 Table 2 (tokens per pair) and Figure 2 (ΔP@1 per template) from ``eval/bench_orlog.py``.

    python eval/orlog_figure2.py [--quick] [--results DIR] [--from-md FILE]

A thin wrapper: runs ``eval/bench_orlog.py`` (``--quick`` passed on), which
writes ``orlog.md`` into ``--results`` -- or reads an existing output with
``--from-md`` -- and turns two of its tables into seed 000's:

* ``orlog_tokens.md``: tokens per (query, entity) pair by method (the seed's
  accounting: OrLog counts one forward pass per predicate, the LLM-as-reasoner
  its generated tokens), next to the seed's Table 2.
* ``orlog_figure2.png`` / ``.md``: mean ΔP@1 per query template between each
  OrLog run and its comparator: the LLM-as-reasoner run on the same base
  retriever and knowledge setting when ``orlog.md`` has one (the seed's
  Figure 2), otherwise the base run it reranks (ΔP@1 of reranking; the
  reasoner comparison is then marked pending).  Green bars: OrLog better.
  Every ``P@1 by template`` table counts: section 4 of ``orlog.md``
  (``bench_orlog.py --lm hf:PATH``) has OrLog and the LLM-as-reasoner with
  the same LM on a topic subset; when such a pair exists the figure shows
  only the OrLog-vs-reasoner panels (the seed's Figure 2) and the Markdown
  table keeps every column.
"""

from __future__ import annotations

import re
import subprocess
import sys
import textwrap
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import EVAL, base_parser, command, header, log, md_table, pyplot, write_lines  # noqa: E402

# Seed 000, Table 2: average generated tokens per query-entity pair.
SEED_TOKENS = [("BM25", "LLM (Param)", "50.2"), ("BM25", "LLM (Param+)", "55.0"), ("BM25", "OrLog", "5.80"),
               ("E5", "LLM (Param)", "35.3"), ("E5", "LLM (Param+)", "46.6"), ("E5", "OrLog", "5.79")]


def read_table(text: str, after: str) -> list[dict[str, str]]:
    """Rows (column -> cell) of the first Markdown table after the line starting with ``after``."""
    tables = read_tables(text, after)
    return tables[0][1] if tables else []


def read_tables(text: str, after: str) -> list[tuple[str, list[dict[str, str]]]]:
    """(title line, rows) of the first Markdown table after every line starting with ``after``."""
    lines = text.splitlines()
    return [(line, _table_at(lines, i)) for i, line in enumerate(lines) if line.startswith(after)]


def _table_at(lines: list[str], start: int) -> list[dict[str, str]]:
    table = []
    for line in lines[start + 1:]:
        if line.startswith("|"):
            table.append([c.strip() for c in line.strip().strip("|").split("|")])
        elif table:
            break
    if len(table) < 2:
        return []
    return [dict(zip(table[0], row)) for row in table[2:]]


def comparator(run: str, runs: list[str]) -> tuple[str | None, str]:
    """(column to compare an OrLog run with, kind): the matching reasoner run, else the base run."""
    base, _, rest = run.partition("+OrLog")
    setting = re.search(r"param\+?", rest)
    for other in runs:
        if other != run and other.startswith(base + "+") and re.search("reason|LLM", other, re.I):
            if setting is None or setting.group(0) in other:
                return other, "LLM-as-reasoner"
    return (base if base in runs else None), "base run (reasoner run pending)"


def deltas(text: str, metric: str = "P@1") -> dict[str, dict[str, float]]:
    """OrLog run -> template -> ΔP@1 against its comparator (see :func:`comparator`).

    Reads every ``<metric> by template`` table (the full-topic one and, when
    present, section 4's LM subset, tagged with its topics per template).
    """
    out = {}
    for title, rows in read_tables(text, f"{metric} by template"):
        if not rows:
            continue
        subset = re.search(r"\(LM subset, (\d+) topics? per template", title)
        runs = [c for c in rows[0] if c != "template"]
        for run in runs:
            if "OrLog" not in run:
                continue
            other, kind = comparator(run, runs)
            if other is None:
                continue
            tag = "reasoner" if kind == "LLM-as-reasoner" else "base, reasoner pending"
            if subset:
                tag += f"; {subset.group(1)} topics/template"
            out[f"{run} − {other} ({tag})"] = {r["template"].strip("`"): float(r[run]) - float(r[other])
                                               for r in rows}
    return out


def figure_panels(delta: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The OrLog-vs-reasoner panels when there are any (seed 000's Figure 2), else every panel."""
    reasoner = {k: v for k, v in delta.items() if "(reasoner" in k}
    return reasoner or delta


def plot(delta: dict[str, dict[str, float]], path: Path) -> None:
    """One panel of horizontal bars per OrLog run, templates on the y axis."""
    plt = pyplot()
    n = max(1, len(delta))
    cols = min(2, n)
    rows = (n + cols - 1) // cols
    n_templates = max((len(v) for v in delta.values()), default=1)
    fig, axes = plt.subplots(rows, cols, figsize=(6 * cols, 0.4 * n_templates * rows + 1.5), squeeze=False)
    for ax, (name, values) in zip(axes.flat, delta.items()):
        templates = list(values)
        ys = [values[t] for t in templates]
        ax.barh(templates, ys, color=["tab:green" if y >= 0 else "tab:red" for y in ys])
        ax.axvline(0, color="black", linewidth=0.8)
        ax.invert_yaxis()
        ax.set_title(textwrap.fill(name, 70), fontsize=8)
        ax.set_xlim(-1.05, 1.05)  # ΔP@1 lies in [-1, 1]: panels share one scale
        ax.set_xlabel("mean ΔP@1")
    for ax in list(axes.flat)[len(delta):]:
        ax.axis("off")
    fig.suptitle("OrLog: mean ΔP@1 per query template (seed 000, Figure 2)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--from-md", default=None, metavar="FILE", help="Use this bench_orlog.py output; do not run it.")
    args = p.parse_args(argv)
    results = Path(args.results)
    source = Path(args.from_md) if args.from_md else results / "orlog.md"
    if not args.from_md:
        script = EVAL / "bench_orlog.py"
        if not script.is_file():
            log("eval/bench_orlog.py is missing: seed 000 Table 2 and Figure 2 are pending")
            return 1
        done = subprocess.run([sys.executable, str(script), *(["--quick"] if args.quick else []),
                               "--output", str(source)])
        if done.returncode != 0:
            log(f"eval/bench_orlog.py failed ({done.returncode})")
            return 1
    text = source.read_text(encoding="utf-8")
    cmd = command(__file__, argv)
    origin = f"From `{source.name}`, written by `eval/bench_orlog.py` (its header gives its command and date)."

    tokens = read_table(text, "Causal LM cost")
    lines = header("OrLog: tokens per (query, entity) pair (seed 000, Table 2)", cmd, origin)
    if tokens:
        lines += md_table(["method", "seed tokens / pair", "generated / pair", "prompt tokens / pair",
                           "computed tokens / pair"],
                          [[r["method"], r.get("seed tokens/pair", "-"), r.get("generated", "-"),
                            r.get("prompt tokens", "-"), r.get("computed tokens", "-")] for r in tokens])
        lines += ["", "The language model behind these rows is described in the source file (without real LLM "
                  "weights it is a randomly initialised model of SmolLM2-135M's shape: its token counts are "
                  "real, its answers are not)."]
    else:
        lines += ["Pending: the source file has no causal-LM cost table."]
    real = read_table(text, "## 4.")
    if real:
        lines += ["", "With a real LM (section 4 of the source: OrLog and the LLM-as-reasoner reranking the ITLR "
                  "top 20 on a topic subset, same model, parametric+):", "",
                  *md_table(["LM run", "seed tokens / pair", "generated / pair", "prompt tokens / pair",
                             "computed tokens / pair", "unparsable", "fallbacks", "s/topic"],
                            [[r["method"], r.get("seed tokens/pair", "-"), r.get("generated/pair", "-"),
                              r.get("prompt tokens/pair", "-"), r.get("computed tokens/pair", "-"),
                              r.get("unparsable", "-"), r.get("fallbacks", "-"), r.get("s/topic", "-")]
                             for r in real if "method" in r])]
    lines += ["", "Seed 000 Table 2 for reference (average generated tokens per query-entity pair):", "",
              *md_table(["retriever", "method", "tokens"], SEED_TOKENS, "llr")]
    write_lines(results / "orlog_tokens.md", lines)

    delta = deltas(text)
    lines = header("OrLog: mean ΔP@1 per query template (seed 000, Figure 2)", cmd, origin,
                   "Figure: `orlog_figure2.png`.  Each column: P@1 of an OrLog run minus its comparator's, "
                   "averaged per template: the LLM-as-reasoner run with the same base and knowledge setting "
                   "(`reasoner`, the seed's comparison) or, when the source has no LLM-as-reasoner effectiveness "
                   "run, the base run OrLog reranks (`base, reasoner pending`).")
    if delta:
        names = list(delta)
        templates = list(dict.fromkeys(t for n in names for t in delta[n]))
        lines += md_table(["template", *names], [[f"`{t}`", *(f"{delta[n][t]:+.3f}" if t in delta[n] else "-"
                                                              for n in names)] for t in templates])
        panels = figure_panels(delta)
        if len(panels) < len(delta):
            lines += ["", "The figure shows the OrLog − LLM-as-reasoner column(s) only (seed 000's Figure 2); the "
                      "other columns compare OrLog with the base run it reranks."]
            reasoner_src = next((line for line in text.splitlines() if line.startswith("Reading notes: ")
                                 and "chance" in line), None)
            if reasoner_src:
                lines += ["", "From the source's section 4: " + reasoner_src[len("Reading notes: "):]]
        plot(panels, results / "orlog_figure2.png")
    else:
        lines += ["Pending: the source file has no `P@1 by template` table with OrLog runs."]
    write_lines(results / "orlog_figure2.md", lines)
    log(f"wrote {results / 'orlog_tokens.md'} and {results / 'orlog_figure2.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
