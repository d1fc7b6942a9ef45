"""A transformers causal LM for decoding-free scoring and short generation.

Three operations: next-token logits of whole prompts (left-padded batches),
next-token logits of prompts that share a prefix (the prefix is encoded once
and its key/value cache reused), and greedy generation.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any, Sequence

__all__ = ["CausalLM", "load_causal_lm", "single_token_ids"]

logger = logging.getLogger(__name__)

# Marks where the user message goes in a chat template (never seen in real text).
_SLOT = "\u2063ORLOG-SLOT\u2063"


def load_causal_lm(path: str | os.PathLike, gguf_file: str | None = None, device: str = "cpu",
                   dtype: str | None = None) -> "CausalLM":
    """Load a local model directory or GGUF file (never downloads).

    Parameters
    ----------
    path : str
        A model directory (``config.json`` + weights) or a ``.gguf`` file.
    gguf_file : str, optional
        GGUF file name inside ``path`` (alternative to giving the file path).
    device : str
        Torch device.
    dtype : str, optional
        ``float32`` / ``bfloat16`` / ``float16``; default float32 on CPU.
        GGUF weights are de-quantised by transformers.
    """
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    path = Path(path)
    if path.is_file() and path.suffix == ".gguf":
        path, gguf_file = path.parent, path.name
    if not path.is_dir():
        raise FileNotFoundError(f"model not found: {path} (give a local directory or .gguf file)")
    if gguf_file is None and not (path / "config.json").is_file():
        ggufs = sorted(path.glob("*.gguf"))
        if len(ggufs) != 1:
            raise FileNotFoundError(f"{path} has no config.json and {len(ggufs)} .gguf files; name one")
        gguf_file = ggufs[0].name
    kwargs: dict[str, Any] = {"local_files_only": True}
    if gguf_file:
        kwargs["gguf_file"] = gguf_file
    torch_dtype = getattr(torch, dtype) if dtype else torch.float32
    tokenizer = AutoTokenizer.from_pretrained(str(path), **kwargs)
    model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch_dtype, **kwargs).to(device).eval()
    name = f"{path.name}/{gguf_file}" if gguf_file else path.name
    return CausalLM(model, tokenizer, name=name, device=device)


def single_token_ids(tokenizer, word: str) -> list[int]:
    """Ids of the single-token spellings of ``word`` (bare and with a leading space)."""
    ids: set[int] = set()
    for variant in (word, " " + word):
        encoded = tokenizer.encode(variant, add_special_tokens=False)
        # The decode check rejects an unknown-token id standing in for the word.
        if len(encoded) == 1 and tokenizer.decode(encoded).strip() == word:
            ids.add(int(encoded[0]))
    return sorted(ids)


class CausalLM:
    """A causal LM with its tokenizer.

    Parameters
    ----------
    model : transformers.PreTrainedModel
        Any ``*ForCausalLM`` model.
    tokenizer : transformers.PreTrainedTokenizerBase
        Its tokenizer.
    name : str
        Identifier used in cache keys.
    chat : bool, optional
        Wrap prompts in the tokenizer's chat template (default: when it has one).
    """

    def __init__(self, model, tokenizer, name: str = "model", device: str | None = None, chat: bool | None = None):
        import torch

        self._torch = torch
        self.model = model
        self.tokenizer = tokenizer
        self.name = name
        self.device = device or str(next(model.parameters()).device)
        self.chat = bool(getattr(tokenizer, "chat_template", None)) if chat is None else chat
        self.pad_id = next((i for i in (tokenizer.pad_token_id, tokenizer.eos_token_id) if i is not None), 0)
        self._head, self._tail = self._chat_frame() if self.chat else ("", "")

    def _chat_frame(self) -> tuple[str, str]:
        rendered = self.tokenizer.apply_chat_template(
            [{"role": "user", "content": _SLOT}], tokenize=False, add_generation_prompt=True)
        head, sep, tail = rendered.partition(_SLOT)
        if not sep:
            raise ValueError(f"{self.name}: the chat template does not keep the user message; pass chat=False")
        return head, tail

    # -- tokens ---------------------------------------------------------------

    def encode_parts(self, prefix: str, suffix: str) -> tuple[list[int], list[int]]:
        """Token ids of a prompt split into a prefix and a suffix.

        The two parts are tokenised separately and concatenated, so the shared
        prefix path and the plain path see exactly the same ids.  Chat
        templates bring their own special tokens; plain prompts get the
        tokenizer's (e.g. BOS) on the prefix.
        """
        tok = self.tokenizer
        pre = tok.encode(self._head + prefix, add_special_tokens=not self.chat)
        suf = tok.encode(suffix + self._tail, add_special_tokens=False)
        return pre, suf

    def truncate(self, text: str, max_tokens: int) -> str:
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        return text if len(ids) <= max_tokens else self.tokenizer.decode(ids[:max_tokens])

    # -- scoring --------------------------------------------------------------

    def _pad(self, sequences: Sequence[Sequence[int]], left: bool):
        """Pad id lists to one width -> ``(ids, attention_mask)`` long tensors."""
        torch = self._torch
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            span = slice(width - len(seq), width) if left else slice(0, len(seq))
            ids[row, span] = torch.tensor(list(seq), dtype=torch.long)
            mask[row, span] = 1
        return ids, mask

    def last_logits(self, sequences: Sequence[Sequence[int]]):
        """Next-token logits after each sequence (left-padded batch) -> ``(n, vocab)`` float32."""
        torch = self._torch
        ids, mask = self._pad(sequences, left=True)
        with torch.inference_mode():
            out = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                             position_ids=_positions(mask).to(self.device), use_cache=False, logits_to_keep=1)
        return out.logits[:, -1, :].float().cpu()

    def shared_prefix_logits(self, prefixes: Sequence[Sequence[int]], suffixes: Sequence[Sequence[Sequence[int]]]):
        """Next-token logits of ``prefixes[i] + suffixes[i][j]`` for all i, j (in that order).

        One forward pass encodes the left-padded prefixes with ``use_cache``;
        the cache rows are repeated once per suffix (``reorder_cache``) and a
        second pass runs the suffixes on top of it.  Suffixes are left-padded
        too: their pads sit between prefix and suffix, masked out and skipped
        by the position ids, so the last column is every row's next token.
        """
        torch = self._torch
        owner = [i for i, group in enumerate(suffixes) for _ in group]
        flat = [s for group in suffixes for s in group]
        if not flat:
            return torch.zeros((0, self.model.config.vocab_size))
        ids, mask = self._pad(prefixes, left=True)
        s_ids, s_mask = self._pad(flat, left=True)
        index = torch.tensor(owner, dtype=torch.long)
        s_positions = mask.sum(-1)[index].unsqueeze(1) + (s_mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode():
            cache = self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                               position_ids=_positions(mask).to(self.device), use_cache=True,
                               logits_to_keep=1).past_key_values
            cache.reorder_cache(index.to(self.device))  # one cache row per (entity, predicate)
            out = self.model(input_ids=s_ids.to(self.device),
                             attention_mask=torch.cat([mask[index], s_mask], dim=1).to(self.device),
                             position_ids=s_positions.to(self.device), past_key_values=cache, use_cache=True,
                             logits_to_keep=1)
        return out.logits[:, -1, :].float().cpu()

    # -- generation -----------------------------------------------------------

    def generate(self, prompts: Sequence[str], max_new_tokens: int = 64) -> list[tuple[str, int, int]]:
        """Greedy continuations -> ``(text, prompt_tokens, generated_tokens)`` per prompt."""
        torch = self._torch
        seqs = [sum(self.encode_parts(p, ""), []) for p in prompts]
        ids, mask = self._pad(seqs, left=True)
        width = ids.shape[1]
        with torch.inference_mode():
            out = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                      max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=self.pad_id)
        results = []
        eos = self.tokenizer.eos_token_id
        for row, seq in enumerate(seqs):
            new = out[row, width:].tolist()
            if eos is not None and eos in new:
                new = new[: new.index(eos) + 1]
            text = self.tokenizer.decode([t for t in new if t not in (eos, self.pad_id)], skip_special_tokens=True)
            results.append((text, len(seq), len(new)))
        return results


def _positions(mask):
    """Position ids that count real tokens only, so a padded row equals its unpadded self."""
    return (mask.cumsum(-1) - 1).clamp(min=0)
