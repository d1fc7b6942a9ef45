"""A model reads the question and proposes the one exclusion the guard's cues missed.

The guard reads exclusions from hand-written cues, and on each new blind set of
phrasings its first run found only a third to two thirds of the excluded names
("the Kestrel forum is a no-go zone for me", "swears by Henle ..., not
happening").  The :class:`ExclusionProposer` asks a language model, for each
capitalised run of the question (a candidate name), whether the writer does not
want results about it: one True/False forward pass per candidate, the question
the prefix all of them share (the OrLog oracle's mechanism).  It proposes the
top candidate when its P(True) exceeds ``propose_min`` and leads the second by
``propose_margin``, and only when the guard did not already keep it.  A
proposal is added as a soft NOT of the question kept whole (``NOT^0.3``, the
guard's strength for exclusions read from prose); a model failure proposes
nothing and is logged.  Off by default: measured in README, "Exclusions proposed
by the model".
"""

from __future__ import annotations

import logging
import re
from functools import lru_cache
from typing import Any, Callable, Sequence

import numpy as np

from ..prompts import fill, load_prompt
from ._verify import step_model

__all__ = ["ExclusionProposer", "PROPOSE_MODES", "build_proposer", "name_candidates", "top_candidate"]

logger = logging.getLogger(__name__)

#: ``--rewrite-propose`` values: no model proposal (the default), or the language model proposes one exclusion.
PROPOSE_MODES = ("off", "model")

# A run of capitalised words (with "of", "the", "&" between) is a candidate name; it ends at a sentence's end, and a
# sentence's function words and the asker's pronouns at its ends are not part of it ("and" joins two names).
_RUN = re.compile(r"[A-Z][\w'&.+-]*(?:\s+(?:(?:of|the|de|la|&|'n')\s+)*[A-Z0-9][\w'&.+-]*)*")
_ABBREVIATIONS = frozenset(("dr", "mr", "mrs", "ms", "st", "jr", "sr", "mt", "prof", "vs", "no"))
_JOINERS = frozenset(("of", "the", "de", "la", "and", "n", "&", "'n'"))
# The guard's word lists whose words name nothing when a capital opens a sentence with them ("Nothing", "Before",
# "March", "Everyone"), beside the prompt's own ``not_names``.
_COMMON_LISTS = ("negative_words", "sentence_starts", "interrogatives", "clause_words", "boundary_words",
                 "determiners", "prepositions", "personal_words", "time_words", "time_determiners", "filler",
                 "quantifiers", "stopwords", "anaphors", "addressees")


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    from ._guard._text import _guard_data

    data = _guard_data()
    words = {w for key in _COMMON_LISTS for w in data.get(key, ()) if " " not in w}
    return frozenset(words | {w.lower() for w in load_prompt("propose")["not_names"]})


def name_candidates(question: str) -> list[str]:
    """The capitalised runs of ``question`` that may name a thing, in order, without repeats.

    A run ends at a sentence's end; common words at its ends are dropped ("Everyone", "I've"), and a run of one
    word is no name when it is a common word ("Nothing", "March"), a number, or a word the question also writes in
    lower case ("Trapping ... trapping")."""
    common = _common_words()
    lower = set(re.findall(r"(?<![\w'])[a-z][\w'-]*", question))
    out: list[str] = []
    for words in (part for m in _RUN.finditer(question) for part in _sentence_parts(m.group(0).split())):
        while words and (words[0].lower() in common or words[0].endswith(("'ve", "'m", "'ll", "'d"))):
            words = words[1:]
        while words and (words[-1].lower() in common or words[-1] in _JOINERS):
            words = words[:-1]
        if len(words) == 1 and (words[0].lower() in lower or not re.search(r"[^\W\d]", words[0])):
            continue
        name = " ".join(words)
        if len(name) >= 2 and name not in out:
            out.append(name)
    return out


def _sentence_parts(words: list[str]) -> list[list[str]]:
    """A run's words cut where a sentence ends: after "!", "?" or a full stop that ends a word, not an abbreviation
    ("Kubernetes. We're" is two; "Dr. Weissbluth", "P.S. Jeep", "George R.R. Martin" are one)."""
    parts, current = [], []
    for word in words:
        current.append(word)
        stem = word.rstrip(".!?")
        if word.endswith(("!", "?")) or (word.endswith(".") and len(stem) >= 2 and "." not in stem
                                          and stem.lower() not in _ABBREVIATIONS):
            parts.append(current)
            current = []
    parts.append(current)
    return [[w.rstrip(".!?") if k == len(p) - 1 else w for k, w in enumerate(p)] for p in parts if p]


def _overlaps(a: str, b: str) -> bool:
    """Whether two names share a word other than a joiner (case-insensitive): "Widex" and "a Widex Moment" are one
    thing, "Bank of the West" and "the Co-op" are not."""
    return bool((set(re.findall(r"\w+", a.lower())) & set(re.findall(r"\w+", b.lower()))) - _JOINERS)


