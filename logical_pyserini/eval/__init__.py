"""Evaluation: ir_measures over TREC runs, overall and broken down by query structure."""

from ._evaluate import DEFAULT_MEASURES, EvalRow, evaluate_runs, format_table, read_groups

__all__ = ["DEFAULT_MEASURES", "EvalRow", "evaluate_runs", "format_table", "read_groups"]
