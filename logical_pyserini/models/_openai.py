"""OpenAI-compatible server backend (vLLM, llama.cpp server, OpenAI): N requests in flight.

* ``generate`` -> ``/chat/completions`` (the server applies the chat template).
* ``true_false_probability`` -> ``/completions`` with ``max_tokens=1`` and
  ``logprobs``: P(True) renormalised over {True, False} from the first
  position's top logprobs.  Completions endpoints take plain text, so the chat
  is rendered as ``System: ... User: ... Assistant:``.

``concurrency`` requests run at once (a thread pool), so a pool of vLLM
replicas behind one URL serves large runs; each request carries at most
``batch_size`` prompts.
"""

from __future__ import annotations

import json
import math
import os
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from ._base import Completion, LanguageModel, Messages, as_messages
from ._cache import ModelCache
from ._errors import ModelError

__all__ = ["OpenAIModel", "answer_probability"]

DEFAULT_BASE_URL = "http://127.0.0.1:8000/v1"
_RETRY_STATUS = (429, 500, 502, 503, 504)


def answer_probability(top_logprobs: dict[str, float]) -> float | None:
    """P(True) renormalised over {True, False} from one position's top logprobs.

    Tokens are compared after stripping whitespace, so "True" and " True" both
    count (their probabilities add).  When only one answer is listed, the
    other's logprob is at most the smallest listed one; that bound is used.
    None when neither answer is listed.
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


class OpenAIModel(LanguageModel):
    """A model served over the OpenAI HTTP API.

    Parameters
    ----------
    model : str
        Model name as served.
    base_url : str, optional
        API root (default ``$OPENAI_BASE_URL`` or ``http://127.0.0.1:8000/v1``).
    api_key : str, optional
        Bearer token (default ``$OPENAI_API_KEY``; local servers accept none).
    concurrency : int
        Requests in flight at once.
    batch_size : int
        Prompts per ``/completions`` request.
    top_logprobs : int
        Alternatives per position (OpenAI allows 5, vLLM up to 20).
    timeout : float
        Seconds per HTTP request.
    retries : int
        Extra attempts on connection errors, timeouts, 429 and 5xx (with backoff).
    cache : ModelCache, optional
        Shared answer store.
    """

    def __init__(self, model: str, *, base_url: str | None = None, api_key: str | None = None,
                 concurrency: int = 4, batch_size: int = 16, top_logprobs: int = 5, timeout: float = 60.0,
                 retries: int = 2, cache: ModelCache | None = None):
        super().__init__(cache)
        if not model:
            raise ValueError("openai: needs a model name (openai:NAME)")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_BASE_URL).rstrip("/")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base URL must start with http:// or https://, got {self.base_url!r}")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.concurrency = max(1, int(concurrency))
        self.batch_size = max(1, int(batch_size))
        self.top_logprobs = int(top_logprobs)
        self.timeout = float(timeout)
        self.retries = max(0, int(retries))
        # The endpoint is part of the identity: one model name can be served differently.
        self.id = f"openai:{model}@{self.base_url}"
        self.unanswered = 0

    def _post(self, route: str, payload: dict[str, Any]) -> dict[str, Any]:
        url = f"{self.base_url}/{route}"
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(payload).encode("utf-8")
        for attempt in range(self.retries + 1):
            try:
                request = urllib.request.Request(url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read(300).decode("utf-8", "replace")
                if exc.code in _RETRY_STATUS and attempt < self.retries:
                    time.sleep(0.5 * 2**attempt)
                    continue
                raise ModelError(f"{url}: HTTP {exc.code}: {detail}") from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                if attempt < self.retries:
                    time.sleep(0.5 * 2**attempt)
                    continue
                raise ModelError(f"{url} unreachable: {exc}") from None
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ModelError(f"{url}: response is not JSON ({exc})") from None
        raise ModelError(f"{url}: no answer")  # pragma: no cover - the loop returns or raises

    def _map(self, fn, items: list) -> list:
        if self.concurrency == 1 or len(items) < 2:
            return [fn(x) for x in items]
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(items))) as pool:
            return list(pool.map(fn, items))

    # -- generation -----------------------------------------------------------
    def _chat_one(self, messages: Messages, max_new_tokens: int) -> Completion:
        data = self._post("chat/completions", {"model": self.model, "messages": messages, "temperature": 0,
                                               "max_tokens": max_new_tokens})
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise ModelError(f"{self.base_url}: unexpected chat response shape") from None
        if not isinstance(content, str):
            raise ModelError(f"{self.base_url}: chat response content is not text")
        usage = data.get("usage") or {}
        return Completion(content, int(usage.get("prompt_tokens", 0) or 0),
                          int(usage.get("completion_tokens", 0) or 0))

    def _generate(self, chats: list[Messages], max_new_tokens: int) -> list[Completion]:
        return self._map(lambda c: self._chat_one(c, max_new_tokens), chats)

    # -- plausibilities -------------------------------------------------------
    def _first_token_logprobs(self, prompts: list[str]) -> list[dict[str, float]]:
        data = self._post("completions", {"model": self.model, "prompt": prompts, "max_tokens": 1,
                                          "temperature": 0, "logprobs": self.top_logprobs})
        choices = data.get("choices")
        if not isinstance(choices, list) or len(choices) != len(prompts):
            raise ModelError(f"{self.base_url}: {len(choices) if isinstance(choices, list) else 'no'} choices "
                             f"for {len(prompts)} prompts")
        out = []
        for choice in sorted(choices, key=lambda c: c.get("index", 0) if isinstance(c, dict) else 0):
            logprobs = (choice.get("logprobs") if isinstance(choice, dict) else None) or {}
            tops = logprobs.get("top_logprobs") if isinstance(logprobs, dict) else None
            top = tops[0] if isinstance(tops, list) and tops else None
            if not isinstance(top, dict) or not top or not all(
                    isinstance(v, (int, float)) and math.isfinite(v) for v in top.values()):
                raise ModelError(f"{self.base_url} returned no usable logprobs for model {self.model!r}; "
                                 "true/false scoring needs a completions endpoint serving logprobs (e.g. vLLM)")
            top = dict(top)
            tokens, values = logprobs.get("tokens") or [], logprobs.get("token_logprobs") or []
            if tokens and values and isinstance(values[0], (int, float)):
                top.setdefault(tokens[0], float(values[0]))  # the chosen token may sit outside top-k
            out.append(top)
        usage = data.get("usage") or {}
        n = int(usage.get("prompt_tokens", 0) or 0)
        self.usage["prompt_tokens"] += n
        self.usage["computed_tokens"] += n
        return out

    def _true_false(self, pairs: list[tuple[str, str]], system: str | None) -> np.ndarray:
        prompts = [self.render(as_messages(pre + suf, system)) for pre, suf in pairs]
        batches = [prompts[s : s + self.batch_size] for s in range(0, len(prompts), self.batch_size)]
        tops = [top for batch in self._map(self._first_token_logprobs, batches) for top in batch]
        out = np.empty(len(prompts))
        for i, top in enumerate(tops):
            p = answer_probability(top)
            if p is None:
                self.unanswered += 1
                p = 0.5  # neither answer in the top-k: no evidence either way
            out[i] = p
        return out

    def embed(self, texts: list[str]) -> np.ndarray:
        """``(len(texts), d)`` float32 embeddings from the server's ``/embeddings`` route, in input order.

        For dense query encoders over an OpenAI-compatible server (vLLM, text-embeddings-inference,
        hosted APIs).  Not cached here: the dense leaf scorer keeps each leaf's vector.
        """
        texts = list(texts)
        batches = [texts[s : s + self.batch_size] for s in range(0, len(texts), self.batch_size)]

        def one(batch: list[str]) -> list[list[float]]:
            reply = self._post("embeddings", {"model": self.model, "input": batch})
            try:
                rows = sorted(reply["data"], key=lambda r: r["index"])
                vectors = [[float(x) for x in r["embedding"]] for r in rows]
            except (KeyError, TypeError, ValueError):
                raise ModelError(f"{self.base_url}: unexpected embeddings response shape") from None
            if len(vectors) != len(batch) or len({len(v) for v in vectors}) > 1:
                raise ModelError(f"{self.base_url}: {len(vectors)} embeddings of mixed or wrong count for "
                                 f"{len(batch)} inputs")
            return vectors

        rows = [v for batch in self._map(one, batches) for v in batch]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), -1)
