"""Prompt texts for the LLM stages, one JSON file per prompt.

Each ``<name>.json`` in this folder is a JSON object with at least a
``version`` (cache keys and results name it, so change it whenever the text
changes) and the fields its stage reads.  Keeping prompts as data makes them
reviewable, diffable and versioned independently of the code.

>>> load_prompt("rewrite")["version"]  # doctest: +SKIP
'rewrite-1'
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from importlib import resources
from typing import Any

from .._io import parse_json_object

__all__ = ["PromptError", "fill", "load_prompt", "prompt_names"]

_NAME = re.compile(r"[a-z][a-z0-9_]*")


class PromptError(ValueError):
    """A prompt file that is missing or malformed."""


def prompt_names() -> list[str]:
    """Names of the bundled prompts."""
    return sorted(p.name[:-5] for p in resources.files(__package__).iterdir() if p.name.endswith(".json"))


@lru_cache(maxsize=None)
def _load(name: str) -> dict[str, Any]:
    if not _NAME.fullmatch(name):
        raise PromptError(f"bad prompt name {name!r}")
    path = resources.files(__package__).joinpath(f"{name}.json")
    if not path.is_file():
        raise PromptError(f"no prompt named {name!r}; available: {', '.join(prompt_names())}")
    data = parse_json_object(path.read_text(encoding="utf-8"), f"prompt {name!r}", PromptError)
    if not isinstance(data.get("version"), str) or not data["version"]:
        raise PromptError(f"prompt {name!r} needs a non-empty string 'version'")
    return data


def load_prompt(name: str) -> dict[str, Any]:
    """Load the prompt ``<name>.json`` (a fresh copy; callers may modify it).

    Raises
    ------
    PromptError
        When the file is missing, not JSON, or has no ``version``.
    """
    return copy.deepcopy(_load(name))


_FIELD = re.compile(r"\{([a-z_]+)\}")


def fill(template: str, **values: str) -> str:
    """Replace ``{name}`` fields in one pass.

    Unlike ``str.format``, inserted values are never scanned again and other
    braces in the template (``{x}`` in examples) stay as they are, so text
    inserted here cannot add fields or break the template.
    """
    return _FIELD.sub(lambda m: values[m.group(1)] if m.group(1) in values else m.group(0), template)
