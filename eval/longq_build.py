"""Build the long-question negation set: corpus, topics, qrels from eval/longq/questions.jsonl.

    python eval/longq_build.py [--spec eval/longq/questions.jsonl] [--out eval/longq]

The questions are hand-written in the styles people use when they type a long
request with an exclusion ("..., but don't mention Moses", "... without
Denmark", "X is off the table", "we ruled out X already") plus control
questions whose "not" / "without" is part of the need ("Why do cats not like
water?").  For each question the generator writes, from sentence templates:
4 relevant articles (every facet of the need, the excluded thing never named),
4 hard negatives for exclusion questions (the same facets, and the excluded
thing named in the title and the text, so plain BM25 on the question ranks
them first), and 3 partial matches (one facet).  Deterministic (seed 7).
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

HERE = Path(__file__).resolve().parent

FULL = [
    "This article covers {a}, with a long section on {b} and notes on {c}.",
    "Readers interested in {a} will find a careful account of {b} here, and a chapter on {c}.",
    "{A} is the subject: the author explains {b} and how it relates to {c}.",
    "A practical guide to {a}. It walks through {b} and ends with {c}.",
    "Among the topics discussed are {a}, {b} and {c}, each with examples.",
    "An overview of {a} that pays particular attention to {b}; {c} is treated in an appendix.",
]
TWO = [
    "The piece focuses on {a} and {b}.",
    "Much of the discussion concerns {b} in relation to {a}.",
    "{A} and {b} are the two threads of this essay.",
]
ONE = [
    "This entry is about {a} in general terms.",
    "A short note on {a}, written for newcomers.",
    "{A} comes up briefly in this survey of unrelated subjects.",
]
NEG = [
    "It gives particular attention to {n}.",
    "{N} plays a central role in this account, and the author returns to {n} in every chapter.",
    "Much of the text concerns {n}.",
    "The author argues that {n} matters most here.",
]
FILLER = [
    "The first edition appeared in a small print run and was later revised.",
    "Several readers have praised the clear maps and tables.",
    "The bibliography lists primary and secondary sources.",
    "An index and a glossary close the volume.",
    "The tone is accessible without being simplistic.",
    "Some sections assume familiarity with basic terminology.",
    "Photographs accompany most chapters.",
    "The work has been translated into several languages.",
]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fill(template: str, **values: str) -> str:
    return template.format(**values, **{k.upper(): _cap(v) for k, v in values.items()})


def build(spec: Path, out: Path, seed: int = 7) -> dict[str, int]:
    rng = random.Random(seed)
    questions = [json.loads(line) for line in spec.read_text(encoding="utf-8").splitlines() if line.strip()]
    corpus, qrels, topics, meta = [], [], [], []
    for q in questions:
        if len(q.get("pos", ())) != 3 or (q.get("kind") == "exclusion" and not q.get("neg")):
            raise SystemExit(f"{spec}: question {q.get('qid', '?')} needs three 'pos' facets"
                             " and, for an exclusion, a non-empty 'neg' list")
        a, b, c = q["pos"]
        docs: list[tuple[str, str, int]] = []  # (title, text, relevance)
        for i in range(4):  # relevant: every facet, never the excluded thing
            facets = rng.sample([a, b, c], 3)
            body = [_fill(rng.choice(FULL), a=facets[0], b=facets[1], c=facets[2])]
            if i % 2:
                body.append(_fill(rng.choice(TWO), a=facets[1], b=facets[0]))
            docs.append((f"{_cap(a)}: {b}", body, 1))
        for n in q.get("neg", ()):  # hard negatives (a control may leave "neg" out): the same facets plus the excluded thing
            for _ in range(4):
                facets = rng.sample([a, b, c], 3)
                body = [_fill(rng.choice(FULL), a=facets[0], b=facets[1], c=facets[2]),
                        _fill(rng.choice(NEG), n=n)]
                if rng.random() < 0.5:
                    body.append(_fill(rng.choice(NEG), n=n))
                docs.append((f"{_cap(a)} and {n}", body, 0))
        for facet in (a, b, c):  # partial matches
            docs.append((_cap(facet), [_fill(rng.choice(ONE), a=facet)], 0))
        for j, (title, body, rel) in enumerate(docs):
            body = body + rng.sample(FILLER, rng.randint(1, 3))
            rng.shuffle(body)
            docid = f"{q['qid']}-{j:02d}"
            corpus.append({"id": docid, "contents": f"{title}. " + " ".join(body)})
            qrels.append(f"{q['qid']} 0 {docid} {rel}")
        # A TSV field holds no line break or tab: a question typed as a list ("...\n- budget around $200") is folded
        topics.append(f"{q['qid']}\t{' '.join(q['question'].split())}")
        meta.append({"qid": q["qid"], "kind": q["kind"], "negations": len(q.get("neg", ()))})
    rng.shuffle(corpus)
    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.jsonl").write_text("".join(json.dumps(d) + "\n" for d in corpus), encoding="utf-8")
    (out / "qrels.txt").write_text("\n".join(qrels) + "\n", encoding="utf-8")
    (out / "topics.tsv").write_text("\n".join(topics) + "\n", encoding="utf-8")
    (out / "metadata.jsonl").write_text("".join(json.dumps(m) + "\n" for m in meta), encoding="utf-8")
    return {"questions": len(questions), "docs": len(corpus)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--spec", default=str(HERE / "longq" / "questions.jsonl"))
    p.add_argument("--out", default=str(HERE / "longq"))
    args = p.parse_args(argv)
    print(build(Path(args.spec), Path(args.out)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
