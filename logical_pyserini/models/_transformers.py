"""Local transformers backend: a causal LM folder (safetensors) or a model already in memory.

Scoring is decoding-free: P(True) comes from the next-token logits of one
forward pass.  Prompts share work at two levels: the head every prompt of a
call starts with (chat header, system line, instructions) is encoded once per
process and its key/value cache reused; the prefix of one document is encoded
once for all of its predicates.  Batches are left-padded with position ids
that skip the pads, so a batched row equals its unbatched self.

On a CPU without AMX, ``dtype="int8"`` (dynamic int8 quantisation of the
linear layers, AVX512-VNNI kernels) runs about 1.9x faster than bf16 but
judges and rewrites less well (``eval/results/orlog_llm.md``); bf16 stays
the default.
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

__all__ = ["TransformersModel", "default_device", "quantize_int8", "single_token_ids"]

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


def quantize_int8(model: Any) -> Any:
    """``model`` (changed in place) with every ``nn.Linear`` quantised dynamically to int8 (weights int8 per
    output channel, activations per batch); the rest (embeddings, norms) in float32.

    The CPU's VNNI int8 kernels do twice the multiply-adds of its bf16 ones.
    Layers are converted one at a time from whatever dtype they hold, so a
    bf16 model never exists in float32 as a whole (peak ~ bf16 size + one
    layer).  Per-channel scales matter: per-tensor ones garbled generation
    (misspelt words, dropped OR branches in rewrites).
    """
    import warnings

    import torch
    from torch.ao.nn.quantized.dynamic import Linear as DynamicLinear

    qconfig = torch.ao.quantization.per_channel_dynamic_qconfig
    with warnings.catch_warnings(), torch.no_grad():  # torch.ao's notices that eager quantisation moves to torchao
        warnings.simplefilter("ignore", (DeprecationWarning, FutureWarning, UserWarning))
        # Names only: holding the module objects would keep every converted float32 layer alive to the end.
        names = [name for name, module in model.named_modules() if type(module) is torch.nn.Linear]
        for name in names:
            owner, _, attr = name.rpartition(".")
            parent = model.get_submodule(owner) if owner else model
            layer = getattr(parent, attr).float()
            layer.qconfig = qconfig
            setattr(parent, attr, DynamicLinear.from_float(layer))
            del layer
        model.float()  # embeddings and norms: the quantised layers take float32 activations
    model._lp_int8 = True
    return model


def _common_length(sequences: Sequence[Sequence[int]]) -> int:
    """Length of the token prefix all ``sequences`` share."""
    first, n = sequences[0], min(len(s) for s in sequences)
    for i in range(n):
        if any(s[i] != first[i] for s in sequences[1:]):
            return i
    return n


def _crop_to(cache, length: int):
    """Keep the first ``length`` positions of a key/value cache (``crop`` takes a negative count now)."""
    extra = cache.get_seq_length() - length
    if extra > 0:
        cache.crop(-extra)
    return cache


def _cache_arg(fn: Any) -> str:
    """The keyword that takes a key/value cache: ``cache`` in newer transformers (5.x renamed
    ``past_key_values``, which warns and goes away in 5.40), ``past_key_values`` before."""
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return "past_key_values"
    return "cache" if "cache" in params else "past_key_values"


def _out_cache(out: Any):
    """The key/value cache of a forward or generate output, under either name."""
    cache = out.get("cache") if hasattr(out, "get") else None
    return cache if cache is not None else getattr(out, "past_key_values", None)


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
        Weight dtype when loading: ``bfloat16`` (default; AMX CPUs and GPUs
        run it several times faster than float32), ``float32``, or ``int8``
        (CPU only: linear layers quantised dynamically per channel, about 1.9x
        faster than bf16 on a CPU without AMX, but less accurate: see
        eval/results/orlog_llm.md; a GPU keeps bf16).
    batch_size : int, optional
        Most prompts per forward pass: 16 on a CPU, 512 on a GPU (default; measured in
        eval/results/oracle_throughput.md).
    shared_prefix : bool
        Encode a prefix shared by several true/false prompts once and reuse its
        key/value cache (default); False runs every prompt in full.
    chat : bool, optional
        Wrap prompts in the tokenizer's chat template (default: when it has one).
    threads : int, optional
        torch intra-op threads (CPU).
    model_id : str, optional
        Name in cache keys (default ``hf:<folder name>``).
    cache : ModelCache, optional
        Shared answer store.
    """

    true_false_key = "true_false/fp32-head"  # answers from the float32 answer head (see _last)

    def __init__(self, path: str | os.PathLike | None = None, *, model: Any = None, tokenizer: Any = None,
                 device: str | None = None, dtype: str = "bfloat16", batch_size: int | None = None,
                 shared_prefix: bool = True, chat: bool | None = None, threads: int | None = None, model_id: str | None = None,
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
            if getattr(model, "_lp_int8", False):
                model_id += "@int8"  # its answers differ slightly from bf16: a separate cache namespace
        self.model, self.tokenizer = model, tokenizer
        self.device = str(next(model.parameters()).device)
        self._cache_kw = _cache_arg(model.forward)
        self.batch_size = max(1, int(batch_size)) if batch_size else (512 if self.device.startswith("cuda") else 16)
        self.shared_prefix = bool(shared_prefix)
        self._prefix: tuple[tuple[int, ...], Any] | None = None  # last generation prompt's key/value cache
        self._head: tuple[tuple[int, ...], Any] | None = None  # key/value cache of the scoring prompts' common head
        self._frames: dict[str | None, tuple[str, str]] = {}  # rendered chat frame per system line
        self._rows: dict[tuple[int, ...], Any] = {}  # float32 answer rows of the output layer
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
        dtype = dtype or "bfloat16"
        int8 = dtype == "int8"
        if int8 and device != "cpu":
            logger.warning("dtype int8 is a CPU option; using bfloat16 on %s", device)
            int8, dtype = False, "bfloat16"
        if not int8 and not getattr(getattr(torch, dtype, None), "is_floating_point", False):
            raise ModelError(f"unknown dtype {dtype!r} (bfloat16, float32, float16 or int8)")
        try:
            tokenizer = AutoTokenizer.from_pretrained(str(path), local_files_only=True)
            model = AutoModelForCausalLM.from_pretrained(str(path), dtype=torch.bfloat16 if int8 else getattr(torch, dtype),
                                                         local_files_only=True)
        except (OSError, ValueError) as exc:
            raise ModelError(f"cannot load the model in {path}: {exc}") from None
        model = model.to(device).eval()
        if int8:
            model = quantize_int8(model)
        return model, tokenizer

    # -- chat formatting ------------------------------------------------------
    def render(self, messages: Messages) -> str:
        if self.chat_format:
            return self.tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
        return super().render(messages)

    def _frame(self, system: str | None) -> tuple[str, str]:
        """Text before and after the user message in a rendered one-turn chat (rendered once per system line)."""
        if system not in self._frames:
            head = [{"role": "system", "content": system}] if system else []
            rendered = self.render(head + [{"role": "user", "content": _SLOT}])
            before, sep, after = rendered.partition(_SLOT)
            if not sep:
                raise ModelError(f"{self.id}: the chat template drops the user message; use chat=False")
            self._frames[system] = (before, after)
        return self._frames[system]

    def encode_parts(self, prefix: str, suffix: str, system: str | None = None) -> tuple[list[int], list[int]]:
        """Token ids of a one-turn chat whose user message is ``prefix + suffix``, split at the join.

        The two parts are tokenised separately, so a shared prefix and a full
        prompt see the same ids (BPE would otherwise merge across the join).
        """
        return self._encode_many([(prefix, suffix)], system)[0]

    def _encode_many(self, pairs: Sequence[tuple[str, str]], system: str | None) -> list[tuple[list[int], list[int]]]:
        """:meth:`encode_parts` of many pairs: each distinct prefix (a document) tokenised once, in batches."""
        before, after = self._frame(system)
        tok = self.tokenizer
        bos = [tok.bos_token_id] if (not self.chat_format and tok.bos_token_id is not None
                                     and getattr(tok, "add_bos_token", False)) else []

        def encode(texts: list[str]) -> list[list[int]]:
            if len(texts) == 1 or not getattr(tok, "is_fast", False):
                return [tok.encode(t, add_special_tokens=False) for t in texts]
            return list(tok(texts, add_special_tokens=False)["input_ids"])  # the same ids, one Rust call

        distinct = list(dict.fromkeys(prefix for prefix, _ in pairs))
        prefix_ids = dict(zip(distinct, encode([before + p for p in distinct])))
        suffix_ids = encode([suffix + after for _, suffix in pairs])
        return [(bos + prefix_ids[prefix], suf) for (prefix, _), suf in zip(pairs, suffix_ids)]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))

    def truncate(self, text: str, max_tokens: int) -> str:
        ids = self.tokenizer.encode(text, add_special_tokens=False)
        return text if len(ids) <= max_tokens else self.tokenizer.decode(ids[:max_tokens])

    # -- forward passes -------------------------------------------------------
    def _attention(self):
        """On a GPU, torch's attention kernels without cuDNN's: cuDNN builds a plan per shape, and these
        left-padded batches change shape every call (1.47k against 1.12k pairs/s on an H100)."""
        import contextlib

        if not self.device.startswith("cuda"):
            return contextlib.nullcontext()
        from torch.nn.attention import SDPBackend, sdpa_kernel

        return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])

    def _pad(self, sequences: Sequence[Sequence[int]]):
        torch = self._torch
        width = max(len(s) for s in sequences)
        ids = torch.full((len(sequences), width), self.pad_id, dtype=torch.long)
        mask = torch.zeros((len(sequences), width), dtype=torch.long)
        for row, seq in enumerate(sequences):
            ids[row, width - len(seq):] = torch.tensor(list(seq), dtype=torch.long)
            mask[row, width - len(seq):] = 1
        return ids, mask

    def last_logits(self, sequences: Sequence[Sequence[int]], columns: Sequence[int] | None = None):
        """Next-token logits after each sequence (one left-padded batch) -> ``(n, vocab)`` float32, or
        ``(n, len(columns))`` for the given token ids (picked on the device: a GPU copies kilobytes, not the
        whole vocabulary per row)."""
        torch = self._torch
        ids, mask = self._pad(sequences)
        with torch.inference_mode(), self._attention():
            return self._last(lambda: self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                                 position_ids=_positions(mask).to(self.device), use_cache=False,
                                                 logits_to_keep=1), columns)[1]

    def _answer_rows(self, columns: Sequence[int]):
        """The output layer's rows for ``columns`` in float32 (weight, bias), or ``None`` when the model's
        logits are not a plain linear map of its last hidden state (soft-capping, logit scaling)."""
        key = tuple(columns)
        if key not in self._rows:
            head, config = self.model.get_output_embeddings(), self.model.config
            weight = getattr(head, "weight", None)
            rows = None
            if (weight is not None and not getattr(config, "final_logit_softcapping", None)
                    and getattr(config, "logit_scale", None) in (None, 1, 1.0)):
                torch = self._torch
                weight, bias = (weight() if callable(weight) else weight), getattr(head, "bias", None)
                bias = bias() if callable(bias) else bias  # int8 layers hand out (de)quantised tensors by call
                index = torch.tensor(list(key), dtype=torch.long, device=weight.device)
                with torch.inference_mode():
                    w = (weight.dequantize() if weight.is_quantized else weight)[index].float()
                    b = None if bias is None else bias[index].float()
                rows = (head, w, b)
            self._rows[key] = rows
        return self._rows[key]

    def _last(self, forward, columns: Sequence[int] | None):
        """Run ``forward`` (a pass with ``logits_to_keep=1``) -> ``(output, float32 logits of its last position)``.

        For ``columns``, the answer logits are computed in float32 from the last
        hidden state (caught on its way into the output layer): the model's own
        bf16 logits step by 0.06-0.12 at magnitudes 8-32, which turned close
        answers into ties and flipped some across 0.5 between devices.
        """
        rows = self._answer_rows(columns) if columns is not None else None
        if rows is None:
            out = forward()
            logits = out.logits[:, -1, :]
            if columns is not None:
                logits = logits[:, self._torch.tensor(list(columns), dtype=self._torch.long, device=logits.device)]
            return out, logits.float().cpu()
        head, weight, bias = rows
        seen: list = []
        handle = head.register_forward_pre_hook(lambda module, args: seen.append(args[0]))
        try:
            out = forward()
        finally:
            handle.remove()
        logits = seen[-1][:, -1, :].float() @ weight.T
        return out, (logits if bias is None else logits + bias).cpu()

    def _head_cache(self, head: tuple[int, ...]):
        """Key/value cache of ``head`` (batch 1), kept across calls: every scoring prompt starts with it."""
        if self._head is None or self._head[0] != head:
            torch = self._torch
            ids = torch.tensor([list(head)], dtype=torch.long, device=self.device)
            with torch.inference_mode(), self._attention():
                cache = _out_cache(self.model(input_ids=ids, use_cache=True, logits_to_keep=1))
            self._head = (head, cache)
            self.usage["computed_tokens"] += len(head)
        return self._head[1]

    def shared_prefix_logits(self, prefixes: Sequence[Sequence[int]], suffixes: Sequence[Sequence[Sequence[int]]],
                             head: int = 0, columns: Sequence[int] | None = None):
        """Next-token logits of ``prefixes[i] + suffixes[i][j]`` for all i, j (row-major); only the token
        ids in ``columns`` when given (see :meth:`last_logits`).

        The first ``head`` tokens, the same in every prefix, come from a key/
        value cache kept across calls.  One pass encodes the rest of the
        prefixes with ``use_cache``; the cache rows are repeated once per
        suffix and a second pass runs the suffixes on top.  Pads sit between
        the parts, masked and skipped by the position ids, so the last column
        is every row's next token.
        """
        import copy

        torch = self._torch
        owner = [i for i, group in enumerate(suffixes) for _ in group]
        flat = [s for group in suffixes for s in group]
        cache = None
        if head:
            cache = copy.deepcopy(self._head_cache(tuple(prefixes[0][:head])))
            cache.reorder_cache(torch.zeros(len(prefixes), dtype=torch.long, device=self.device))
        ids, rest_mask = self._pad([p[head:] for p in prefixes])
        mask = torch.cat([torch.ones((len(prefixes), head), dtype=torch.long), rest_mask], dim=1)
        s_ids, s_mask = self._pad(flat)
        index = torch.tensor(owner, dtype=torch.long)
        s_positions = mask.sum(-1)[index].unsqueeze(1) + (s_mask.cumsum(-1) - 1).clamp(min=0)
        with torch.inference_mode(), self._attention():
            cache = _out_cache(self.model(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                          position_ids=_positions(mask)[:, head:].to(self.device),
                                          use_cache=True, logits_to_keep=1, **{self._cache_kw: cache}))
            cache.reorder_cache(index.to(self.device))  # one cache row per (prefix, suffix)
            _, logits = self._last(lambda: self.model(
                input_ids=s_ids.to(self.device), attention_mask=torch.cat([mask[index], s_mask], dim=1).to(self.device),
                position_ids=s_positions.to(self.device), use_cache=True, logits_to_keep=1,
                **{self._cache_kw: cache}), columns)
        return logits

    def _true_false(self, pairs: list[tuple[str, str]], system: str | None) -> np.ndarray:
        if not self.true_ids or not self.false_ids:
            missing = [w for w, ids in (("True", self.true_ids), ("False", self.false_ids)) if not ids]
            raise ModelError(f"tokenizer of {self.id} has no single token for {' / '.join(missing)}; "
                             "true/false probabilities need one next-token logit per answer")
        torch = self._torch
        out = np.empty(len(pairs), dtype=np.float64)
        encoded = self._encode_many(pairs, system)
        columns = [*self.true_ids, *self.false_ids]
        n_true = len(self.true_ids)
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, (pre, _) in enumerate(encoded):
            groups.setdefault(tuple(pre), []).append(i)
        # The head all prompts share (chat header, system line, fixed instructions) runs once per process;
        # each prefix keeps at least one token of its own.
        head = 0
        if self.shared_prefix:
            shortest = min(map(len, groups)) - 1
            known = self._head[0] if self._head else ()
            if known and len(known) <= shortest and all(p[: len(known)] == known for p in groups):
                head = len(known)  # e.g. a call with one document: reuse the head of earlier calls
            elif len(groups) > 1:
                head = min(_common_length(list(groups)), shortest)
            head = head if head >= 8 else 0
        # Similar lengths side by side: less padding per batch.
        ordered = sorted(groups.items(), key=lambda item: len(item[0]))
        chunk: list[tuple[tuple[int, ...], list[int]]] = []
        size = 0

        def run() -> None:
            prefixes = [list(pre) for pre, _ in chunk]
            suffixes = [[encoded[r][1] for r in rows] for _, rows in chunk]
            order = [r for _, rows in chunk for r in rows]
            if self.shared_prefix:
                logits = self.shared_prefix_logits(prefixes, suffixes, head=head, columns=columns)
                computed = sum(len(p) - head for p in prefixes) + sum(len(s) for g in suffixes for s in g)
            else:
                logits = self.last_logits([p + s for p, g in zip(prefixes, suffixes) for s in g], columns=columns)
                computed = sum(len(p) * len(g) + sum(map(len, g)) for p, g in zip(prefixes, suffixes))
            z_true = torch.logsumexp(logits[:, :n_true].double(), dim=-1)
            z_false = torch.logsumexp(logits[:, n_true:].double(), dim=-1)
            out[order] = torch.sigmoid(z_true - z_false).numpy()
            self.usage["prompt_tokens"] += sum(len(p) * len(g) + sum(map(len, g))
                                               for p, g in zip(prefixes, suffixes))
            self.usage["computed_tokens"] += computed

        for prefix, rows in ordered:
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
            if len(seqs) == 1:
                rows = [self._generate_reusing_prefix(seqs[0], max_new_tokens)]
            else:
                ids, mask = self._pad(seqs)
                width = ids.shape[1]
                with torch.inference_mode(), self._attention():
                    out = self.model.generate(input_ids=ids.to(self.device), attention_mask=mask.to(self.device),
                                              max_new_tokens=max_new_tokens, do_sample=False,
                                              pad_token_id=self.pad_id)
                rows = [out[row, width:].tolist() for row in range(len(seqs))]
            for seq, new in zip(seqs, rows):
                if eos is not None and eos in new:
                    new = new[: new.index(eos) + 1]
                text = self.tokenizer.decode([t for t in new if t not in (eos, self.pad_id)],
                                             skip_special_tokens=True)
                results.append(Completion(text, len(seq), len(new)))
        return results

    def _generate_reusing_prefix(self, seq: list[int], max_new_tokens: int) -> list[int]:
        """Greedy continuation of one prompt, reusing the key/value cache of the previous prompt's common prefix.

        Few-shot prompts (rewriting) share hundreds of tokens across questions;
        prefilling them once instead of per question is most of the cost on CPU.
        """
        import copy

        torch = self._torch
        past, (prev_ids, prev_cache) = None, self._prefix or ((), None)
        n = _common_length([prev_ids, seq[:-1]])  # the last prompt token must run to give the next logits
        if prev_cache is not None and n >= 16:
            past = _crop_to(copy.deepcopy(prev_cache), n)
        ids = torch.tensor([seq], dtype=torch.long, device=self.device)
        with torch.inference_mode(), self._attention():
            out = self.model.generate(input_ids=ids, attention_mask=torch.ones_like(ids),
                                      max_new_tokens=max_new_tokens, do_sample=False, pad_token_id=self.pad_id,
                                      return_dict_in_generate=True, **{self._cache_kw: past})
        cache = _out_cache(out)
        if cache is not None and hasattr(cache, "crop"):
            _crop_to(cache, len(seq) - 1)
            self._prefix = (tuple(seq[:-1]), cache)
        return out.sequences[0, len(seq):].tolist()
