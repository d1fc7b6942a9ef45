"""Rewrite natural-language topics into logical topics.

Usage::

    python -m logical_pyserini.rewrite --topics questions.tsv --output logical.tsv
    python -m logical_pyserini.rewrite --topics q.jsonl --output logical.tsv \\
        --rewriter openai:MODEL --base-url http://localhost:8000/v1 --cache rewrites.jsonl \\
        --decompose decompositions.jsonl

Topics are TSV (``qid<TAB>question``) or JSONL (``{"qid"|"id": ..., "query"|"text": ...}``).
The output is TSV ``qid<TAB>logical query``, the format every logical search
CLI reads.  Exit status: 0 on success, 2 on bad arguments or input.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Iterator

from ._factory import SPEC_HELP, get_rewriter

__all__ = ["main", "read_topics"]

_QID_KEYS = ("qid", "id", "query_id")
_TEXT_KEYS = ("query", "text", "question", "title")


class TopicsError(ValueError):
    """Unreadable topics file (the message names the file and line)."""


def _is_jsonl(path: Path, first_line: str) -> bool:
    return path.suffix.lower() in (".jsonl", ".json", ".ndjson") or first_line.lstrip().startswith("{")


def read_topics(path: str | Path) -> list[tuple[str, str]]:
    """Read ``(qid, question)`` pairs from a TSV or JSONL topics file.

    Raises
    ------
    TopicsError
        On a missing file, a malformed line, an empty question or a repeated qid.
    """
    path = Path(path)
    if not path.is_file():
        raise TopicsError(f"topics file not found: {path}")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise TopicsError(f"{path}: not UTF-8 text ({exc.reason})") from None
    first = next((ln for ln in lines if ln.strip()), "")
    parse = _jsonl_rows if _is_jsonl(path, first) else _tsv_rows
    topics: list[tuple[str, str]] = []
    seen: set[str] = set()
    for lineno, qid, text in parse(path, lines):
        if not qid:
            raise TopicsError(f"{path}:{lineno}: empty qid")
        if not text.strip():
            raise TopicsError(f"{path}:{lineno}: empty question for qid {qid!r}")
        if qid in seen:
            raise TopicsError(f"{path}:{lineno}: qid {qid!r} appears twice")
        seen.add(qid)
        topics.append((qid, text))
    if not topics:
        raise TopicsError(f"{path}: no topics")
    return topics


def _tsv_rows(path: Path, lines: list[str]) -> Iterator[tuple[int, str, str]]:
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        qid, tab, text = line.partition("\t")
        if not tab:
            raise TopicsError(f"{path}:{lineno}: expected 'qid<TAB>question'")
        yield lineno, qid.strip(), text


def _jsonl_rows(path: Path, lines: list[str]) -> Iterator[tuple[int, str, str]]:
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TopicsError(f"{path}:{lineno}: invalid JSON ({exc.msg})") from None
        if not isinstance(row, dict):
            raise TopicsError(f"{path}:{lineno}: expected a JSON object")
        qid = next((row[k] for k in _QID_KEYS if k in row), None)
        text = next((row[k] for k in _TEXT_KEYS if k in row), None)
        if qid is None or not isinstance(text, str):
            raise TopicsError(
                f"{path}:{lineno}: needs an id ({'/'.join(_QID_KEYS)}) and a text ({'/'.join(_TEXT_KEYS)})"
            )
        yield lineno, str(qid).strip(), text


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m logical_pyserini.rewrite",
        description="Rewrite natural-language topics into logical queries (AND / OR / NOT).",
    )
    ap.add_argument("--topics", required=True, type=Path, help="TSV (qid<TAB>question) or JSONL topics")
    ap.add_argument("--output", required=True, type=Path, help="logical topics TSV to write")
    ap.add_argument("--rewriter", default="rules", help=f"{SPEC_HELP} (default: rules)")
    ap.add_argument("--cache", type=Path, help="JSONL cache of model rewrites (LLM rewriters)")
    ap.add_argument("--decompose", type=Path, metavar="FILE", help="also write OrLog-style decompositions (JSONL)")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    ap.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    ap.add_argument("--max-new-tokens", type=int, help="generation limit per model reply")
    ap.add_argument("--timeout", type=float, help="seconds per HTTP request (openai:)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("-v", "--verbose", action="store_true", help="log each fallback and repair")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        topics = read_topics(args.topics)
        rewriter = get_rewriter(
            args.rewriter,
            cache=args.cache,
            base_url=args.base_url,
            api_key=args.api_key,
            max_new_tokens=args.max_new_tokens,
            timeout=args.timeout,
        )
    except (TopicsError, ValueError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    from tqdm import tqdm

    args.output.parent.mkdir(parents=True, exist_ok=True)
    decomp = None
    if args.decompose:
        args.decompose.parent.mkdir(parents=True, exist_ok=True)
        decomp = args.decompose.open("w", encoding="utf-8")
    sources: dict[str, int] = {}
    try:
        with args.output.open("w", encoding="utf-8") as out:
            for qid, text in tqdm(topics, desc="rewriting", unit="topic", disable=args.quiet or None, file=sys.stderr):
                rewrite = rewriter.rewrite(text)
                sources[rewrite.source] = sources.get(rewrite.source, 0) + 1
                out.write(f"{qid}\t{rewrite.query}\n")
                if decomp is not None:
                    row = {"qid": qid, **rewriter.decompose(text).to_dict()}
                    decomp.write(json.dumps(row, ensure_ascii=False) + "\n")
    finally:
        if decomp is not None:
            decomp.close()

    stats = dict(rewriter.stats)
    summary = ", ".join(f"{k}={v}" for k, v in sorted(sources.items()))
    print(f"rewrote {len(topics)} topics with {args.rewriter} -> {args.output} ({summary})")
    if "ok" in stats:
        print(
            "model: ok={ok} repaired={repaired} fallback={fallback} calls={model_calls} "
            "backend_errors={backend_errors}; cache hits={cache_hits} misses={cache_misses}".format(**stats)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
