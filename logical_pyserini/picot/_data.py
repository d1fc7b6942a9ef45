"""Questions for π-CoT: our JSONL format, and the HotpotQA / 2Wiki dev subsets."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._retrieval import Passage

__all__ = ["Question", "load_multihop", "load_questions"]


@dataclass
class Question:
    qid: str
    question: str
    answers: list[str]
    prolog: dict[str, Any] | None = None   # {"query": [goals in execution order], "answer": target}
    hops: int | None = None
    passages: list[Passage] = field(default_factory=list)  # in-context setting (gold + distractors)


def load_questions(path: str | Path) -> list[Question]:
    """Questions from JSONL (``qid, question, answers`` and optional ``prolog, hops, passages``).

    A malformed line raises ``ValueError`` naming the file and line.
    """
    out = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
                answers = d["answers"] if "answers" in d else [d["answer"]]
                out.append(Question(
                    str(d.get("qid", d.get("id", n))), str(d["question"]), [str(a) for a in answers],
                    d.get("prolog"), d.get("hops"),
                    [Passage(str(p["id"]), str(p["contents"])) for p in d.get("passages", [])]))
            except (ValueError, KeyError, TypeError) as exc:
                raise ValueError(f"{path}:{n}: not a question line ({type(exc).__name__}: {exc})") from None
    return out


def load_multihop(source: str | Path, dataset: str) -> tuple[list[dict], list[dict]]:
    """A dev subset of ``../shared/data/multihop`` as (question rows, pooled corpus rows).

    Each question keeps its own 10 paragraphs (in-context setting); the corpus pools every distinct
    paragraph of the file, docid = title (retrieval setting).
    """
    files = {"hotpotqa": "hotpot_minidev_distractor.json", "2wiki": "2wiki_minidev.json"}
    path = Path(source) / files[dataset]
    if not path.is_file():
        raise FileNotFoundError(f"{path} not found (the multihop dev subsets live in ../shared/data/multihop)")
    rows = json.loads(path.read_text(encoding="utf-8"))
    corpus: dict[str, str] = {}
    questions = []
    for r in rows:
        passages = []
        for title, sentences in r["context"]:
            text = f"{title}\n" + " ".join(s.strip() for s in sentences)
            corpus.setdefault(title, text)
            passages.append({"id": title, "contents": text})
        questions.append({"qid": r["_id"], "question": r["question"], "answers": [r["answer"]],
                          "type": r.get("type"), "passages": passages})
    return questions, [{"id": t, "contents": c} for t, c in corpus.items()]
