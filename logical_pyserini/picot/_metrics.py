"""EM / F1 with SQuAD normalisation; PhantomWiki's answer-set scoring; mean ± 1 s.e.; paired tests.

PhantomWiki answers are lists: a prediction is split on the separator, every part normalised, and
EM is equality of the two sets, F1 the harmonic mean of set precision and recall (as PhantomWiki's
own evaluation scores them).  HotpotQA / 2Wiki use SQuAD token F1, best over the gold aliases.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter, defaultdict
from typing import Any, Iterable, Sequence

from ..eval import sign_counts, sign_test

__all__ = ["NON_ANSWERS", "answered", "echoes_question", "is_answer", "mean_se", "normalize_answer", "paired_test",
           "score", "set_scores", "summarize", "token_scores"]

SEP = ","
_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = set(string.punctuation)


#: Values that name nothing: a prediction made only of these is no answer, and a reader's reply of one
#: of them is never asserted as a fact.
NON_ANSWERS = frozenset({"", "unknown", "none", "no answer", "n/a", "not given", "not stated"})


def is_answer(value: str) -> bool:
    """Whether one answer value names something (not ``NON_ANSWERS``, nor a placeholder such as "(no answer)")."""
    return str(value).strip().strip("()[]<>\"'.").strip().lower() not in NON_ANSWERS


def answered(prediction: Sequence[str]) -> bool:
    """Whether ``prediction`` names anything.

    >>> answered(["unknown"]), answered([]), answered(["(no answer)"]), answered(["Bo Lee", "unknown"])
    (False, False, False, True)
    """
    return any(is_answer(a) for a in prediction)


#: Words that make a question offer its own candidates ("X or Y?", "Between X and Y, which ..."): its answer
#: may then be a name the question already contains.
_CHOICE = re.compile(r"\b(or|between|out of|among|which one|which of)\b", re.IGNORECASE)
#: Words an answer may share with any question without restating it.
_GLUE = frozenset({"and", "of", "in", "s"})


def _content_words(text: str) -> set[str]:
    return set(normalize_answer(text).split()) - _GLUE


def echoes_question(prediction: Sequence[str], question: str) -> bool:
    """Whether ``prediction`` only restates names from ``question``, which offers no candidates to choose from.

    A multi-hop question asks for something it does not name ("What university did the last Detroit
    Pistons player ... attend?" is not answered by "Detroit Pistons"), unless it offers candidates
    ("..., Nick Carter or Brady Seals?"). On the HotpotQA and 2Wiki dev subsets (1,000 questions)
    3 gold answers restate a question without such a cue; π-CoT uses this to fall back to
    standard RAG, so a wrong call costs at most RAG's answer.

    >>> echoes_question(["Detroit Pistons"], "What university did the last Detroit Pistons player attend?")
    True
    >>> echoes_question(["Brady Seals"], "Who has released more solo albums, Nick Carter or Brady Seals?")
    False
    >>> echoes_question(["Georgetown University"], "What university did the last Detroit Pistons player attend?")
    False
    """
    if _CHOICE.search(question):
        return False
    words = _content_words(question)
    named = [w for w in (_content_words(a) for a in prediction if is_answer(a)) if w]
    return bool(named) and all(w <= words for w in named)


def normalize_answer(s: str) -> str:
    """SQuAD normalisation: lower case, no punctuation, no articles, single spaces."""
    s = str(s).lower()
    s = "".join(ch for ch in s if ch not in _PUNCT)
    s = _ARTICLES.sub(" ", s)
    return " ".join(s.split())


def set_scores(pred: Sequence[str], gold: Sequence[str]) -> tuple[float, float]:
    """(EM, F1) of two answer lists compared as sets of normalised strings."""
    p = {normalize_answer(x) for x in pred} - {""}
    g = {normalize_answer(x) for x in gold} - {""}
    em = float(p == g)
    inter = len(p & g)
    if not p or not g or not inter:
        return em, float(p == g)
    prec, rec = inter / len(p), inter / len(g)
    return em, 2 * prec * rec / (prec + rec)


def token_scores(pred: str, gold: Sequence[str]) -> tuple[float, float]:
    """(EM, F1) of one answer string against gold aliases (SQuAD token F1, best alias)."""
    best_em, best_f1 = 0.0, 0.0
    pt = normalize_answer(pred).split()
    for g in gold:
        gt = normalize_answer(g).split()
        em = float(pt == gt)
        common = sum((Counter(pt) & Counter(gt)).values())
        f1 = 0.0 if not common else 2 * (common / len(pt)) * (common / len(gt)) / (common / len(pt) + common / len(gt))
        if normalize_answer(g) in ("yes", "no", "noanswer") and normalize_answer(pred) != normalize_answer(g):
            f1 = 0.0  # as the HotpotQA script: yes/no answers score only when exact
        best_em, best_f1 = max(best_em, em), max(best_f1, f1)
    return best_em, best_f1


def score(pred: Sequence[str], gold: Sequence[str], mode: str = "set") -> tuple[float, float]:
    """``mode='set'`` (PhantomWiki) or ``'token'`` (HotpotQA / 2Wiki; ``pred`` joined)."""
    if mode == "set":
        return set_scores(pred, gold)
    return token_scores(f"{SEP} ".join(pred), gold)


def mean_se(xs: Sequence[float]) -> tuple[float, float]:
    """Mean and one standard error (sample standard deviation / sqrt(n))."""
    n = len(xs)
    if n == 0:
        return float("nan"), float("nan")
    m = sum(xs) / n
    if n == 1:
        return m, 0.0
    var = sum((x - m) ** 2 for x in xs) / (n - 1)
    return m, math.sqrt(var / n)


def summarize(rows: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Metrics of per-question rows (``em``, ``f1``, ``hops``, ``retriever_calls``, ``model_calls``, ``seconds``)."""
    rows = list(rows)
    out: dict[str, Any] = {"n": len(rows)}
    for key in ("em", "f1", "retriever_calls", "model_calls", "seconds"):
        vals = [float(r[key]) for r in rows if r.get(key) is not None]
        m, se = mean_se(vals)
        out[key] = {"mean": m, "se": se}
    out["errors"] = sum(1 for r in rows if r.get("error"))
    # answered by a baseline instead (π-CoT: no plan, or a plan with no answer)
    out["fallbacks"] = sum(1 for r in rows if r.get("fallback"))
    by_hops: dict[Any, list] = defaultdict(list)
    for r in rows:
        if r.get("hops") is not None:
            by_hops[r["hops"]].append(r)
    out["by_hops"] = {str(h): {"n": len(rs), "em": dict(zip(("mean", "se"), mean_se([r["em"] for r in rs]))),
                               "f1": dict(zip(("mean", "se"), mean_se([r["f1"] for r in rs])))}
                      for h, rs in sorted(by_hops.items())}
    return out


def paired_test(a: Sequence[float], b: Sequence[float]) -> dict[str, float]:
    """Paired tests of per-question scores: the t-test (the seed's Table 4 test; mean difference
    a - b, t and two-sided p, p = 1 when every difference is zero) and the exact two-sided sign test
    (``wins``/``losses``/``ties`` of a over b, ``sign_p`` over the untied questions), which assumes
    nothing about the shape of the differences and so suits small subsets."""
    if len(a) != len(b) or not a:
        raise ValueError("paired test needs two equally long, non-empty score lists")
    d = [x - y for x, y in zip(a, b)]
    wins, losses, ties = sign_counts(d, tol=0.0)
    sign = {"wins": wins, "losses": losses, "ties": ties, "sign_p": sign_test(wins, losses)}
    m, se = mean_se(d)
    if se == 0:
        return {"n": len(d), "mean_diff": m, "t": float("nan"), "p": 1.0 if m == 0 else 0.0, **sign}
    from scipy import stats

    t = m / se
    p = float(2 * stats.t.sf(abs(t), len(d) - 1))
    return {"n": len(d), "mean_diff": m, "t": t, "p": p, **sign}

