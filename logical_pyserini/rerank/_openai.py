"""Plausibilities from an OpenAI-compatible *completions* endpoint with logprobs (e.g. vLLM)."""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from typing import Any, Sequence

import numpy as np

from ..prompts import load_prompt
from ._oracle import Entity, Oracle, OracleError, valuation_parts

__all__ = ["OpenAIOracle", "answer_probability"]

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"


def answer_probability(top_logprobs: dict[str, float]) -> float | None:
    """P(True) renormalised over {True, False} from one position's top logprobs.

    Tokens are compared after stripping whitespace, so "True" and " True"
    both count (their probabilities are added).  When only one answer is in
    the top-k, the other's logprob is at most the smallest listed one; that
    bound is used as its value.  None when neither answer is listed.
    """
    true = [lp for tok, lp in top_logprobs.items() if tok.strip() == "True"]
    false = [lp for tok, lp in top_logprobs.items() if tok.strip() == "False"]
    if not true and not false:
        return None
    floor = min(top_logprobs.values())
    z_true = _logsumexp(true) if true else floor
    z_false = _logsumexp(false) if false else floor
    return 1.0 / (1.0 + math.exp(z_false - z_true))


def _logsumexp(values: list[float]) -> float:
    top = max(values)
    return top + math.log(sum(math.exp(v - top) for v in values))


class OpenAIOracle(Oracle):
    """P(True) from the first-token logprobs of a completions endpoint.

    One request per batch of prompts (``max_tokens=1``, ``temperature=0``,
    ``logprobs=top_logprobs``).  Prompts are plain text: completions
    endpoints do not apply chat templates.

    Parameters
    ----------
    model : str
        Model name as served.
    base_url : str, optional
        API root (default ``$OPENAI_BASE_URL`` or ``http://127.0.0.1:8000/v1``).
    api_key : str, optional
        Bearer token (default ``$OPENAI_API_KEY``; vLLM accepts any).
    top_logprobs : int
        Alternatives per position (OpenAI allows 5, vLLM up to 20).
    timeout : float
        Seconds per HTTP request.
    check : bool
        Send one probe request now and fail here if the endpoint is down or
        returns no logprobs.

    Raises
    ------
    OracleError
        For an unreachable endpoint, an HTTP error, or a response without
        logprobs (at construction when ``check``, else on the first call).
    """

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None,
                 top_logprobs: int = 5, timeout: float = 60.0, batch_size: int = 16, check: bool = True,
                 prompt: dict | None = None):
        super().__init__()
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.top_logprobs = int(top_logprobs)
        self.timeout = float(timeout)
        self.batch_size = int(batch_size)
        self.prompt = prompt or load_prompt("orlog")
        self.prompt_version = str(self.prompt["version"])
        self.id = f"openai:{model}@{self.base_url}"
        self.usage["unanswered"] = 0
        if check:
            self._first_token_logprobs(["Claim: water is wet.\nTrue or False?\nAnswer:"])

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.base_url}/completions", data=json.dumps(payload).encode("utf-8"), method="POST",
            headers={"Content-Type": "application/json",
                     **({"Authorization": f"Bearer {self.api_key}"} if self.api_key else {})})
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read().decode("utf-8"))
        except urllib.error.HTTPError as exc:
            body = exc.read().decode("utf-8", "replace")[:300]
            raise OracleError(f"{self.base_url}/completions: HTTP {exc.code}: {body}") from None
        except (urllib.error.URLError, TimeoutError, OSError) as exc:
            raise OracleError(f"{self.base_url}/completions unreachable: {exc}") from None
        except json.JSONDecodeError as exc:
            raise OracleError(f"{self.base_url}/completions: response is not JSON ({exc})") from None

    def _first_token_logprobs(self, prompts: list[str]) -> list[dict[str, float]]:
        data = self._post({"model": self.model, "prompt": prompts, "max_tokens": 1, "temperature": 0,
                           "logprobs": self.top_logprobs})
        choices = sorted(data.get("choices") or [], key=lambda c: c.get("index", 0))
        if len(choices) != len(prompts):
            raise OracleError(f"{self.base_url}: {len(choices)} choices for {len(prompts)} prompts")
        out = []
        for choice in choices:
            logprobs = choice.get("logprobs") or {}
            top = (logprobs.get("top_logprobs") or [None])[0]
            if not top:
                raise OracleError(f"{self.base_url} returned no logprobs for model {self.model!r}; OrLog needs "
                                  "a completions endpoint that serves logprobs (e.g. vLLM)")
            top = dict(top)
            tokens, values = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
            if tokens and values and values[0] is not None:
                top.setdefault(tokens[0], values[0])  # the chosen token may sit outside top-k
            out.append(top)
        usage = data.get("usage") or {}
        self._count(prompt_tokens=usage.get("prompt_tokens", 0), computed_tokens=usage.get("prompt_tokens", 0))
        return out

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        prompts = ["".join(valuation_parts(entity, statement, self.prompt)) for entity, statement in pairs]
        out = np.empty(len(prompts), dtype=np.float64)
        for start in range(0, len(prompts), self.batch_size):
            tops = self._first_token_logprobs(prompts[start : start + self.batch_size])
            for offset, top in enumerate(tops):
                p = answer_probability(top)
                if p is None:
                    self.usage["unanswered"] += 1
                    p = 0.5  # neither answer in the top-k: no evidence either way
                out[start + offset] = p
        self._count(pairs=len(prompts))
        return out

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 64) -> list[tuple[str, int, int]]:
        """Greedy completions, one request per prompt so token usage is per prompt."""
        results = []
        for prompt in prompts:
            data = self._post({"model": self.model, "prompt": prompt, "max_tokens": max_new_tokens,
                               "temperature": 0})
            choices = data.get("choices") or [{}]
            usage = data.get("usage") or {}
            results.append((str(choices[0].get("text", "")), int(usage.get("prompt_tokens", 0)),
                            int(usage.get("completion_tokens", 0))))
        return results
