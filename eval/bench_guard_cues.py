"""Exclusion phrasings: does the guard find what a request excludes, and only that?

    python eval/bench_guard_cues.py [--phrasings eval/cues/phrasings_a.jsonl ...] [--rewriter rules]

Each phrasings file holds requests written by someone who never saw the guard
(``eval/cues/``: files ``a`` and ``b`` written from a list of phrasings to vary,
``c`` to ``h`` free-form, ``f`` in a hurried / second-language / helpdesk voice;
which cue lists were tuned on which file is in the results' notes), one JSON
object per line: ``{"id", "kind": "exclusion"|"none", "question", "excluded":
[exact substrings]}``.  Every question is rewritten (``--rewriter``) and guarded
as search does by default (``guard=propose``); the exclusions the guard keeps
are compared with the labels, without any retrieval: an excluded item counts as
found when one kept NOT holds all its content words; a kept NOT that shares no
content word with any labelled item is spurious.  A control (``none``) should
keep no NOT at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from _common import EVAL, base_parser, command, header, log, md_table, write_lines

PHRASINGS = sorted((EVAL / "cues").glob("phrasings_*.jsonl"))  # every blind file, a new one included
_WORD = re.compile(r"[\w']+")
# Words that name nothing of their own: a label "anything with fish" is found by a kept "fish".
_LIGHT = {"a", "an", "the", "of", "and", "or", "to", "in", "on", "for", "with", "any", "my", "our", "his", "her", "its",
          "their", "your", "s", "anything", "something", "stuff", "ones", "one", "thing", "things"}


def _content(text: str) -> set[str]:
    # "tolkien's" holds "tolkien", as Lucene's possessive filter reads it
    words = {re.sub(r"'s$", "", w.lower()).strip("'") for w in _WORD.findall(text.replace("-", " "))}
    return {w for w in words if w and w not in _LIGHT}


def score(items: list[dict], kept: dict[str, tuple[str, ...]]) -> dict:
    """Counts and per-question misses of the kept exclusions ``kept`` (id -> phrases) against the labels."""
    out = {"exclusion questions": 0, "items": 0, "items found": 0, "questions all found": 0,
           "questions with a spurious NOT": 0, "controls": 0, "controls with a NOT": 0, "misses": [], "false": []}
    for item in items:
        phrases = [_content(p) for p in kept.get(item["id"], ())]
        gold = [_content(g) for g in item["excluded"]]
        if item["kind"] == "none":
            out["controls"] += 1
            if phrases:
                out["controls with a NOT"] += 1
                out["false"].append((item["id"], item["question"], kept[item["id"]]))
            continue
        out["exclusion questions"] += 1
        found = [g for g in gold if any(g <= p for p in phrases)]
        spurious = [p for p in phrases if not any(p & g for g in gold)]
        out["items"] += len(gold)
        out["items found"] += len(found)
        out["questions all found"] += len(found) == len(gold)
        out["questions with a spurious NOT"] += bool(spurious)
        if len(found) < len(gold) or spurious:
            out["misses"].append((item["id"], item["question"], kept.get(item["id"], ()), item["excluded"]))
    return out


def _kept(items: list[dict], rw, name: str, verify=None, phrases: bool = False) -> dict[str, tuple[str, ...]]:
    """The exclusions the default guard keeps for each request, rewritten by ``rw`` (spec ``name``) and checked by
    ``verify`` when given; with ``phrases``, as ``--rewrite-phrases`` writes them."""
    from tqdm import tqdm

    from logical_pyserini.rewrite import guard_decision

    return {item["id"]: guard_decision(rw.rewrite(item["question"]), propose=True, verify=verify, phrases=phrases).kept
            for item in tqdm(items, desc=f"rewrite ({name})", unit="request",
                             disable=name == "rules" and verify is None)}


def main(argv=None) -> None:
    p = base_parser(__doc__, data=False)
    p.add_argument("--phrasings", nargs="+", default=[str(f) for f in PHRASINGS], metavar="FILE",
                   help="Phrasings files (JSONL).")
    p.add_argument("--rewriter", default="rules", help="Rewriter spec (rules, llm, llm-draft).")
    p.add_argument("--model-cache", default=None, metavar="FILE", help="SQLite cache of model answers (llm).")
    p.add_argument("--verify", action="store_true",
                   help="Let the model veto kept exclusions (rewrite.ExclusionVerifier, the embedded model).")
    p.add_argument("--phrases", action="store_true",
                   help="Exclusions as --rewrite-phrases writes them (an item that lost shared words kept whole).")
    args = p.parse_args(argv)
    from logical_pyserini.rewrite import build_verifier, get_rewriter
    from logical_pyserini.rewrite._guard._text import _cues

    # One rewriter for every file: a model is loaded once.
    rw = get_rewriter(args.rewriter, **({"cache": args.model_cache} if args.model_cache and args.rewriter != "rules"
                                        else {}))
    verify = None
    if args.verify:
        from logical_pyserini.models import get_model

        verify = build_verifier("model", rw, lambda: get_model("embedded", cache=args.model_cache))
    sections, summary = [], []
    for path in map(Path, args.phrasings):
        items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
        if args.quick:
            items = items[:10] + [i for i in items if i["kind"] == "none"][:5]
        log(f"[cues] {path.name}: {len(items)} requests")
        s = score(items, _kept(items, rw, args.rewriter, verify, args.phrases))
        summary.append([path.name, f"{s['items found']} / {s['items']}", f"{s['items found'] / max(s['items'], 1):.3f}",
                        f"{s['questions all found']} / {s['exclusion questions']}",
                        s["questions with a spurious NOT"], f"{s['controls with a NOT']} / {s['controls']}"])
        sections += [f"## {path.name}", ""]
        sections += ["Exclusion requests with a missed item or a spurious NOT (kept NOTs; labelled items):", ""]
        sections += [f"- {i}: {q!r}: kept {list(k)}; labelled {g}" for i, q, k, g in s["misses"]] or ["- none"]
        sections += ["", "Controls with a NOT:", ""]
        sections += [f"- {i}: {q!r}: kept {list(k)}" for i, q, k in s["false"]] or ["- none"]
        sections.append("")
    lines = header("Exclusion phrasings: what the guard keeps, against labels written blind",
                   command(__file__, argv),
                   f"Rewriter `{args.rewriter}`, guard `propose` (search's default), cue lists `{_cues().version}`"
                   + (f", exclusions checked by the model (`{verify.prompt['version']}`, veto when P(situation) > "
                      f"{verify.max_situation:.2f}: {verify.stats['vetoed']} of {verify.stats['judged']} vetoed)"
                      if verify else "") + (", `--rewrite-phrases`" if args.phrases else "")
                   + ". No retrieval: the kept NOTs are compared with the labelled excluded items.")
    lines += md_table(["file", "excluded items found", "recall", "requests with every item found",
                       "requests with a spurious NOT", "controls with a NOT"], summary) + [""] + sections
    name = "guard_cues" + ("" if args.rewriter == "rules" else f"_{args.rewriter}") + ("_verify" if verify else "") \
        + ("_phrases" if args.phrases else "")
    name += ".md" if len(args.phrasings) > 1 or args.phrasings == [str(f) for f in PHRASINGS] else \
        f"_{Path(args.phrasings[0]).stem}.md"
    log(f"[cues] written {write_lines(Path(args.results) / name, lines)}")


if __name__ == "__main__":
    main()
