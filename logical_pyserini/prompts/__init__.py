"""All prompt text lives here, one JSON file per stage, each with a ``version``.

Prompt versions are part of cache keys, so editing a prompt must bump its
version; cached model outputs for the old wording are then ignored.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

__all__ = ["load_prompt"]


@lru_cache(maxsize=None)
def load_prompt(name: str) -> dict:
    """The prompt data of ``<name>.json`` in this package.

    Raises
    ------
    FileNotFoundError
        For an unknown prompt name.
    ValueError
        If the file lacks a ``version`` field.
    """
    path = resources.files(__package__).joinpath(f"{name}.json")
    if not path.is_file():
        raise FileNotFoundError(f"no prompt named {name!r} in logical_pyserini/prompts")
    data = json.loads(path.read_text(encoding="utf-8"))
    if "version" not in data:
        raise ValueError(f"prompt {name!r} has no 'version' field")
    return data
