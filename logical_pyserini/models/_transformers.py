"""Local transformers backend: a causal LM folder (safetensors) or a model already in memory.

Scoring is decoding-free: P(True) comes from the next-token logits of one
forward pass.  Prompts that share a prefix (one document, several predicates)
encode it once and reuse its key/value cache; batches are left-padded with
position ids that skip the pads, so a batched row equals its unbatched self.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from ._base import Completion, LanguageModel, Messages
from ._cache import ModelCache
from ._errors import ModelError

__all__ = ["TransformersModel", "default_device", "single_token_ids"]

logger = logging.getLogger("logical_pyserini.models")

# Marks where the user message goes in a chat template (never seen in real text).
_SLOT = "\u2063LP-SLOT\u2063"


def default_device() -> str:
    """``cuda`` when a GPU is visible, else ``cpu``."""
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def single_token_ids(tokenizer: Any, word: str) -> list[int]:
    """Ids of the single-token spellings of ``word`` (bare and with a leading space)."""
    ids: set[int] = set()
    for variant in (word, " " + word):
        encoded = tokenizer.encode(variant, add_special_tokens=False)
        # The decode check rejects an unknown-token id standing in for the word.
        if len(encoded) == 1 and tokenizer.decode(encoded).strip() == word:
            ids.add(int(encoded[0]))
    return sorted(ids)


def _positions(mask):
    """Position ids that count real tokens only, so a padded row equals its unpadded self."""
    return (mask.cumsum(-1) - 1).clamp(min=0)


class TransformersModel(LanguageModel):
    """A transformers ``*ForCausalLM`` with its tokenizer.

    Parameters
    ----------
    path : str or Path, optional
        A model folder (``config.json`` + safetensors + tokenizer files).
    model, tokenizer : optional
        Objects already in memory (tests build tiny ones); used instead of ``path``.
    device : str, optional
        Torch device; default CUDA when present, else CPU.
    dtype : str
        Weight dtype when loading (default ``bfloat16``: AMX/AVX512-BF16 CPUs
        and GPUs run it several times faster than float32).
    batch_size : int
        Most prompts per forward pass.
    chat : bool, optional
        Wrap prompts in the tokenizer's chat template (default: when it has one).
    threads : int, optional
        torch intra-op threads (CPU).
    model_id : str, optional
        Name in cache keys (default ``hf:<folder name>``).
    cache : ModelCache, optional
        Shared answer store.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, model: Any = None, tokenizer: Any = None,
                 device: str | None = None, dtype: str = "bfloat16", batch_size: int = 16,
                 chat: bool | None = None, threads: int | None = None, model_id: str | None = None,
                 cache: ModelCache | None = None):
        super().__init__(cache)
        import torch

        self._torch = torch
        if threads:
            torch.set_num_threads(int(threads))
        if (model is None) != (tokenizer is None):
            raise ValueError("pass both model and tokenizer, or a path")
        if model is None:
            if path is None:
                raise ValueError("TransformersModel needs a model folder or a model and tokenizer")
            model, tokenizer = self._load(Path(path), device or default_device(), dtype)
            model_id = model_id or f"hf:{Path(path).resolve().parent.name}/{Path(path).name}"
        self.model, self.tokenizer = model, tokenizer
        self.device = str(next(model.parameters()).device)
        self.batch_size = max(1, int(batch_size))
        self.chat_format = bool(getattr(tokenizer, "chat_template", None)) if chat is None else chat
        self.pad_id = next((i for i in (tokenizer.pad_token_id, tokenizer.eos_token_id) if i is not None), 0)
        self.id = model_id or f"hf:{getattr(model.config, '_name_or_path', '') or type(model).__name__}"
        self.true_ids = single_token_ids(tokenizer, "True")
        self.false_ids = single_token_ids(tokenizer, "False")

    @staticmethod
    def _load(path: Path, device: str, dtype: str):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        if not (path / "config.json").is_file():
            raise ModelError(f"{path} is not a model folder (no config.json)")
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(path), dtype=getattr(torch, dtype),
                                                         local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the model in {path}: {exc}") from None
        return model.to(device).eval(), tokenizer

    # -- chat formatting ------------------------------------------------------
    def render(self, messages: Messages) -> str:
        if self.chat_format:
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return super().render(messages)

    def _frame(self, system: str | None) -> tuple[str, str]:
        """Text before and after the user message in a rendered one-turn chat."""
        head = [{"role": "system", "content": system}] if system else []
        rendered = self.render(head + [{"role": "user", "content": _SLOT}])
        before, sep, after = rendered.partition(_SLOT)
        if not sep:
            raise ModelError(f"{self.id}: the chat template drops the user message; use chat=False")
        return before, after

    def encode_parts(self, prefix: str, suffix: str, system: str | None = None) -> tuple[list[int], list[int]]:
        """Token ids of a one-turn chat whose user message is ``prefix + suffix``, split at the join.

        The two parts are tokenised separately, so a shared prefix and a full
        prompt see the same ids (BPE would otherwise merge across the join).
        """
        before, after = self._frame(system)
        tok = self.tokenizer
        bos = [tok.bos_token_id] if (not self.chat_format and tok.bos_token_id is not None
                                     and getattr(tok, "add_bos_token", False)) else []
        pre = bos + tok.encode(before + prefix, add_special_tokens=False)
        suf = tok.encode(suffix + after, add_special_tokens=False)
        return pre, suf

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def truncate(self, text: str, max_tokens: int) -> str:
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        return text if len(ids) <= max_tokens else self.tokenizer.decode(ids[:max_tokens])

    # -- forward passes -------------------------------------------------------
    def _pad(self, sequences: Sequence[Sequence[int]]):
        torch = self._torch
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, width - len(seq):] = torch.tensor(list(seq), dtype=torch.long)
            mask[row, width - len(seq):] = 1
        return ids, mask

    def last_logits(self, sequences: Sequence[Sequence[int]]):
        """Next-token logits after each sequence (one left-padded batch) -> ``(n, vocab)`` float32."""
        torch = self._torch
        ids, mask = self._pad(sequences)
        with torch.inference_mode():
            out = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                             position_ids=_positions(mask).to(self.device), use_cache=False, logits_to_keep=1)
        return out.logits[:, -1, :].float().cpu()

    def shared_prefix_logits(self, prefixes: Sequence[Sequence[int]], suffixes: Sequence[Sequence[Sequence[int]]]):
        """Next-token logits of ``prefixes[i] + suffixes[i][j]`` for all i, j (row-major).

        One pass encodes the prefixes with ``use_cache``; the cache rows are
        repeated once per suffix and a second pass runs the suffixes on top.
        Suffix pads sit between prefix and suffix, masked and skipped by the
        position ids, so the last column is every row's next token.
        """
        torch = self._torch
        owner = [i for i, group in enumerate(suffixes) for _ in group]
        flat = [s for group in suffixes for s in group]
        ids, mask = self._pad(prefixes)
        s_ids, s_mask = self._pad(flat)
        index = torch.tensor(owner, dtype=torch.long)
        s_positions = mask.sum(-1)[index].unsqueeze(1) + (s_mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            cache = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                               position_ids=_positions(mask).to(self.device), use_cache=True,
                               logits_to_keep=1).past_key_values
            cache.reorder_cache(index.to(self.device))  # one cache row per (prefix, suffix)
            out = self.model(input_ids=s_ids.to(self.device),
                             attention_mask=torch.cat([mask[index], s_mask], dim=1).to(self.device),
                             position_ids=s_positions.to(self.device), past_key_values=cache, use_cache=True,
                             logits_to_keep=1)
        return out.logits[:, -1, :].float().cpu()

    def _true_false(self, pairs: list[tuple[str, str]], system: str | None) -> np.ndarray:
        if not self.true_ids or not self.false_ids:
            missing = [w for w, ids in (("True", self.true_ids), ("False", self.false_ids)) if not ids]
            raise ModelError(f"tokenizer of {self.id} has no single token for {' / '.join(missing)}; "
                             "true/false probabilities need one next-token logit per answer")
        torch = self._torch
        out = np.empty(len(pairs), dtype=np.float64)
        groups: dict[str, list[int]] = {}
        for i, (prefix, _) in enumerate(pairs):
            groups.setdefault(prefix, []).append(i)
        chunk: list[tuple[str, list[int]]] = []
        size = 0

        def run() -> None:
            prefixes, suffixes, order = [], [], []
            for prefix, rows in chunk:
                encoded = [self.encode_parts(prefix, pairs[r][1], system) for r in rows]
                prefixes.append(encoded[0][0])
                suffixes.append([suf for _, suf in encoded])
                order.extend(rows)
            logits = self.shared_prefix_logits(prefixes, suffixes)
            z_true = torch.logsumexp(logits[:, self.true_ids].double(), dim=-1)
            z_false = torch.logsumexp(logits[:, self.false_ids].double(), dim=-1)
            out[order] = torch.sigmoid(z_true - z_false).numpy()
            self.usage["prompt_tokens"] += sum(len(p) * len(g) + sum(map(len, g))
                                               for p, g in zip(prefixes, suffixes))
            self.usage["computed_tokens"] += sum(map(len, prefixes)) + sum(len(s) for g in suffixes for s in g)

        for prefix, rows in groups.items():
            # Whole prefixes per chunk, so each is encoded exactly once.
            if chunk and size + len(rows) > self.batch_size:
                run()
                chunk, size = [], 0
            chunk.append((prefix, rows))
            size += len(rows)
        if chunk:
            run()
        return out

    def _generate(self, chats: list[Messages], max_new_tokens: int) -> list[Completion]:
        torch = self._torch
        results: list[Completion] = []
        eos = self.tokenizer.eos_token_id
        for start in range(0, len(chats), self.batch_size):
            batch = chats[start : start + self.batch_size]
            seqs = [self.tokenizer.encode(self.render(c), add_special_tokens=not self.chat_format) for c in batch]
            ids, mask = self._pad(seqs)
            width = ids.shape[1]
            with torch.inference_mode():
                out = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                          max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=self.pad_id)
            for row, seq in enumerate(seqs):
                new = out[row, width:].tolist()
                if eos is not None and eos in new:
                    new = new[: new.index(eos) + 1]
                text = self.tokenizer.decode([t for t in new if t not in (eos, self.pad_id)],
                                             skip_special_tokens=True)
                results.append(Completion(text, len(seq), len(new)))
        return results
