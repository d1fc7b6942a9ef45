"""Score a natural-language -> logical query rewriter on QUEST queries.

QUEST queries come from set operations over Wikipedia categories; each row
holds the natural query, the original template (``_ that are also _ but not
_`` ...) and the category names marked with ``<mark>``.  Two scores:

* structure accuracy: our tree's ``shape`` equals the template's gold shape;
* atom match: token F1 between our leaves and the marked categories, under
  the best one-to-one matching, divided by the larger of the two counts (so
  missing and extra leaves both cost).

Usage::

    python eval/rewrite_quest.py --rewriter rules
    python eval/rewrite_quest.py --rewriter rules --quick --show-failures 5
    python eval/rewrite_quest.py --rewriter llm --limit 70 --cache calls.sqlite
    python eval/rewrite_quest.py --rewriter llm:openai:MODEL --base-url URL --cache calls.sqlite

The dataset is read in place (``--data``); nothing of it is written except
counts and scores.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from a checkout
    sys.path.insert(0, str(ROOT))

from logical_pyserini.query import iter_terms, shape  # noqa: E402
from logical_pyserini.rewrite import get_rewriter  # noqa: E402

DEFAULT_DATA = Path(os.environ.get("QUEST_TRAIN", "/work/shared/data/quest/train.jsonl"))

#: Gold shape of each QUEST template, in the notation of ``query.shape``.
GOLD_SHAPES = {
    "_": "_",
    "_ or _": "OR(_, _)",
    "_ or _ or _": "OR(_, _, _)",
    "_ that are also _": "AND(_, _)",
    "_ that are not _": "AND(NOT(_), _)",
    "_ that are also both _ and _": "AND(_, _, _)",
    "_ that are also _ but not _": "AND(NOT(_), _, _)",
}

_MARK = re.compile(r"<mark>(.*?)</mark>")
_TOKEN = re.compile(r"\w+")


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def token_f1(a: str, b: str) -> float:
    ta, tb = tokens(a), tokens(b)
    common = sum((collections.Counter(ta) & collections.Counter(tb)).values())
    if not common:
        return 0.0
    p, r = common / len(ta), common / len(tb)
    return 2 * p * r / (p + r)


def atom_match(pred: list[str], gold: list[str]) -> float:
    """Best one-to-one token-F1 matching, normalised by the larger count."""
    if not pred or not gold:
        return 0.0
    scores = [[token_f1(p, g) for g in gold] for p in pred]
    try:
        from scipy.optimize import linear_sum_assignment

        rows, cols = linear_sum_assignment([[-s for s in row] for row in scores])
        total = sum(scores[r][c] for r, c in zip(rows, cols))
    except ImportError:  # greedy is close enough for 2-3 atoms
        total, used = 0.0, set()
        for row in scores:
            best = max((s, j) for j, s in enumerate(row) if j not in used) if len(used) < len(gold) else (0.0, None)
            if best[1] is not None:
                used.add(best[1])
                total += best[0]
    return total / max(len(pred), len(gold))


def load(path: Path, limit: int | None, per_template: int | None = None, skip: int = 0) -> list[dict]:
    """Rows in file order: the first ``limit``, or the first ``per_template`` of each template after its first ``skip``."""
    rows, seen = [], collections.Counter()
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                row = json.loads(line)
                if per_template:
                    template = row["metadata"]["template"]
                    seen[template] += 1
                    if not skip < seen[template] <= skip + per_template:
                        continue
                rows.append(row)
                if limit and len(rows) >= limit:
                    break
    return rows


def evaluate(rewriter, rows: list[dict], progress: bool = True) -> tuple[list[dict], float]:
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover
        def tqdm(x, **_):
            return x

    results = []
    start = time.perf_counter()
    for row in tqdm(rows, desc="rewriting", unit="q", disable=not progress, file=sys.stderr):
        template = row["metadata"]["template"]
        rewrite = rewriter.rewrite(row["query"])
        leaves = [t.text for t, _ in iter_terms(rewrite.tree)]
        results.append(
            {
                "template": template,
                "query": row["query"],
                "rewrite": rewrite.query,
                "source": rewrite.source,
                "shape": shape(rewrite.tree),
                "gold_shape": GOLD_SHAPES[template],
                "structure": shape(rewrite.tree) == GOLD_SHAPES[template],
                "atoms": atom_match(leaves, _MARK.findall(row["original_query"])),
            }
        )
    return results, time.perf_counter() - start


def report(results: list[dict], spec: str, seconds: float, stats: dict, data: Path) -> str:
    def mean(xs):
        xs = list(xs)
        return sum(xs) / len(xs) if xs else 0.0

    by = collections.defaultdict(list)
    for r in results:
        by[r["template"]].append(r)
    lines = [
        f"# QUEST rewrite evaluation: `{spec}`",
        "",
        f"Data: `{data.name}` ({len(results)} queries), command: "
        f"`python eval/rewrite_quest.py --rewriter {spec}`.",
        f"Time: {seconds:.2f} s ({1000 * seconds / max(1, len(results)):.2f} ms/query).",
        f"Rewriter stats: {', '.join(f'{k}={v}' for k, v in stats.items())}.",
        "",
        "Structure accuracy: our tree's `shape` equals the template's gold shape. "
        "Atom match: token F1 of the best one-to-one matching between our leaves and the "
        "marked categories, divided by the larger count.",
        "",
        "| template | gold shape | n | structure acc. | atom match | most common wrong shapes |",
        "|---|---|---:|---:|---:|---|",
    ]
    for template in GOLD_SHAPES:
        rs = by.get(template, [])
        if not rs:
            continue
        wrong = collections.Counter(r["shape"] for r in rs if not r["structure"]).most_common(3)
        wrong_text = "; ".join(f"`{s}` ×{n}" for s, n in wrong) or "–"
        lines.append(
            f"| `{template}` | `{GOLD_SHAPES[template]}` | {len(rs)} | "
            f"{mean(r['structure'] for r in rs):.3f} | {mean(r['atoms'] for r in rs):.3f} | {wrong_text} |"
        )
    lines.append(
        f"| **all** | | **{len(results)}** | **{mean(r['structure'] for r in results):.3f}** | "
        f"**{mean(r['atoms'] for r in results):.3f}** | |"
    )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rewriter", default="rules", help="rules | llm (embedded model) | llm:MODEL_SPEC (default: rules)")
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA, help=f"QUEST jsonl (default: {DEFAULT_DATA})")
    ap.add_argument("--limit", type=int, help="score only the first N queries")
    ap.add_argument("--per-template", type=int, metavar="N", help="score the first N queries of each template")
    ap.add_argument("--skip", type=int, default=0, metavar="N",
                    help="with --per-template: skip each template's first N queries (a held-out sample after "
                    "designing on the first ones)")
    ap.add_argument("--quick", action="store_true", help="first 50 queries, no results file unless --output")
    ap.add_argument("--output", type=Path, help="Markdown results (default: eval/results/rewrite_quest_<name>.md)")
    ap.add_argument("--cache", help="SQLite model-answer cache for LLM rewriters")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint")
    ap.add_argument("--api-key", help="API key for the endpoint")
    ap.add_argument("--max-new-tokens", type=int, help="generation limit for LLM rewriters")
    ap.add_argument("--show-failures", type=int, default=0, metavar="N", help="print N structure failures per template")
    ap.add_argument("--no-progress", action="store_true")
    ap.add_argument("--dump", type=Path, help="JSONL of every query's rewrite (ours and, for a model, the rules')")
    args = ap.parse_args(argv)

    if not args.data.is_file():
        print(f"error: QUEST data not found: {args.data}", file=sys.stderr)
        return 2
    limit = 50 if args.quick and not args.limit else args.limit
    rows = load(args.data, limit, args.per_template, args.skip)
    rewriter = get_rewriter(
        args.rewriter, cache=args.cache, base_url=args.base_url, api_key=args.api_key, max_new_tokens=args.max_new_tokens
    )
    results, seconds = evaluate(rewriter, rows, progress=not args.no_progress)
    text = report(results, args.rewriter, seconds, dict(rewriter.stats), args.data)
    ref = None
    if args.rewriter != "rules":  # the reference on exactly these queries
        ref, _ = evaluate(get_rewriter("rules"), rows, progress=False)
        acc = sum(r["structure"] for r in ref) / max(1, len(ref))
        atoms = sum(r["atoms"] for r in ref) / max(1, len(ref))
        per = ", ".join(f"`{t}` {sum(r['structure'] for r in ref if r['template'] == t) / n:.3f}"
                        for t in GOLD_SHAPES if (n := sum(r["template"] == t for r in ref)))
        text += (f"\nThe rules rewriter on the same {len(ref)} queries: structure accuracy {acc:.3f}, atom match "
                 f"{atoms:.3f} ({per}).\n")
    if args.dump:
        from logical_pyserini._io import atomic_write_text

        atomic_write_text(args.dump, "".join(
            json.dumps({**r, **({"rules": ref[i]["rewrite"], "rules_structure": ref[i]["structure"]} if ref else {})},
                       ensure_ascii=False) + "\n" for i, r in enumerate(results)))
    command = " ".join(argv if argv is not None else sys.argv[1:])
    text = text.replace(f"`python eval/rewrite_quest.py --rewriter {args.rewriter}`",
                        f"`python eval/rewrite_quest.py {command}`")
    print(text)
    for template in GOLD_SHAPES:
        fails = [r for r in results if r["template"] == template and not r["structure"]][: args.show_failures]
        for r in fails:
            print(f"[{template}] {r['query']}\n    -> {r['rewrite']}  ({r['shape']})")

    output = args.output
    if output is None and not args.quick and not args.limit and not args.per_template:
        name = re.sub(r"[^\w.-]+", "_", args.rewriter.split("/")[-1] if ":" not in args.rewriter else args.rewriter)
        output = ROOT / "eval" / "results" / f"rewrite_quest_{name.strip('_')}.md"
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        print(f"wrote {output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
