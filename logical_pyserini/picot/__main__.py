"""π-CoT and its baselines over a question file; one JSONL line per question and OUTPUT.metrics.json.

    python -m logical_pyserini.picot --questions data/pw-s-1/questions.jsonl \\
        --corpus data/pw-s-1/corpus.jsonl --index indexes/pw-s-1 \\
        --method picot --gold-prolog --reader template --llm none --output runs/picot.pw-s-1.jsonl

``--index`` is built from ``--corpus`` when it does not exist.  ``--llm none`` runs the symbolic
path only (π-CoT's answer is the Prolog answer); the other methods need a model.  A question that
fails (bad plan, model error) is recorded with its error and scored 0; the run goes on.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path

from .._cli import HelpFormatter
from .._io import atomic_write, atomic_write_text
from ._data import load_questions
from ._prolog import PrologEngine, PrologUnavailable
from ._readers import READERS
from ._retrieval import LuceneRetriever, Passage, load_corpus
from ._run import METHODS, RunConfig, metrics, run_questions
from ._schema import Schema, phantomwiki_schema

logger = logging.getLogger("logical_pyserini.picot")

#: Passages per retrieval call: the seed's BM25 settings (appendix B.1) and 10 for PhantomWiki.
DEFAULT_K = {"phantomwiki": 10, "hotpotqa": 14, "2wiki": 16}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m logical_pyserini.picot",
                                description="π-CoT multi-hop QA (and CoT / RAG / IRCoT baselines) over a Lucene index.",
                                formatter_class=HelpFormatter)
    p.add_argument("--questions", required=True, help="questions JSONL (eval/picot_data.py writes them)")
    p.add_argument("--corpus", default=None, help="corpus JSONL ({id, contents}); builds --index when absent")
    p.add_argument("--index", default=None, help="Lucene index directory (built from --corpus if absent)")
    p.add_argument("--rules", default=None, help="Prolog rules of the universe (default: rules.pl beside --questions)")
    p.add_argument("--dataset", choices=sorted(DEFAULT_K), default="phantomwiki",
                   help="few-shot examples, scoring (answer sets for phantomwiki, SQuAD tokens otherwise)")
    p.add_argument("--method", choices=sorted(METHODS), default="picot")
    p.add_argument("--setting", choices=["retrieval", "incontext"], default="retrieval",
                   help="retrieval: BM25 over the corpus; incontext: the question's passages (the whole corpus for PhantomWiki)")
    p.add_argument("--gold-prolog", action="store_true", help="use the dataset's Prolog query instead of planning")
    p.add_argument("--reader", choices=sorted(READERS), default="template")
    p.add_argument("--llm", default="none", metavar="none|embedded|PATH|openai:NAME",
                   help="language model (logical_pyserini.models spec) or none")
    p.add_argument("--base-url", default=None, help="API root for openai:NAME")
    p.add_argument("--model-cache", default=None, metavar="FILE", help="SQLite cache of model answers")
    p.add_argument("--verify", choices=["cot", "logit"], default="cot",
                   help="fact verification: the seed's chain of thought, or P(True) of the first token")
    p.add_argument("--hits", "-k", dest="k", type=int, default=None, help="passages per retrieval call (default per dataset)")
    p.add_argument("--slice-hits", type=int, default=None,
                   help="passages per SLICE call (default: --hits); the question's own retrieval uses --hits")
    p.add_argument("--max-passage-tokens", type=int, default=None,
                   help="cut each passage to this many model tokens in prompts (default: whole passages)")
    p.add_argument("--ircot-iterations", type=int, default=4)
    p.add_argument("--max-new-tokens", type=int, default=256)
    p.add_argument("--no-answer-extraction", dest="answer_extraction", action="store_false",
                   help="do not ask a second turn for the answer when the final reply names none (cut off by "
                        "--max-new-tokens, or outside the \"The answer is\" format)")
    p.add_argument("--limit", type=int, default=None, help="first N questions only")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--output", required=True, help="predictions JSONL; metrics go to OUTPUT.metrics.json")
    p.add_argument("--quiet", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        PrologEngine.get()
    except PrologUnavailable as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        questions = load_questions(args.questions)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.limit:
        questions = questions[: args.limit]
    if args.reader == "llm" and args.llm == "none":
        print("error: --reader llm needs --llm embedded|PATH|openai:NAME", file=sys.stderr)
        return 2
    rules_path = Path(args.rules) if args.rules else Path(args.questions).with_name("rules.pl")
    rules = rules_path.read_text(encoding="utf-8") if rules_path.is_file() else ""
    schema = phantomwiki_schema(rules) if args.dataset == "phantomwiki" else Schema({})
    corpus_passages: list[Passage] = []
    if args.setting == "incontext" and args.dataset == "phantomwiki":
        if not args.corpus:
            print("error: --setting incontext for PhantomWiki needs --corpus (the whole universe)", file=sys.stderr)
            return 2
        corpus_passages = [Passage(d, t) for d, t in load_corpus(args.corpus).items()]
    retriever = None
    if args.setting == "retrieval":
        if not args.index:
            print("error: --setting retrieval needs --index (and --corpus to build it)", file=sys.stderr)
            return 2
        try:
            retriever = LuceneRetriever(args.index, args.corpus)
        except (OSError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    model = None
    if args.llm != "none":
        from ..models import ModelError, get_model

        try:
            model = get_model(args.llm, cache=args.model_cache, base_url=args.base_url)
        except ModelError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
    config = RunConfig(method=args.method, setting=args.setting, reader=args.reader, gold_prolog=args.gold_prolog,
                       dataset=args.dataset, k=args.k or DEFAULT_K[args.dataset], verify=args.verify,
                       ircot_iterations=args.ircot_iterations, max_new_tokens=args.max_new_tokens,
                       answer_extraction=args.answer_extraction,
                       slice_k=args.slice_hits, max_passage_tokens=args.max_passage_tokens,
                       corpus_passages=corpus_passages)
    start = time.perf_counter()
    out = Path(args.output)

    # Rows go to OUTPUT.partial as they are answered (in completion order); the file becomes OUTPUT when
    # the run ends, so an interrupted run leaves OUTPUT.partial with every question it finished.
    with atomic_write(out, partial=True) as f:
        def write(row: dict) -> None:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
            f.flush()

        rows = run_questions(questions, config, schema, retriever, model, args.threads, progress=not args.quiet,
                             on_row=write)
    m = metrics(rows, config)
    m["config"].update(llm=args.llm, questions=args.questions, index=args.index, wall_seconds=round(time.perf_counter() - start, 2))
    atomic_write_text(str(out) + ".metrics.json", json.dumps(m, indent=2) + "\n")
    print(f"{args.method}: EM {m['em']['mean']:.3f} ± {m['em']['se']:.3f}  F1 {m['f1']['mean']:.3f} ± {m['f1']['se']:.3f}  "
          f"n={m['n']} errors={m['errors']} fallbacks={m['fallbacks']} retriever calls/q {m['retriever_calls']['mean']:.2f} "
          f"model calls/q {m['model_calls']['mean']:.2f} s/q {m['seconds']['mean']:.3f}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
