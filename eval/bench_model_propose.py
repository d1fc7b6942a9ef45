"""Can the embedded model find the excluded names that the guard's cues miss? (``--rewrite-propose model``)

    python eval/bench_model_propose.py [--phrasings FILE ...] [--longq DIR ...] [--model embedded]
                                       [--model-cache FILE] [--claims-only] [--quick]

The rewrite guard reads exclusions from hand-written cues, and on each new blind
cue file its first run finds only a third of the excluded items.  A model that
reads the request could add the ones the cues miss, if it is precise enough:
a wrong NOT on a control question is exactly the harm the guard exists to avoid.
Two wordings of the ``propose`` prompt are measured on labelled cue files
(``eval/cues/phrasings_*.jsonl``):

1. **claim**: for each candidate (each run of capitalised words, plus the
   labelled items), P(True) of "the writer does not want results about X" from
   one forward pass, the request as the shared prefix (the OrLog oracle's
   mechanism).  Reported: ROC AUC over candidates, and the rule "propose the
   request's top candidate when P exceeds a threshold and leads the second by a
   margin" as right / wrong proposals and controls given one.
2. **name**: the model answers with one name or NONE after four worked
   examples (greedy, 16 tokens).

3. **added to the first runs**: the claim rule at the prompt's ``propose_min``
   / ``propose_margin`` (chosen on phrasings_aj and phrasings_ak) on top of
   each file's first run (``eval/verify/first_runs.jsonl``: the guard before
   the file was written), i.e. what it would add on text the cues never saw.

4. **retrieval** (``--longq DIR ...``): nDCG@10 on long-question sets for
   plain BM25, the set's first run, the first run with the proposal added
   (replayed: the proposed name leaves the positive leaf and comes back as
   ``NOT^0.3``, as ``ExclusionProposer`` in the guard does), today's guard and
   today's guard with the proposer (``guard_rewrite(..., proposer=...)``, the
   code behind ``--rewrite-propose model``), and the Boolean peer of the last.

The guard's own result on the same files (today's cue lists) is printed beside.
Candidates are :func:`logical_pyserini.rewrite.name_candidates`, the rule is the
prompt's (``propose_min``, ``propose_margin``).
"""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import (EVAL, RESULTS, base_parser, command, header, log, md_table, ndcg_per_query,  # noqa: E402
                     search_run, write_lines)

FIRST_RUNS = EVAL / "verify" / "first_runs.jsonl"

DEFAULT = [EVAL / "cues" / "phrasings_aj.jsonl", EVAL / "cues" / "phrasings_ak.jsonl"]


def _same(a: str, b: str) -> bool:
    a, b = a.lower(), b.lower()
    return a in b or b in a


