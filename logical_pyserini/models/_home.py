"""Where models live on disk: ``$LOGICAL_PYSERINI_HOME`` (default ``~/.cache/logical_pyserini``)."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["home", "models_dir"]


def home() -> Path:
    """The project's data home (``$LOGICAL_PYSERINI_HOME`` or ``~/.cache/logical_pyserini``)."""
    env = os.environ.get("LOGICAL_PYSERINI_HOME")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "logical_pyserini"


def models_dir() -> Path:
    """Folder holding installed and converted models."""
    return home() / "models"
