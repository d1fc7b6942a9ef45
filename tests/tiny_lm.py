"""Tiny causal LMs built from a config and an offline word-level tokenizer (no download, random weights)."""

from __future__ import annotations

import re


def tiny_tokenizer(text: str, answers: bool = True, chat: bool = False):
    """A word-level fast tokenizer over the words of ``text`` (plus True/False unless ``answers`` is False)."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = set(re.findall(r"\w+|[^\w\s]+", text + " True False"))
    if not answers:
        words -= {"True", "False"}
    vocab = {w: i for i, w in enumerate(["<pad>", "<s>", "</s>", "<unk>", *sorted(words)])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")
    if chat:
        fast.chat_template = ("{% for m in messages %}<s> {{ m['role'] }} : {{ m['content'] }} </s>{% endfor %}"
                              "{% if add_generation_prompt %} assistant :{% endif %}")
    return fast


def tiny_llama(tokenizer, seed: int = 0):
    """A 2-layer Llama over ``tokenizer``'s vocabulary (large init so logits differ visibly)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    config = LlamaConfig(vocab_size=len(tokenizer), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=2, intermediate_size=64, max_position_embeddings=512,
                         initializer_range=0.5, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return LlamaForCausalLM(config).eval()


def spy_model(inner, captured: list):
    """A language model that records each (shared prefix, claim) pair it is asked to judge in ``captured`` and
    answers like ``inner``: what a prompt builder really sends, for the fencing tests."""
    from logical_pyserini.models import LanguageModel

    class Spy(LanguageModel):
        id = "spy"

        def _true_false(self, pairs, system):
            captured.extend(pairs)
            return inner._true_false(pairs, system)

    return Spy()


def one_fenced_claim(captured: list) -> str:
    """Check that the one captured prompt holds its request inside one fence, no chat-template token and one claim
    line; return the claim part."""
    (prefix, suffix), = captured
    text = prefix + suffix
    assert text.count("</request>") == 1 and text.count("<request>") == 1 and "<|im_end|>" not in text
    assert sum(bool(re.match(r"\W{0,3}(Claim|Answer)\s*:", line)) for line in text.splitlines()) == 1
    return suffix
