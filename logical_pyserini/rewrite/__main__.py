"""Rewrite natural-language topics into logical topics.

Usage::

    python -m logical_pyserini.rewrite --topics questions.tsv --output logical.tsv
    python -m logical_pyserini.rewrite --topics q.jsonl --output logical.tsv \\
        --rewriter llm:openai:MODEL --base-url http://localhost:8000/v1 --cache calls.sqlite \\
        --decompose decompositions.jsonl

Topics are TSV (``qid<TAB>question``) or JSONL (``{"qid"|"id": ..., "query"|"text": ...}``).
The output is TSV ``qid<TAB>logical query``, the format every logical search
CLI reads.  Exit status: 0 on success, 2 on bad arguments or input.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import sys
from pathlib import Path

from .._io import OutputError, atomic_write
from .._resources import resolve_topics
from .._topics import TopicsError
from ..models import ModelError
from ..query import Term
from ._factory import SPEC_HELP, get_rewriter
from ._guard import GUARD_NOT_WEIGHT, guard_rewrite
from ._types import Rewrite
from ._propose import PROPOSE_MODES, build_proposer
from ._verify import VERIFY_MODES, build_verifier

__all__ = ["main"]

log = logging.getLogger("logical_pyserini.rewrite")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m logical_pyserini.rewrite",
        description="Rewrite natural-language topics into logical queries (AND / OR / NOT).",
    )
    ap.add_argument("--topics", required=True, type=Path, help="TSV (qid<TAB>question) or JSONL topics, or a Pyserini topics name (dl19-passage, ...)")
    ap.add_argument("--output", required=True, type=Path, help="logical topics TSV to write")
    ap.add_argument("--rewriter", default="rules", help=f"{SPEC_HELP} (default: rules)")
    ap.add_argument("--cache", type=Path, help="SQLite cache of model answers (LLM rewriters)")
    ap.add_argument("--decompose", type=Path, metavar="FILE",
                    help="also write the OrLog decomposition of each written query (JSONL: atoms, leaves, formula), "
                    "the predicates search --rerank orlog judges for it")
    ap.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    ap.add_argument("--api-key", help="API key (default: $OPENAI_API_KEY)")
    ap.add_argument("--max-new-tokens", type=int, help="generation limit per model reply")
    ap.add_argument("--timeout", type=float, help="seconds per HTTP request (openai:)")
    ap.add_argument("--guard", default="propose", choices=("off", "on", "propose"),
                    help="do no harm: the question stays the positive leaf, only exclusions the question confirms "
                    "are kept (see README, 'Rewriting that does no harm'); off writes the rewrite as is")
    ap.add_argument("--verify", default="off", choices=VERIFY_MODES,
                    help="model: a language model vetoes a guarded exclusion that only describes the asker's "
                    "situation (see README, 'Exclusions checked by the model'); an llm rewriter's model is reused, "
                    "with the rules the embedded model checks; off (default): no check")
    ap.add_argument("--verify-max", type=float, metavar="P",
                    help="veto an exclusion whose P(situation) exceeds P (default: the prompt's measured threshold)")
    ap.add_argument("--propose", default="off", choices=PROPOSE_MODES,
                    help="model: a language model reads the question and adds the one exclusion the guard's cues "
                    "missed, a name the writer rules out (see README, 'Exclusions proposed by the model'); an llm "
                    "rewriter's model is reused, with the rules the embedded model proposes; off (default)")
    ap.add_argument("--propose-min", type=float, metavar="P",
                    help="propose a name whose P(not wanted) exceeds P (default: the prompt's measured threshold)")
    ap.add_argument("--not-weight", type=float, default=GUARD_NOT_WEIGHT, metavar="W",
                    help="strength of the NOTs the guard adds to a question kept whole, written NOT^W (see README, "
                    f"'Soft exclusions'; default {GUARD_NOT_WEIGHT:g}); 1 writes strict NOTs")
    ap.add_argument("--phrases", action="store_true",
                    help="write an exclusion added to a question kept whole as a phrase: leaf when the question uses "
                    "some of its words elsewhere (see README, 'Phrase exclusions'); the queries then need a Lucene index "
                    "with positions")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    ap.add_argument("-v", "--verbose", action="store_true", help="log each fallback and repair")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not 0.0 < args.not_weight <= 1.0:
        print(f"error: --not-weight must lie in (0, 1], not {args.not_weight}", file=sys.stderr)
        return 2
    try:
        topics = resolve_topics(args.topics)
        rewriter = get_rewriter(
            args.rewriter,
            cache=args.cache,
            base_url=args.base_url,
            api_key=args.api_key,
            max_new_tokens=args.max_new_tokens,
            timeout=args.timeout,
        )
        embedded = functools.lru_cache(maxsize=1)(lambda: _embedded(args.cache))  # one model for both checks
        verifier = None if args.guard == "off" else build_verifier(args.verify, rewriter, embedded, args.verify_max)
        proposer = None if args.guard == "off" else build_proposer(args.propose, rewriter, embedded, args.propose_min)
    except (TopicsError, ValueError, FileNotFoundError, ModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    from tqdm import tqdm

    sources: dict[str, int] = {}
    # Both files appear whole or not at all (a crash or Ctrl-C mid-run leaves the old ones in place).
    try:
        with contextlib.ExitStack() as stack:
            out = stack.enter_context(atomic_write(args.output))
            decomp = stack.enter_context(atomic_write(args.decompose)) if args.decompose else None
            for qid, text in tqdm(topics.items(), desc="rewriting", unit="topic", disable=args.quiet or None,
                                  file=sys.stderr):
                try:
                    proposed = rewriter.rewrite(text)
                    rewrite = guard_rewrite(proposed, args.guard, verifier, args.not_weight, phrases=args.phrases,
                                            proposer=proposer)
                except Exception as exc:  # noqa: BLE001 - one topic's failure costs its structure, not the run
                    log.error("qid %s: rewrite failed (%s: %s); written as one leaf, the question (plain search)",
                              qid, type(exc).__name__, exc)
                    rewrite = proposed = Rewrite(text, str(Term(text)), Term(text), "fallback")
                sources[rewrite.source] = sources.get(rewrite.source, 0) + 1
                out.write(f"{qid}\t{rewrite.query}\n")
                if decomp is not None:
                    # What search's OrLog judges for this rewrite (the same call): the guard's tree when it changed it.
                    d = rewrite.orlog_decomposition(proposed)
                    if d is None:
                        log.warning("qid %s: no predicates for %s; OrLog judges its leaves as they are",
                                    qid, rewrite.query)
                        continue
                    decomp.write(json.dumps({"qid": qid, **d.to_dict()}, ensure_ascii=False) + "\n")
    except OutputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2

    stats = dict(rewriter.stats)
    summary = ", ".join(f"{k}={v}" for k, v in sorted(sources.items()))
    print(f"rewrote {len(topics)} topics with {args.rewriter} -> {args.output} ({summary})")
    if "ok" in stats:
        print(
            "model: ok={ok} repaired={repaired} fallback={fallback} calls={model_calls} "
            "backend_errors={backend_errors} parse_tokens={parse_tokens}".format(**stats)
        )
    if verifier is not None:
        print("exclusion check: " + ", ".join(f"{k}={v}" for k, v in verifier.stats.items()))
    if proposer is not None:
        print("exclusion proposals: " + ", ".join(f"{k}={v}" for k, v in proposer.stats.items()))
    return 0


def _embedded(cache: Path | None):
    from ..models import get_model

    return get_model("embedded", cache=str(cache) if cache else None)


if __name__ == "__main__":
    sys.exit(main())
