"""The :class:`LanguageModel` interface every backend implements, with the shared cache logic."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence, Union

import numpy as np

from ._cache import ModelCache, cache_key

__all__ = ["Completion", "LanguageModel", "Messages", "Prompt", "as_messages"]

Messages = list[dict[str, str]]
#: A prompt is one user message (str) or a whole chat (list of {"role", "content"}).
Prompt = Union[str, Messages]


@dataclass(frozen=True)
class Completion:
    """One generated answer.

    Attributes
    ----------
    text : str
        The reply (special tokens removed).
    prompt_tokens, generated_tokens : int
        Token counts as the backend reports them (0 when served from the cache
        is *not* implied: cached answers keep their original counts).
    """

    text: str
    prompt_tokens: int = 0
    generated_tokens: int = 0


def as_messages(prompt: Prompt, system: str | None = None) -> Messages:
    """A chat for ``prompt``: a str becomes one user turn (after ``system`` when given)."""
    if isinstance(prompt, str):
        head = [{"role": "system", "content": system}] if system else []
        return head + [{"role": "user", "content": prompt}]
    return [dict(m) for m in prompt]


class LanguageModel:
    """A language model as every stage sees it.

    Subclasses implement :meth:`_generate` and :meth:`_true_false` (and may
    override :meth:`count_tokens` / :meth:`truncate`); the public methods add
    the cache and the usage counters.

    Attributes
    ----------
    id : str
        Names the model in cache keys and reports (backend + model + settings).
    cache : ModelCache
        Shared store of answers (in memory unless a path was given).
    usage : dict
        ``calls``, ``prompt_tokens`` (tokens the prompts hold),
        ``computed_tokens`` (tokens actually run through the model: shared
        prefixes count once), ``generated_tokens``, ``cache_hits``.
    """

    id: str = "model"
    # Part of every true/false cache key: a backend whose answers change (e.g. a more exact answer head)
    # bumps it, so old answers are not mixed with new ones.
    true_false_key: str = "true_false"

    def __init__(self, cache: ModelCache | None = None):
        self.cache = cache if cache is not None else ModelCache(None)
        self.usage = {"calls": 0, "prompt_tokens": 0, "computed_tokens": 0, "generated_tokens": 0,
                      "cache_hits": 0}

    # -- public API ---------------------------------------------------------
    def generate(self, prompts: Sequence[Prompt], max_new_tokens: int = 64, *, version: str = "",
                 system: str | None = None) -> list[Completion]:
        """Greedy replies to chat prompts (each a user message or a message list).

        Parameters
        ----------
        prompts : sequence
            Each a user message (str) or a list of chat messages.
        max_new_tokens : int
            Generation limit per reply.
        version : str
            The prompt's version (part of the cache key).
        system : str, optional
            System message put before str prompts.
        """
        chats = [as_messages(p, system) for p in prompts]
        keys = [cache_key(self.id, version, f"generate:{max_new_tokens}", c) for c in chats]
        out: list[Completion | None] = []
        for key in keys:
            value = self.cache.get(key)
            out.append(Completion(**value) if value is not None else None)
        todo = [i for i, c in enumerate(out) if c is None]
        self.usage["cache_hits"] += len(chats) - len(todo)
        if todo:
            fresh = self._generate([chats[i] for i in todo], max_new_tokens)
            for i, completion in zip(todo, fresh):
                out[i] = completion
                self.usage["prompt_tokens"] += completion.prompt_tokens
                self.usage["computed_tokens"] += completion.prompt_tokens + completion.generated_tokens
                self.usage["generated_tokens"] += completion.generated_tokens
            self.usage["calls"] += len(todo)
            self.cache.put_many([(keys[i], out[i].__dict__) for i in todo], self.id, version, "generate")
        return out  # type: ignore[return-value]

    def chat(self, messages: Messages, max_new_tokens: int = 256, *, version: str = "") -> str:
        """The reply to one chat, stripped."""
        return self.generate([messages], max_new_tokens, version=version)[0].text.strip()

    def true_false_probability(self, pairs: Sequence[tuple[str, str]], *, version: str = "",
                               system: str | None = None) -> np.ndarray:
        """P(True) renormalised over {True, False} as the reply's first token.

        Parameters
        ----------
        pairs : sequence of (prefix, suffix)
            The user message of each prompt, split where prompts start to
            differ: pairs with the same prefix (a document) share its encoding
            (key/value cache reuse in the local backend).  No text is decoded:
            one forward pass per prompt.
        version : str
            The prompt's version (part of the cache key).
        system : str, optional
            A system message before the user message.

        Returns
        -------
        numpy.ndarray
            ``(len(pairs),)`` float64 in [0, 1].
        """
        keys = [cache_key(self.id, version, self.true_false_key, [system or "", pre, suf]) for pre, suf in pairs]
        out = np.full(len(pairs), np.nan)
        todo = []
        for i, key in enumerate(keys):
            value = self.cache.get(key)
            if value is None:
                todo.append(i)
            else:
                out[i] = float(value)
        self.usage["cache_hits"] += len(pairs) - len(todo)
        if todo:
            values = np.asarray(self._true_false([pairs[i] for i in todo], system), dtype=np.float64)
            if values.shape != (len(todo),) or not np.all((values >= 0) & (values <= 1)):
                from ._errors import ModelError

                raise ModelError(f"{self.id}: true/false probabilities out of [0, 1] or of the wrong shape")
            out[todo] = values
            self.usage["calls"] += len(todo)
            self.cache.put_many([(keys[i], float(out[i])) for i in todo], self.id, version, "true_false")
        return out

    def render(self, messages: Messages) -> str:
        """The prompt text the model reads for ``messages`` (its chat template when it has one)."""
        parts = [f"{m['role'].capitalize()}: {m['content']}" for m in messages]
        return "\n\n".join(parts + ["Assistant:"])

    def count_tokens(self, text: str) -> int:
        """Tokens in ``text`` (whitespace words unless the backend has a tokenizer)."""
        return len(text.split())

    def truncate(self, text: str, max_tokens: int) -> str:
        """``text`` cut to at most ``max_tokens`` tokens."""
        words = text.split()
        return text if len(words) <= max_tokens else " ".join(words[:max_tokens])

    # -- backend hooks ------------------------------------------------------
    def _generate(self, chats: list[Messages], max_new_tokens: int) -> list[Completion]:
        raise NotImplementedError

    def _true_false(self, pairs: list[tuple[str, str]], system: str | None) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.id!r})"
