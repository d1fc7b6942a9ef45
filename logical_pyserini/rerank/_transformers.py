"""Plausibilities from a local transformers causal LM: P(True) from one forward pass."""

from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np

from ..prompts import load_prompt
from ._hf import CausalLM, load_causal_lm, single_token_ids
from ._oracle import Entity, Oracle, OracleError, valuation_parts

__all__ = ["TransformersOracle", "true_false_probability"]


def true_false_probability(logits, true_ids: Sequence[int], false_ids: Sequence[int]) -> np.ndarray:
    """Softmax over {True, False} of next-token logits ``(n, vocab)``.

    Each answer's logit is the logsumexp over its single-token spellings
    ("True" and " True" are different tokens in BPE vocabularies), so the
    probability mass of both spellings counts.
    """
    import torch

    z_true = torch.logsumexp(logits[:, list(true_ids)].double(), dim=-1)
    z_false = torch.logsumexp(logits[:, list(false_ids)].double(), dim=-1)
    return torch.sigmoid(z_true - z_false).numpy()  # = exp(zT) / (exp(zT) + exp(zF))


class TransformersOracle(Oracle):
    """Truth-valuation prompt -> one forward pass -> softmax over the True/False logits.

    Parameters
    ----------
    model : str, CausalLM or transformers model
        A local model directory, a ``.gguf`` file, a :class:`CausalLM`, or a
        loaded ``*ForCausalLM`` (then ``tokenizer`` is required).
    gguf_file : str, optional
        GGUF file name inside the ``model`` directory.
    tokenizer : optional
        Tokenizer for an already loaded model.
    device, dtype : str, optional
        Torch device and weight dtype when loading (see :func:`load_causal_lm`).
    batch_size : int
        Most (entity, predicate) pairs per forward pass.
    shared_prefix : bool
        Encode each entity's context once and reuse its key/value cache for
        all its predicates (default); False runs every prompt in full.
    chat : bool, optional
        Wrap prompts in the chat template (default: when the tokenizer has one).

    Raises
    ------
    OracleError
        If the tokenizer has no single token for "True" or for "False".
    """

    def __init__(self, model: Any, gguf_file: str | None = None, *, tokenizer: Any = None, device: str = "cpu",
                 dtype: str | None = None, batch_size: int = 16, shared_prefix: bool = True,
                 chat: bool | None = None, prompt: dict | None = None):
        super().__init__()
        if isinstance(model, CausalLM):
            self.lm = model
        elif isinstance(model, (str, os.PathLike)):
            self.lm = load_causal_lm(model, gguf_file, device=device, dtype=dtype)
            if chat is not None:
                self.lm = CausalLM(self.lm.model, self.lm.tokenizer, self.lm.name, self.lm.device, chat)
        else:
            if tokenizer is None:
                raise ValueError("a loaded model needs its tokenizer")
            name = getattr(getattr(model, "config", None), "_name_or_path", "") or type(model).__name__
            self.lm = CausalLM(model, tokenizer, name=name, chat=chat)
        self.true_ids = single_token_ids(self.lm.tokenizer, "True")
        self.false_ids = single_token_ids(self.lm.tokenizer, "False")
        if not self.true_ids or not self.false_ids:
            missing = [w for w, ids in (("True", self.true_ids), ("False", self.false_ids)) if not ids]
            raise OracleError(f"tokenizer of {self.lm.name} has no single token for {' / '.join(missing)}; "
                              "plausibilities need one next-token logit per answer")
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size
        self.shared_prefix = shared_prefix
        self.prompt = prompt or load_prompt("orlog")
        self.prompt_version = str(self.prompt["version"])
        self.id = f"hf:{self.lm.name}:{'chat' if self.lm.chat else 'plain'}"

    def truncate(self, text: str, max_tokens: int) -> str:
        return self.lm.truncate(text, max_tokens)

    def plausibilities(self, pairs: Sequence[tuple[Entity, str]]) -> np.ndarray:
        """P(True) per (entity, statement) pair, in input order."""
        out = np.empty(len(pairs), dtype=np.float64)
        groups: dict[Entity, list[int]] = {}
        for i, (entity, _) in enumerate(pairs):
            groups.setdefault(entity, []).append(i)
        chunk: list[tuple[Entity, list[int]]] = []
        size = 0
        for entity, rows in groups.items():
            # Whole entities per chunk, so every prefix is encoded exactly once.
            if chunk and size + len(rows) > self.batch_size:
                self._run(chunk, pairs, out)
                chunk, size = [], 0
            chunk.append((entity, rows))
            size += len(rows)
        if chunk:
            self._run(chunk, pairs, out)
        return out

    def _run(self, chunk: list[tuple[Entity, list[int]]], pairs, out: np.ndarray) -> None:
        prefixes, suffixes, order = [], [], []
        prompt_tokens = 0
        for entity, rows in chunk:
            encoded = [self.lm.encode_parts(*valuation_parts(entity, pairs[r][1], self.prompt)) for r in rows]
            prefixes.append(encoded[0][0])
            suffixes.append([suf for _, suf in encoded])
            order.extend(rows)
            prompt_tokens += sum(len(pre) + len(suf) for pre, suf in encoded)
        if self.shared_prefix:
            logits = self.lm.shared_prefix_logits(prefixes, suffixes)
            computed = sum(len(p) for p in prefixes) + sum(len(s) for group in suffixes for s in group)
        else:
            logits = self.lm.last_logits([p + s for p, group in zip(prefixes, suffixes) for s in group])
            computed = prompt_tokens
        out[order] = true_false_probability(logits, self.true_ids, self.false_ids)
        self._count(pairs=len(order), prompt_tokens=prompt_tokens, computed_tokens=computed)

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 64) -> list[tuple[str, int, int]]:
        """Greedy generation (for the LLM-as-reasoner baseline)."""
        return self.lm.generate(prompts, max_new_tokens)
