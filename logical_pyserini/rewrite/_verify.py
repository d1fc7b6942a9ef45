"""A model reads the question and vetoes the guard's exclusions that only describe the asker's situation.

The guard keeps a NOT when the question's own cues confirm it, and its cue
lists are hand-written: on phrasings they were not written for, some kept NOTs
are words of the asker's situation ("my kitten won't eat wet food" -> ``NOT
"wet food"``), and such a NOT ranks the answers below plain BM25.  The
:class:`ExclusionVerifier` asks a language model, from one forward pass per
exclusion (the question is the prefix all of them share), whether the excluded
words are part of the asker's own situation or problem rather than something
they reject; an exclusion it judges so with probability above
``max_situation`` is dropped.  A veto can only move the rewrite toward plain
search (the question as the positive leaf), never below it; a model failure
keeps the guard's decision and is logged.
"""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

import numpy as np

from ..prompts import fill, load_prompt

__all__ = ["ExclusionVerifier", "VERIFY_MODES", "build_verifier"]

logger = logging.getLogger(__name__)

#: ``--rewrite-verify`` values: no check (the default), or the language model checks the guard's exclusions.
VERIFY_MODES = ("off", "model")


class ExclusionVerifier:
    """Keep flags for a question's exclusions, judged by a language model.

    Parameters
    ----------
    model : LanguageModel
        From :func:`logical_pyserini.models.get_model`.
    prompt : dict, optional
        The ``verify`` prompt (default: the bundled one); its
        ``max_situation`` is the veto threshold measured for its wording.
    max_situation : float, optional
        Overrides the prompt's threshold: an exclusion whose P(situation)
        exceeds it is vetoed (1.0 vetoes nothing).

    Attributes
    ----------
    stats : dict
        ``judged`` exclusions, ``vetoed`` ones, ``failures`` (model errors:
        the guard's decision was kept).
    """

    def __init__(self, model: Any, prompt: dict | None = None, max_situation: float | None = None):
        if not callable(getattr(model, "true_false_probability", None)):
            raise TypeError(f"{type(model).__name__} is not a language model (no true_false_probability)")
        self.model = model
        self.prompt = prompt or load_prompt("verify")
        self.max_situation = float(self.prompt["max_situation"] if max_situation is None else max_situation)
        if not 0.0 <= self.max_situation <= 1.0:
            raise ValueError(f"max_situation must lie in [0, 1], got {self.max_situation}")
        self.stats = {"judged": 0, "vetoed": 0, "failures": 0}

    def prompt_parts(self, question: str, exclusions: Sequence[str]) -> list[tuple[str, str]]:
        """The user message of each judgement as (shared prefix, claim): the fenced question, then the claim."""
        from ..models import fence

        prefix = fill(self.prompt["context"], request=fence(question, "request"))
        # The exclusion is quoted inside the claim; its own quotes become apostrophes so it cannot close the quote.
        return [(prefix, fill(self.prompt["claim"], x=" ".join(str(x).replace('"', "'").split()))) for x in exclusions]

    def situation_probability(self, question: str, exclusions: Sequence[str]) -> np.ndarray:
        """P(the excluded words are part of the asker's situation, not something rejected), per exclusion."""
        return self.model.true_false_probability(self.prompt_parts(question, exclusions),
                                                 version=self.prompt["version"],
                                                 system=self.prompt.get("system") or None)

    def __call__(self, question: str, exclusions: Sequence[str]) -> list[bool]:
        """Keep flags, one per exclusion; all True when the model fails (logged)."""
        if not exclusions:
            return []
        try:
            p = np.asarray(self.situation_probability(question, exclusions), dtype=np.float64)
            if p.shape != (len(exclusions),) or not np.all(np.isfinite(p)):
                raise ValueError(f"expected {len(exclusions)} probabilities, got {p!r}")
        except Exception as exc:  # noqa: BLE001 - a model failure costs the check, not the topic
            self.stats["failures"] += 1
            logger.warning("exclusion check failed (%s: %s); the guard's exclusions are kept", type(exc).__name__, exc)
            return [True] * len(exclusions)
        keep = [bool(v <= self.max_situation) for v in p]
        self.stats["judged"] += len(keep)
        self.stats["vetoed"] += keep.count(False)
        for x, v, k in zip(exclusions, p, keep):
            if not k:
                logger.info("exclusion %r vetoed: P(situation) %.2f > %.2f", x, v, self.max_situation)
        return keep


def build_verifier(mode: str, rewriter: Any = None, model_factory: Callable[[], Any] | None = None,
                   max_situation: float | None = None) -> ExclusionVerifier | None:
    """The verifier ``--rewrite-verify MODE`` asks for, or None.

    Parameters
    ----------
    mode : str
        One of :data:`VERIFY_MODES`: ``off`` (the CLIs' default) or ``model``.
    rewriter : Rewriter, optional
        Its ``model`` (an :class:`~logical_pyserini.rewrite.LLMRewriter`'s) is
        reused: one set of weights for both steps.
    model_factory : callable, optional
        Builds the model when the rewriter has none (``--rewrite rules``); it
        raises :class:`~logical_pyserini.models.ModelNotInstalled` with the
        install command when no model is there.
    max_situation : float, optional
        Overrides the prompt's threshold.
    """
    if mode not in VERIFY_MODES:
        raise ValueError(f"unknown verify mode {mode!r}; expected one of {', '.join(VERIFY_MODES)}")
    if mode == "off":
        return None
    return ExclusionVerifier(step_model("--rewrite-verify model", rewriter, model_factory), max_situation=max_situation)


def step_model(flag: str, rewriter: Any = None, model_factory: Callable[[], Any] | None = None) -> Any:
    """The language model of an opt-in model step of the guard (``flag`` names it in the error): the rewriter's own
    (an :class:`~logical_pyserini.rewrite.LLMRewriter`'s, one set of weights for every step), else the factory's."""
    model = getattr(rewriter, "model", None)
    if model is None:
        if model_factory is None:
            raise ValueError(f"{flag} needs a language model (--model)")
        model = model_factory()
    return model