def auc(y: np.ndarray, p: np.ndarray) -> float:
    """ROC AUC by the rank-sum (ties count half)."""
    pos, neg = p[y], p[~y]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__, data=False)
    p.add_argument("--phrasings", nargs="+", default=[str(f) for f in DEFAULT], metavar="FILE",
                   help="Labelled cue files (JSONL: id, kind, question, excluded).")
    p.add_argument("--model", default="embedded", help="Model spec (embedded, a path, openai:NAME).")
    p.add_argument("--model-cache", default=None, metavar="FILE", help="SQLite cache of model answers.")
    p.add_argument("--claims-only", action="store_true", help="Skip the one-name wording (the slow, generating one).")
    p.add_argument("--longq", nargs="*", default=[], metavar="DIR",
                   help="Long-question sets (eval/longqN) for the retrieval section; none by default.")
    p.add_argument("--check", action="store_true",
                   help="Also report proposals checked by the exclusion check's claim (ExclusionVerifier: a proposal "
                   "judged part of the asker's situation is dropped), as --rewrite-verify model does to them.")
    args = p.parse_args(argv)

    from logical_pyserini.models import ModelError, fence, get_model
    from logical_pyserini.prompts import fill, load_prompt
    from logical_pyserini.rewrite import RuleRewriter, guard_decision, name_candidates, top_candidate

    prompt = load_prompt("propose")
    items = [dict(json.loads(line), set=Path(f).stem) for f in args.phrasings
             for line in Path(f).read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.quick:
        items = items[:6]
    try:
        model = get_model(args.model, cache=args.model_cache)
    except ModelError as exc:  # one line, with the install command when the embedded model is missing
        raise SystemExit(f"bench_model_propose: {exc}") from None

    pairs, labels, owner = [], [], []
    read = []  # True for the candidates name_candidates reads, False for labelled names it missed (section 1 only)
    for k, item in enumerate(items):
        cands = name_candidates(item["question"])
        read += [True] * len(cands)
        missed = [g for g in item["excluded"] if not any(_same(g, c) for c in cands)]
        read += [False] * len(missed)
        cands += missed
        prefix = fill(prompt["claim_context"], request=fence(item["question"], "request"))
        for c in cands:
            pairs.append((prefix, fill(prompt["claim"], x=c.replace('"', "'"))))
            labels.append((c, any(_same(c, g) for g in item["excluded"])))
            owner.append(k)
    log(f"[propose] {len(items)} requests, {len(pairs)} candidates")
    t0 = time.time()
    prob = np.asarray(model.true_false_probability(pairs, version=prompt["version"] + ":claim",
                                                   system=prompt["claim_system"]), dtype=np.float64)
    claim_s = time.time() - t0
    y = np.array([lab for _, lab in labels])
    control = np.array([items[k]["kind"] == "none" for k in owner])

    rows = []
    for th in (0.66, 0.68, 0.70, 0.72, 0.74):
        for margin in (0.0, 0.02):
            right = wrong = ctrl = 0
            for k, item in enumerate(items):
                js = [j for j in range(len(pairs)) if owner[j] == k and read[j]]
                name = top_candidate([labels[j][0] for j in js], prob[js], th, margin)
                if name is None:
                    continue
                if item["kind"] == "none":
                    ctrl += 1
                elif any(_same(name, g) for g in item["excluded"]):
                    right += 1
                else:
                    wrong += 1
            rows.append((f"{th:.2f}", f"{margin:.2f}", right, wrong, ctrl))

    named = None
    shots = []
    for example, answer in ([] if args.claims_only else prompt["name_examples"]):
        shots += [{"role": "user", "content": fill(prompt["name_ask"], request=fence(example, "request"))},
                  {"role": "assistant", "content": answer}]
    if not args.claims_only:
        chats = [[{"role": "system", "content": prompt["name_system"]}, *shots,
                  {"role": "user", "content": fill(prompt["name_ask"], request=fence(item["question"], "request"))}]
                 for item in items]
        t0 = time.time()
        replies = model.generate(chats, max_new_tokens=16, version=prompt["version"] + ":name")
        name_s = time.time() - t0
        named = {"right": 0, "wrong": 0, "none": 0, "controls": 0}
        for item, reply in zip(items, replies):
            answer = reply.text.strip().strip('"').strip()
            empty = not answer or answer.upper().startswith("NONE")
            if item["kind"] == "none":
                named["controls"] += not empty
            elif empty:
                named["none"] += 1
            elif any(_same(answer, g) for g in item["excluded"]):
                named["right"] += 1
            else:
                named["wrong"] += 1

    # 3. What the rule adds to the guard's first run (the guard committed before each file was written:
    # eval/verify/first_runs.jsonl), i.e. on text the cues had not seen.
    th, margin = float(prompt["propose_min"]), float(prompt["propose_margin"])
    first = {}
    for line in FIRST_RUNS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        first[(row["set"], row["qid"])] = row
    union = {"first": 0, "union": 0, "added right": 0, "added wrong": 0, "controls": 0, "requests": 0}
    checked = {"added right": 0, "added wrong": 0, "controls": 0}  # with --check: what survives the check
    verifier = None
    if args.check:
        from logical_pyserini.rewrite import ExclusionVerifier

        verifier = ExclusionVerifier(model)
    for k, item in enumerate(items):
        if (item["set"], item["id"]) not in first:
            continue
        kept = first[(item["set"], item["id"])]["kept"]
        union["requests"] += 1
        js = [j for j in range(len(pairs)) if owner[j] == k and read[j]]  # what the product would see
        proposed = top_candidate([labels[j][0] for j in js], prob[js], th, margin)
        survives = proposed is not None and (verifier is None or verifier(item["question"], [proposed])[0])
        if item["kind"] == "none":
            union["controls"] += proposed is not None and not kept
            checked["controls"] += survives and not kept
            continue
        found = any(_same(x, g) for x in kept for g in item["excluded"])
        right = proposed is not None and any(_same(proposed, g) for g in item["excluded"])
        union["first"] += found
        union["union"] += found or right
        union["added right"] += right and not found
        union["added wrong"] += proposed is not None and not right
        checked["added right"] += survives and right and not found
        checked["added wrong"] += survives and not right

    rules = RuleRewriter()
    guard = {"right": 0, "wrong": 0, "controls": 0}
    for item in items:
        kept = guard_decision(rules.rewrite(item["question"]), propose=True).kept
        if item["kind"] == "none":
            guard["controls"] += bool(kept)
        else:
            guard["right"] += any(_same(x, g) for x in kept for g in item["excluded"])
            guard["wrong"] += any(not any(_same(x, g) for g in item["excluded"]) for x in kept)

    n_ex = sum(item["kind"] != "none" for item in items)
    n_ctrl = len(items) - n_ex
    files = ", ".join(Path(f).name for f in args.phrasings)
    lines = header("Can the embedded model propose the exclusions the guard's cues miss?",
                   command(__file__, argv),
                   f"Model `{model.id}`, prompt `{prompt['version']}`; {files}: {n_ex} exclusion requests, "
                   f"{n_ctrl} controls. The claim rule is what `--rewrite-propose model` runs (off by default).")
    lines += ["## 1. A true/false claim per candidate name", "",
              f"{len(pairs)} candidates ({int(y.sum())} labelled excluded; {read.count(False)} of them labelled "
              f"names `name_candidates` does not read, judged for the ROC AUC only), {claim_s:.0f} s "
              f"({len(pairs) / max(claim_s, 1e-9):.2f} candidates/s, cache hits included). ROC AUC of P(True) "
              f"over all candidates **{auc(y, prob):.3f}**; over the candidates of controls alone no candidate is "
              f"right, and their mean P(True) is {prob[control].mean():.3f} against {prob[~control].mean():.3f} "
              f"in exclusion requests.", "",
              "Rule (`top_candidate`, what `--rewrite-propose model` runs): propose a request's top candidate when "
              "its P(True) exceeds the threshold and leads the best candidate that shares no word with it by the "
              "margin.", ""]
    lines += md_table(["P(True) >", "margin", f"right (of {n_ex})", "wrong", f"controls given one (of {n_ctrl})"],
                      rows)
    if named is not None:
        lines += ["", "## 2. One name or NONE, after four worked examples", "",
                  f"{name_s:.0f} s for {len(items)} requests.", ""]
        lines += md_table(["answer", "count"], [(f"the labelled name (of {n_ex})", named["right"]),
                                                ("another name", named["wrong"]), ("NONE", named["none"]),
                                                (f"a name for a control (of {n_ctrl})", named["controls"])])
    lines += ["", f"## 3. The claim rule added to the guard's first runs (P(True) > {th:.2f}, lead ≥ {margin:.2f})",
              "",
              f"The first run of a file is the guard committed before the file was written "
              f"(`eval/verify/first_runs.jsonl`), so the cues had not seen these requests; only the candidates "
              f"`name_candidates` reads count here, as in the product. Of the exclusion requests "
              f"with a first run, the first run found a labelled item in **{union['first']}**; with the model's "
              f"proposal added, **{union['union']}** ({union['added right']} added right, {union['added wrong']} "
              f"proposals naming no labelled item); controls that had no NOT and were given one: "
              f"**{union['controls']}**. The rule's numbers (`propose_min`, `propose_margin` in the prompt) were "
              f"chosen on phrasings_aj and phrasings_ak; on any other file this section is held out.", ""]
    if verifier is not None:
        lines += [f"With the exclusion check's claim on each proposal (`--check`; dropped when P(situation) > "
                  f"{verifier.max_situation:.2f}): {checked['added right']} added right, {checked['added wrong']} "
                  f"naming no labelled item, controls given one: {checked['controls']}.", ""]
    lines += ["", "## The guard's cues on the same requests (today's lists, tuned on these files)", "",
              f"A labelled item found in {guard['right']} of {n_ex} exclusion requests, a NOT no label matches in "
              f"{guard['wrong']}, controls given a NOT: {guard['controls']} of {n_ctrl}.", ""]
    if args.longq:
        lines += _retrieval(args.longq, model, first, args.quick, args.check)
    stems = sorted(Path(f).stem.replace("phrasings_", "") for f in args.phrasings)
    name = "model_propose.md" if stems == ["aj", "ak"] else f"model_propose_{'_'.join(stems)}.md"
    if args.longq:
        name = name[:-3] + "_longq.md"  # the sets are listed in the file
    out = write_lines(Path(args.results or RESULTS) / name, lines)
    log(f"[propose] written {out}")
    return 0


def _with_proposal(query: str, question: str, names, weight: float) -> str:
    """A stored guarded query (its NOTs of a question kept whole at ``weight``) with the proposed names added as the
    guard adds them: their mentions leave the positive text, each comes back as ``NOT^weight``."""
    from bench_soft_not import soften
    from logical_pyserini.query import And, Not, Term, normalize_text, parse_query

    tree = parse_query(soften(query, weight))
    if not names:
        return str(tree)
    children = list(tree.children) if isinstance(tree, And) else [tree]
    positive = [c for c in children if not isinstance(c, Not)]
    text = positive[0].text if len(positive) == 1 and isinstance(positive[0], Term) else question
    for name in names:
        text = re.sub(r"(?i)(?<!\w)" + r"\W+".join(map(re.escape, name.split())) + r"(?!\w)", " ", text)
    nots = [c for c in children if isinstance(c, Not)] + [Not(Term(name), weight) for name in names]
    return str(And((Term(normalize_text(text)), *nots)))


class _Checked:
    """A proposer whose proposals the exclusion check's claim may drop (P(situation) above its threshold)."""

    def __init__(self, proposer, verifier):
        self.proposer, self.verifier, self.dropped = proposer, verifier, 0

    def __call__(self, question: str, kept=()) -> tuple[str, ...]:
        names = self.proposer(question, kept)
        out = tuple(x for x, keep in zip(names, self.verifier(question, names)) if keep)
        self.dropped += len(names) - len(out)
        return out


def _retrieval(dirs: list[str], model, first: dict, quick: bool, check: bool = False) -> list[str]:
    """Section 4: nDCG@10 of plain BM25, first runs and today's guard, each without and with the proposer."""
    import tempfile

    from bench_soft_not import _compare
    from logical_pyserini.demo import ensure_index
    from logical_pyserini.rewrite import (GUARD_NOT_WEIGHT, ExclusionProposer, ExclusionVerifier, RuleRewriter,
                                         guard_rewrite)

    proposer = ExclusionProposer(model)
    checked = _Checked(proposer, ExclusionVerifier(model)) if check else None
    rules = RuleRewriter()
    runs = ["bm25", "first", "first + proposal", "now", "now + proposal", "Boolean peer, now + proposal"]
    if check:
        runs[3:3] = ["first + checked proposal"]
        runs.insert(6, "now + checked proposal")
    lines = ["", "## 4. Retrieval on long-question sets (nDCG@10; questions below plain BM25 in brackets)", "",
             f"Proposal rule: P(True) > {proposer.min_p:.2f}, lead ≥ {proposer.margin:.2f}. First runs are replayed "
             "from "
             "`eval/verify/first_runs.jsonl` (NOTs of a question kept whole at today's strength, "
             f"`NOT^{GUARD_NOT_WEIGHT:g}`); the proposal is added as the guard adds it. `now + proposal` is "
             "`guard_rewrite(..., proposer=ExclusionProposer(model))`, what `--rewrite-propose model` runs.", "",
             "| set | " + " | ".join(runs) + " | proposals (first / now) |", "|---|" + "---:|" * (len(runs) + 1)]
    totals = {r: [] for r in runs}
    with tempfile.TemporaryDirectory() as tmp:
        for d in map(Path, dirs):
            index = Path(tmp) / f"index-{d.name}"
            ensure_index(d / "corpus.jsonl", index)
            topics = {line.split("\t", 1)[0]: line.split("\t", 1)[1]
                      for line in (d / "topics.tsv").read_text(encoding="utf-8").splitlines() if line.strip()}
            if quick:
                topics = dict(list(topics.items())[:3])
            queries: dict[str, dict[str, str]] = {r: {} for r in runs[1:]}
            counts = [0, 0]
            for qid, text in topics.items():
                stored = first.get((d.name, qid))
                if stored is not None:
                    names = proposer(text, stored["kept"])
                    counts[0] += bool(names)
                    queries["first"][qid] = _with_proposal(stored["query"], text, (), GUARD_NOT_WEIGHT)
                    queries["first + proposal"][qid] = _with_proposal(stored["query"], text, names, GUARD_NOT_WEIGHT)
                    if checked is not None:
                        queries["first + checked proposal"][qid] = _with_proposal(
                            stored["query"], text, checked(text, stored["kept"]), GUARD_NOT_WEIGHT)
                rewrite = rules.rewrite(text)
                queries["now"][qid] = guard_rewrite(rewrite).query
                if checked is not None:
                    queries["now + checked proposal"][qid] = guard_rewrite(rewrite, proposer=checked).query
                with_model = guard_rewrite(rewrite, proposer=proposer).query
                counts[1] += with_model != queries["now"][qid]
                queries["now + proposal"][qid] = queries["Boolean peer, now + proposal"][qid] = with_model
            paths = {"bm25": search_run(index, d / "topics.tsv", Path(tmp) / f"{d.name}-bm25.txt", plain="text")}
            for k, name in enumerate(runs[1:]):
                if len(queries[name]) < len(topics):
                    continue  # no first run stored for this set
                tsv = Path(tmp) / f"{d.name}-{k}.tsv"
                tsv.write_text("".join(f"{q}\t{v}\n" for q, v in queries[name].items()), encoding="utf-8")
                extra = {"plain": "boolean"} if name.startswith("Boolean") else {}
                paths[name] = search_run(index, tsv, Path(tmp) / f"{d.name}-{k}.txt", **extra)
            bm25 = ndcg_per_query(d / "qrels.txt", paths["bm25"])
            bm25 = {q: bm25.get(q, 0.0) for q in topics}
            cells = []
            for name in runs:
                if name not in paths:
                    cells.append("")
                    continue
                mean, below, _ = _compare(bm25, ndcg_per_query(d / "qrels.txt", paths[name]))
                totals[name].append((mean, below))
                cells.append(f"{mean:.3f} ({below})")
            lines.append(f"| {d.name} | " + " | ".join(cells) + f" | {counts[0]} / {counts[1]} |")
            log(f"[propose] {d.name}: " + ", ".join(f"{n} {c}" for n, c in zip(runs, cells)))
    lines.append("| **mean** (below summed) | " + " | ".join(
        f"**{np.mean([m for m, _ in t]):.3f} ({sum(b for _, b in t)})**" if t else ""
        for t in totals.values()) + " | |")
    dropped = f" The check dropped {checked.dropped} proposals (first runs and today's guard together)." if checked \
        else ""
    return lines + ["", f"Proposer: {proposer.stats}.{dropped}", ""]


if __name__ == "__main__":
    raise SystemExit(main())