class ExclusionProposer:
    """The one exclusion a language model reads in a question that the guard's cues did not keep.

    Parameters
    ----------
    model : LanguageModel
        From :func:`logical_pyserini.models.get_model`.
    prompt : dict, optional
        The ``propose`` prompt (default: the bundled one); its ``propose_min``
        and ``propose_margin`` are the rule measured for its wording.
    min_p : float, optional
        Overrides ``propose_min``: the top candidate's P(True) must exceed it
        (1.0 proposes nothing).
    margin : float, optional
        Overrides ``propose_margin``: how far the top candidate's P(True) must
        lead the second's.

    Attributes
    ----------
    stats : dict
        ``asked`` questions (with at least one candidate), ``proposed``
        exclusions, ``failures`` (model errors: nothing was proposed).
    """

    def __init__(self, model: Any, prompt: dict | None = None, min_p: float | None = None,
                 margin: float | None = None):
        if not callable(getattr(model, "true_false_probability", None)):
            raise TypeError(f"{type(model).__name__} is not a language model (no true_false_probability)")
        self.model = model
        self.prompt = prompt or load_prompt("propose")
        self.min_p = float(self.prompt["propose_min"] if min_p is None else min_p)
        self.margin = float(self.prompt["propose_margin"] if margin is None else margin)
        if not 0.0 <= self.min_p <= 1.0 or not 0.0 <= self.margin <= 1.0:
            raise ValueError(f"min_p and margin must lie in [0, 1], got {self.min_p} and {self.margin}")
        self.stats = {"asked": 0, "proposed": 0, "failures": 0}

    def prompt_parts(self, question: str, names: Sequence[str]) -> list[tuple[str, str]]:
        """The user message of each claim as (shared prefix, claim): the fenced question, then the claim."""
        from ..models import fence

        prefix = fill(self.prompt["claim_context"], request=fence(question, "request"))
        # The name is quoted inside the claim; its own quotes become apostrophes so it cannot close the quote.
        return [(prefix, fill(self.prompt["claim"], x=" ".join(str(x).replace('"', "'").split()))) for x in names]

    def probabilities(self, question: str, names: Sequence[str]) -> np.ndarray:
        """P(the writer does not want results about the name), per name."""
        return np.asarray(self.model.true_false_probability(
            self.prompt_parts(question, names), version=self.prompt["version"] + ":claim",
            system=self.prompt.get("claim_system") or None), dtype=np.float64)

    def __call__(self, question: str, kept: Sequence[str] = ()) -> tuple[str, ...]:
        """The proposed exclusion (none or one name, as the question writes it); none when the model fails."""
        names = name_candidates(question)
        if not names:
            return ()
        try:
            p = self.probabilities(question, names)
            if p.shape != (len(names),) or not np.all(np.isfinite(p)):
                raise ValueError(f"expected {len(names)} probabilities, got {p!r}")
        except Exception as exc:  # noqa: BLE001 - a model failure costs the proposal, not the topic
            self.stats["failures"] += 1
            logger.warning("exclusion proposal failed (%s: %s); nothing proposed", type(exc).__name__, exc)
            return ()
        self.stats["asked"] += 1
        name = top_candidate(names, p, self.min_p, self.margin)
        if name is None or any(_overlaps(name, k) for k in kept):
            return ()
        self.stats["proposed"] += 1
        logger.info("exclusion %r proposed: P(not wanted) %.2f", name, float(p.max()))
        return (name,)


def top_candidate(names: Sequence[str], p: Sequence[float], min_p: float, margin: float) -> str | None:
    """The rule: the name with the highest P(not wanted) when it exceeds ``min_p`` and leads the best other name by
    ``margin``, else None.  Another name is one that shares no word with it ("Beta Marine 43" and "Beta Marine"
    are one thing, not a close second)."""
    if not len(names):
        return None
    best = int(np.argmax(p))
    name, top = names[best], float(p[best])
    second = max((float(v) for x, v in zip(names, p) if not _overlaps(x, name)), default=0.0)
    return name if top > min_p and top - second >= margin else None


def build_proposer(mode: str, rewriter: Any = None, model_factory: Callable[[], Any] | None = None,
                   min_p: float | None = None) -> ExclusionProposer | None:
    """The proposer ``--rewrite-propose MODE`` asks for, or None.

    Parameters
    ----------
    mode : str
        One of :data:`PROPOSE_MODES`: ``off`` (the CLIs' default) or ``model``.
    rewriter : Rewriter, optional
        Its ``model`` (an :class:`~logical_pyserini.rewrite.LLMRewriter`'s) is
        reused: one set of weights for every step.
    model_factory : callable, optional
        Builds the model when the rewriter has none (``--rewrite rules``); it
        raises :class:`~logical_pyserini.models.ModelNotInstalled` with the
        install command when no model is there.
    min_p : float, optional
        Overrides the prompt's threshold.
    """
    if mode not in PROPOSE_MODES:
        raise ValueError(f"unknown propose mode {mode!r}; expected one of {', '.join(PROPOSE_MODES)}")
    if mode == "off":
        return None
    return ExclusionProposer(step_model("--rewrite-propose model", rewriter, model_factory), min_p=min_p)
