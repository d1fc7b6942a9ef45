"""Spec strings -> :class:`LanguageModel`: ``embedded`` | ``PATH`` (folder or .gguf) | ``openai:NAME``.

One loader per kind in :data:`LOADERS`; :func:`get_model` memoises loaded
models so rewriting, the oracle and the reasoner share one copy of the weights.
"""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path
from typing import Any, Callable

from ._base import LanguageModel
from ._cache import ModelCache
from ._errors import ModelError
from ._home import home

__all__ = ["DTYPES", "DTYPE_HELP", "LOADERS", "SPEC_HELP", "add_model_arguments", "get_model", "model_from_args", "register_loader"]

SPEC_HELP = "embedded (default; Qwen2.5-Coder-1.5B-Instruct) | PATH (model folder or .gguf file) | openai:NAME"
DTYPES = ("bfloat16", "float32", "int8")
DTYPE_HELP = ("Weights of a local model: bfloat16 (default), float32, or int8 (CPU: dynamic quantisation per "
              "channel, ~1.9x faster than bfloat16 on a CPU without AMX, less accurate; see README, Models).")

#: kind -> loader(arg, options) -> LanguageModel
LOADERS: dict[str, Callable[[str, dict[str, Any]], LanguageModel]] = {}
_LOADED: dict[tuple, LanguageModel] = {}
_LOCK = threading.Lock()
_LOCAL_OPTIONS = ("device", "dtype", "batch_size", "threads", "chat")
_SERVER_OPTIONS = ("base_url", "api_key", "concurrency", "batch_size", "timeout", "top_logprobs")


def register_loader(kind: str):
    """Decorator: register a loader for ``kind:ARG`` specs."""
    def wrap(fn):
        LOADERS[kind] = fn
        return fn
    return wrap


def _pick(options: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {k: options[k] for k in names if options.get(k) is not None}


@register_loader("embedded")
def _embedded(arg: str, options: dict[str, Any]) -> LanguageModel:
    from ._install import EMBEDDED, embedded_path, install
    from ._transformers import TransformersModel

    path = install(progress=True) if options.get("install") else embedded_path()
    return TransformersModel(path, model_id=f"embedded:{EMBEDDED.name}", cache=options.get("cache"),
                             **_pick(options, _LOCAL_OPTIONS))


@register_loader("path")
def _path(arg: str, options: dict[str, Any]) -> LanguageModel:
    from ._convert import convert_gguf
    from ._transformers import TransformersModel

    path = Path(arg).expanduser()
    if not path.exists():
        raise ModelError(f"model not found: {path} (give a model folder, a .gguf file, 'embedded' or openai:NAME)")
    if path.is_file():
        if path.suffix.lower() != ".gguf":
            raise ModelError(f"{path} is a file but not a .gguf model")
        folder, name = convert_gguf(path), f"gguf:{path.name}"
    else:
        folder, name = path, f"hf:{path.resolve().name}"
    return TransformersModel(folder, model_id=name, cache=options.get("cache"), **_pick(options, _LOCAL_OPTIONS))


@register_loader("hf")
def _hf(arg: str, options: dict[str, Any]) -> LanguageModel:
    return _path(arg, options)  # the older ``hf:PATH`` spelling


@register_loader("openai")
def _openai(arg: str, options: dict[str, Any]) -> LanguageModel:
    from ._openai import OpenAIModel

    return OpenAIModel(arg, cache=options.get("cache"), **_pick(options, _SERVER_OPTIONS))


def get_model(spec: str = "embedded", *, cache: ModelCache | str | os.PathLike | None = None,
              install: bool = False, **options: Any) -> LanguageModel:
    """The language model a spec names (loaded once per process and options).

    Parameters
    ----------
    spec : str
        ``embedded`` (the default installed model), a model folder or ``.gguf``
        path (converted once to bf16 safetensors), ``openai:NAME``.
    cache : ModelCache or path, optional
        Answer cache shared by every call of this model (SQLite file, or memory).
    install : bool
        Install the embedded model when it is missing (else raise).
    **options
        ``device``, ``dtype``, ``batch_size``, ``threads``, ``chat`` (local);
        ``base_url``, ``api_key``, ``concurrency``, ``timeout``,
        ``top_logprobs`` (server).

    Raises
    ------
    ModelNotInstalled
        The embedded model is missing (the message names the install command).
    ModelError
        A path that is not a model, an unreadable GGUF.
    """
    spec = (spec or "embedded").strip()
    kind, sep, arg = spec.partition(":")
    if spec == "embedded":
        kind, arg = "embedded", ""
    elif not (sep and kind in LOADERS and kind != "path") or len(kind) == 1:  # C:\... is a path
        kind, arg = "path", spec
    if kind != "embedded" and not arg:
        raise ValueError(f"model spec {spec!r} names no model; expected {SPEC_HELP}")
    if not isinstance(cache, ModelCache):
        cache = _shared_cache(cache)
    # The home is part of the key: the embedded model and GGUF conversions live under it, so a process that
    # switches $LOGICAL_PYSERINI_HOME must not be handed a model loaded (or converted) under the old one.
    key = (kind, arg, str(home()), str(cache.path), tuple(sorted((k, str(v)) for k, v in options.items())))
    with _LOCK:
        model = _LOADED.get(key)
        if model is None:
            model = LOADERS[kind](arg, {**options, "cache": cache, "install": install})
            _LOADED[key] = model
    return model


_CACHES: dict[str, ModelCache] = {}


def _shared_cache(path: str | os.PathLike | None) -> ModelCache:
    name = str(Path(path).resolve()) if path is not None else ""
    if name not in _CACHES:
        _CACHES[name] = ModelCache(path)
    return _CACHES[name]


def add_model_arguments(parser: argparse.ArgumentParser) -> argparse.ArgumentParser:
    """Add ``--model``, ``--base-url``, ``--api-key``, ``--llm-concurrency``, ``--model-cache``, ``--device``,
    ``--model-dtype``, ``--install-model`` (each unless the parser has it already)."""
    have = {a.dest for a in parser._actions}
    g = parser.add_argument_group("language model")
    flags = [
        ("--model", dict(default="embedded", metavar="SPEC", help=f"Language model: {SPEC_HELP}.")),
        ("--base-url", dict(default=None, help="API root for openai:NAME (default $OPENAI_BASE_URL).")),
        ("--api-key", dict(default=None, help="API key for openai:NAME (default $OPENAI_API_KEY).")),
        ("--llm-concurrency", dict(type=int, default=4, metavar="N", help="Requests in flight to an openai: server.")),
        ("--model-cache", dict(default=None, metavar="FILE",
                               help="SQLite cache of model answers (reruns make no model calls).")),
        ("--device", dict(default=None, help="Torch device for local models (default cuda if present, else cpu).")),
        ("--model-dtype", dict(default=None, choices=DTYPES, help=DTYPE_HELP)),
        ("--install-model", dict(action="store_true",
                                 help="Install the embedded model on first use instead of failing.")),
    ]
    for flag, kwargs in flags:
        if flag[2:].replace("-", "_") not in have:
            g.add_argument(flag, **kwargs)
    return parser


def model_from_args(args: argparse.Namespace, install: bool = False) -> LanguageModel:
    """The model the flags of :func:`add_model_arguments` select."""
    return get_model(getattr(args, "model", None) or "embedded", cache=getattr(args, "model_cache", None),
                     install=install, base_url=getattr(args, "base_url", None),
                     api_key=getattr(args, "api_key", None),
                     concurrency=getattr(args, "llm_concurrency", None), device=getattr(args, "device", None),
                     dtype=getattr(args, "model_dtype", None))
