"""GGUF -> bf16 safetensors, once; later loads read the safetensors (~1 s instead of ~60 s)."""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import shutil
from pathlib import Path

from ._errors import ModelError

__all__ = ["convert_gguf", "converted_dir_for"]

logger = logging.getLogger("logical_pyserini.models")

_DONE = "CONVERTED.json"


def converted_dir_for(gguf: Path) -> Path:
    """Where the bf16 copy of ``gguf`` goes: keyed by name, size and mtime, so an edited file converts again."""
    from ._home import models_dir

    st = gguf.stat()
    tag = hashlib.sha1(f"{gguf.resolve()}|{st.st_size}|{int(st.st_mtime)}".encode()).hexdigest()[:12]
    return models_dir() / "converted" / f"{gguf.stem}-{tag}"


def is_converted(folder: Path) -> bool:
    return (folder / _DONE).is_file()


def convert_gguf(gguf: str | os.PathLike, out_dir: str | os.PathLike | None = None) -> Path:
    """Convert a GGUF file to a bf16 safetensors folder (idempotent, atomic).

    transformers de-quantises GGUF weights on load but refuses to save such a
    model ("quantized with gguf ... not serializable"); a fresh model built
    from the config without ``quantization_config`` takes the same state dict
    and saves fine.

    Parameters
    ----------
    gguf : path
        The ``.gguf`` file.
    out_dir : path, optional
        Target folder (default :func:`converted_dir_for`).

    Returns
    -------
    Path
        The folder (``config.json``, ``model*.safetensors``, tokenizer files).

    Raises
    ------
    ModelError
        Missing file, unreadable GGUF, or a full disk (the partial folder is removed).
    """
    gguf = Path(gguf)
    if not gguf.is_file():
        raise ModelError(f"GGUF file not found: {gguf}")
    out = Path(out_dir) if out_dir is not None else converted_dir_for(gguf)
    if is_converted(out):
        return out
    import torch
    from transformers import AutoConfig, AutoModelForCausalLM, AutoTokenizer

    tmp = out.with_name(out.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    logger.warning("converting %s to bf16 safetensors in %s (once; about a minute per GB)", gguf, out)
    try:
        kwargs = {"gguf_file": gguf.name, "local_files_only": True}
        loaded = AutoModelForCausalLM.from_pretrained(str(gguf.parent), dtype=torch.bfloat16, **kwargs)
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), **kwargs)
        config = AutoConfig.from_pretrained(str(gguf.parent), **kwargs)
        if hasattr(config, "quantization_config"):
            del config.quantization_config
        fresh = AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16)
        missing, unexpected = fresh.load_state_dict(loaded.state_dict(), strict=False)
        if [k for k in missing if "lm_head" not in k] or unexpected:
            raise ModelError(f"{gguf}: weights do not match the config (missing {missing[:3]}, "
                             f"unexpected {unexpected[:3]})")
        if missing:  # tied output embeddings
            fresh.tie_weights()
        del loaded
        tmp.mkdir(parents=True)
        fresh.save_pretrained(str(tmp))
        tokenizer.save_pretrained(str(tmp))
        (tmp / _DONE).write_text(json.dumps({"source": str(gguf), "size": gguf.stat().st_size}), encoding="utf-8")
        shutil.rmtree(out, ignore_errors=True)
        os.replace(tmp, out)
    except OSError as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        if exc.errno == errno.ENOSPC:
            raise ModelError(f"disk full while converting {gguf} into {out.parent} (needs ~3x the GGUF size "
                             "free); free space or set LOGICAL_PYSERINI_HOME to a larger disk") from None
        raise ModelError(f"cannot convert {gguf}: {exc}") from None
    except ModelError:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    except Exception as exc:  # noqa: BLE001 - a malformed GGUF surfaces as anything from the reader
        shutil.rmtree(tmp, ignore_errors=True)
        raise ModelError(f"cannot read {gguf} as a GGUF model: {type(exc).__name__}: {exc}") from None
    return out
