"""One language-model layer for every neural step (rewriting, the OrLog oracle, LLM-as-reasoner, π-CoT, ROG).

Public API
----------
``get_model(spec="embedded", *, cache=None, install=False, **options) -> LanguageModel``
    ``spec``: ``embedded`` (the installed Qwen2.5-Coder-1.5B-Instruct, bf16),
    a model folder or ``.gguf`` file (a GGUF is converted once to bf16
    safetensors under ``$LOGICAL_PYSERINI_HOME``), or ``openai:NAME`` (an
    OpenAI-compatible server; options ``base_url``, ``api_key``,
    ``concurrency``).  Loaded once per process: stages share the weights.
    Local models run in bf16 on CUDA when present, else on CPU.

``LanguageModel``
    ``generate(prompts, max_new_tokens=64, *, version="", system=None) -> [Completion]``
        Greedy replies.  A prompt is a user message (str) or a chat
        (``[{"role": ..., "content": ...}, ...]``); the model's chat template
        is applied.  ``Completion(text, prompt_tokens, generated_tokens)``.
    ``chat(messages, max_new_tokens=256, *, version="") -> str``
        One reply, stripped.
    ``true_false_probability(pairs, *, version="", system=None) -> np.ndarray``
        P(True) over {True, False} as the reply's first token, from one
        forward pass per prompt; each pair is ``(prefix, suffix)`` of the user
        message, and pairs with the same prefix share its key/value cache.
    ``render(messages) -> str``, ``count_tokens(text)``, ``truncate(text, n)``,
    ``id`` (cache-key name), ``usage`` (calls, prompt/computed/generated tokens,
    cache hits).
    Every answer goes through one cache (:class:`ModelCache`, SQLite or memory)
    keyed by model id + prompt ``version`` + prompt; pass ``version`` = your
    prompt file's version so a wording change never reuses stale answers.

``fence(text, label)``
    Document/question text made safe to place inside a prompt: no line of it
    can pose as one of the prompt's own fields.

Errors: :class:`ModelError` (one line: what failed), :class:`ModelNotInstalled`
(names ``python -m logical_pyserini.models install``).

CLI: ``python -m logical_pyserini.models install | list | path``.

>>> from logical_pyserini.models import get_model            # doctest: +SKIP
>>> lm = get_model("embedded")                               # doctest: +SKIP
>>> lm.true_false_probability([("Text: Ann likes figs.\\n", "Claim: Ann likes figs.\\nTrue or False?")])  # doctest: +SKIP
array([0.99...])
"""

from ._base import Completion, LanguageModel, Messages, Prompt, as_messages
from ._cache import ModelCache, cache_key
from ._convert import convert_gguf
from ._errors import ModelError, ModelNotInstalled
from ._fence import fence
from ._home import home, models_dir
from ._install import EMBEDDED, embedded_path, install, install_command, installed_models
from ._openai import OpenAIModel, answer_probability
from ._registry import (DTYPE_HELP, DTYPES, LOADERS, SPEC_HELP, add_model_arguments, get_model, model_from_args,
                        register_loader)
from ._transformers import TransformersModel, default_device, quantize_int8, single_token_ids

__all__ = [
    "DTYPES", "DTYPE_HELP", "EMBEDDED", "LOADERS", "SPEC_HELP",
    "Completion", "LanguageModel", "Messages", "ModelCache", "ModelError", "ModelNotInstalled", "OpenAIModel",
    "Prompt", "TransformersModel",
    "add_model_arguments", "answer_probability", "as_messages", "cache_key", "convert_gguf", "default_device",
    "embedded_path", "fence", "get_model", "home", "install", "install_command", "installed_models",
    "model_from_args", "models_dir", "quantize_int8", "register_loader", "single_token_ids",
]
