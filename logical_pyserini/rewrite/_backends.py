"""Chat backends: a local transformers causal LM, or an OpenAI-compatible endpoint.

A backend turns a list of chat messages into the model's reply text.  Both
decode greedily (temperature 0) so a rewrite is a function of model, prompt
and question, which is what makes the on-disk cache sound.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

__all__ = ["BackendError", "ChatBackend", "HFBackend", "OpenAIBackend"]

log = logging.getLogger(__name__)

Messages = list[dict[str, str]]


class BackendError(RuntimeError):
    """The model could not be asked (network, HTTP error, malformed response)."""


@runtime_checkable
class ChatBackend(Protocol):
    #: Names the model in cache keys and reports.
    model_id: str

    def chat(self, messages: Messages) -> str: ...


class HFBackend:
    """Greedy generation with a Hugging Face causal LM.

    Parameters
    ----------
    path : str or Path, optional
        A model folder, or a ``.gguf`` file (loaded through transformers'
        GGUF support, dequantised, which needs the ``gguf`` package).
    model, tokenizer : optional
        Already loaded objects (tests build tiny ones in memory); used instead of ``path``.
    max_new_tokens : int
        Generation limit per reply.
    dtype : str, optional
        E.g. ``"bfloat16"``; the checkpoint's default when None.
    model_id : str, optional
        Cache key name; ``hf:<folder or file name>`` by default.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        *,
        model: Any = None,
        tokenizer: Any = None,
        max_new_tokens: int = 128,
        dtype: str | None = None,
        model_id: str | None = None,
    ):
        if (model is None) != (tokenizer is None):
            raise ValueError("pass both model and tokenizer, or a path")
        if model is None:
            if path is None:
                raise ValueError("HFBackend needs a model path or a model and tokenizer")
            model, tokenizer = self._load(Path(path), dtype)
            model_id = model_id or f"hf:{Path(path).name}"
        self.model, self.tokenizer = model, tokenizer
        self.max_new_tokens = int(max_new_tokens)
        self.model_id = model_id or f"hf:{type(model).__name__}"
        self.calls = 0

    @staticmethod
    def _load(path: Path, dtype: str | None):
        # Imported here: transformers/torch take seconds and only this backend needs them.
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not path.exists():
            raise FileNotFoundError(f"model path not found: {path}")
        kwargs: dict[str, Any] = {}
        if path.is_file():
            if path.suffix.lower() != ".gguf":
                raise ValueError(f"{path} is a file but not a .gguf model")
            folder, kwargs["gguf_file"] = path.parent, path.name
        else:
            folder = path
        if dtype:
            kwargs["dtype"] = dtype
        log.info("loading %s", path)
        tokenizer = AutoTokenizer.from_pretrained(folder, **({"gguf_file": kwargs["gguf_file"]} if "gguf_file" in kwargs else {}))
        model = AutoModelForCausalLM.from_pretrained(folder, **kwargs)
        model.eval()
        return model, tokenizer

    def render(self, messages: Messages) -> str:
        """The prompt text: the tokenizer's chat template when it has one."""
        if getattr(self.tokenizer, "chat_template", None):
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        parts = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        return "\n\n".join(parts + ["Assistant:"])

    def chat(self, messages: Messages) -> str:
        import torch

        templated = bool(getattr(self.tokenizer, "chat_template", None))
        # A chat template already writes the special tokens it wants.
        enc = self.tokenizer(self.render(messages), return_tensors="pt", add_special_tokens=not templated)
        enc = {k: v for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        pad = self.tokenizer.pad_token_id if self.tokenizer.pad_token_id is not None else self.tokenizer.eos_token_id
        self.calls += 1
        with torch.no_grad():
            out = self.model.generate(
                **enc, max_new_tokens=self.max_new_tokens, do_sample=False, pad_token_id=pad
            )
        new = out[0, enc["input_ids"].shape[1] :]
        return self.tokenizer.decode(new, skip_special_tokens=True).strip()


class OpenAIBackend:
    """An OpenAI-compatible ``/chat/completions`` endpoint over plain HTTP.

    Parameters
    ----------
    model : str
        Model name sent to the endpoint.
    base_url : str, optional
        E.g. ``http://localhost:8000/v1``; ``$OPENAI_BASE_URL``, else OpenAI's.
    api_key : str, optional
        ``$OPENAI_API_KEY`` when None; may be empty for local servers.
    timeout : float
        Seconds per HTTP request.
    max_tokens : int
        Generation limit per reply.
    retries : int
        Extra attempts on connection errors, 429 and 5xx (with backoff).
    """

    DEFAULT_BASE_URL = "https://api.openai.com/v1"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60.0,
        max_tokens: int = 256,
        retries: int = 2,
    ):
        if not model:
            raise ValueError("OpenAIBackend needs a model name")
        self.model = model
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or self.DEFAULT_BASE_URL).rstrip("/")
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base URL must start with http:// or https://, got {self.base_url!r}")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        if not self.api_key and self.base_url == self.DEFAULT_BASE_URL:
            raise ValueError("no API key: pass --api-key or set OPENAI_API_KEY (or use --base-url for a local server)")
        self.timeout, self.max_tokens, self.retries = float(timeout), int(max_tokens), int(retries)
        # The endpoint is part of the identity: one model name can be served differently.
        self.model_id = f"openai:{model}@{self.base_url}"
        self.calls = 0

    def chat(self, messages: Messages) -> str:
        body = json.dumps(
            {"model": self.model, "messages": messages, "temperature": 0, "max_tokens": self.max_tokens}
        ).encode("utf-8")
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(f"{self.base_url}/chat/completions", data=body, headers=headers, method="POST")
        self.calls += 1
        for attempt in range(self.retries + 1):
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as resp:
                    payload = json.loads(resp.read().decode("utf-8"))
                break
            except urllib.error.HTTPError as exc:
                detail = exc.read(300).decode("utf-8", "replace")
                if exc.code in (429, 500, 502, 503, 504) and attempt < self.retries:
                    time.sleep(2**attempt)
                    continue
                raise BackendError(f"HTTP {exc.code} from {self.base_url}: {detail}") from None
            except (urllib.error.URLError, socket.timeout, TimeoutError, ConnectionError) as exc:
                if attempt < self.retries:
                    time.sleep(2**attempt)
                    continue
                raise BackendError(f"cannot reach {self.base_url}: {exc}") from None
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise BackendError(f"malformed response from {self.base_url}: {exc}") from None
        try:
            content = payload["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise BackendError(f"unexpected response shape from {self.base_url}") from None
        if not isinstance(content, str):
            raise BackendError("response content is not text")
        return content.strip()
