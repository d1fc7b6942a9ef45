"""The LLM oracle: P(True) of each (document, predicate) pair from one forward pass of a language model."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from ..prompts import load_prompt
from ._base import DEFAULT_LIFT, TIE_SPREAD
from ._oracle import Entity, Oracle, OracleError, valuation_parts

__all__ = ["LLMOracle"]


class LLMOracle(Oracle):
    """Plausibilities from :meth:`LanguageModel.true_false_probability`.

    Each prompt is a chat: a system line, then the user message split into a
    prefix (the fenced document, the entity and the instruction) shared by all
    of that document's predicates, and a suffix (``Claim: ...``).  The local
    backend encodes the prefix once and reuses its key/value cache for every
    claim (batched, bf16); a server backend sends the prompts with logprobs.
    Answers are cached by the model layer (model id + prompt version + prompt).

    Parameters
    ----------
    model : LanguageModel
        From :func:`logical_pyserini.models.get_model`.
    prompt : dict, optional
        The ``orlog`` prompt (default: the bundled one).
    """

    lift = DEFAULT_LIFT  # measured in eval/results/synthetic_llm.md
    tie_spread = TIE_SPREAD  # measured in eval/results/fusion.md

    def __init__(self, model: Any, prompt: dict | None = None):
        super().__init__()
        if not callable(getattr(model, "true_false_probability", None)):
            raise OracleError(f"{type(model).__name__} is not a language model (no true_false_probability)")
        self.model = model
        self.prompt = prompt or load_prompt("orlog")
        self.prompt_version = str(self.prompt["version"])
        self.system = self.prompt["valuation"].get("system") or None
        self.id = f"llm:{model.id}"

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.model.truncate(text, max_tokens)

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        parts = [valuation_parts(entity, statement, self.prompt) for entity, statement in pairs]
        before = dict(self.model.usage)
        try:
            values = self.model.true_false_probability(parts, version=self.prompt_version, system=self.system)
        except Exception as exc:  # noqa: BLE001 - surfaced as an oracle failure: the reranker keeps the base run
            raise OracleError(f"{self.model.id}: {exc}") from exc
        after = self.model.usage
        self._count(pairs=len(pairs), prompt_tokens=after["prompt_tokens"] - before["prompt_tokens"],
                    computed_tokens=after["computed_tokens"] - before["computed_tokens"])
        return np.asarray(values, dtype=np.float64)

    def generate(self, prompts: Sequence[Any], max_new_tokens: int = 64, **kwargs: Any):
        """Greedy replies (for the LLM-as-reasoner baselines): the model's :class:`Completion` objects."""
        return self.model.generate(prompts, max_new_tokens, **kwargs)
