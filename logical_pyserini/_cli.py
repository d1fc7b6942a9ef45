"""The help formatter every ``python -m logical_pyserini.*`` command uses (stdlib only, the lowest floor)."""

from __future__ import annotations

import argparse

__all__ = ["HelpFormatter"]


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Show a flag's default only when it has one.

    ``ArgumentDefaultsHelpFormatter`` appends ``(default: None)`` to flags whose default is resolved later (per
    oracle, per model) and ``(default: False)`` to switches; both read as wrong next to a help text that names the
    real default, so they are left out.
    """

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False:
            return action.help
        return super()._get_help_string(action)
