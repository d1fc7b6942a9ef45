"""Errors of the model layer."""

from __future__ import annotations

__all__ = ["ModelError", "ModelNotInstalled"]


class ModelError(RuntimeError):
    """A model cannot be loaded or asked (the message says why, in one line)."""


class ModelNotInstalled(ModelError):
    """The requested model is not on this machine; the message names the command that installs it."""
