"""Build a Lucene index from a JSONL corpus.

    python -m logical_pyserini.index --input corpus.jsonl --index indexes/demo
"""

from __future__ import annotations

import argparse
import sys
import time


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.index",
        description="Index a JSONL corpus (Pyserini JsonCollection 'id'/'contents' or BEIR '_id'/'title'/'text'), "
        "a file or a folder of files, into a Lucene index with raw text, positions and doc vectors.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("--input", required=True, metavar="PATH", help="JSONL file or folder of JSONL files.")
    p.add_argument("--index", required=True, metavar="DIR", help="Index directory to create.")
    p.add_argument("--threads", type=int, default=1, metavar="NUM", help="Indexing threads.")
    p.add_argument("--batch-size", type=int, default=1000, metavar="NUM", help="Documents per indexing batch.")
    p.add_argument("--overwrite", action="store_true", help="Replace an existing index directory.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from ._lucene import build_lucene_index

    start = time.perf_counter()
    try:
        n = build_lucene_index(args.input, args.index, args.threads, args.batch_size, args.overwrite, not args.quiet)
    except (FileNotFoundError, FileExistsError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"indexed {n} documents into {args.index} in {time.perf_counter() - start:.1f}s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
