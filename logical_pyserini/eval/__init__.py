"""Evaluation: ir_measures over TREC runs, overall and broken down by query structure; paired sign tests."""

from ._evaluate import (
    DEFAULT_MEASURES,
    MEASURE_PRESETS,
    EvalRow,
    SignTestRow,
    evaluate_runs,
    format_sign_tests,
    format_table,
    per_query_values,
    read_groups,
    sign_counts,
    sign_test,
    sign_tests,
)

__all__ = ["DEFAULT_MEASURES", "MEASURE_PRESETS", "EvalRow", "SignTestRow", "evaluate_runs", "format_sign_tests",
           "format_table", "per_query_values", "read_groups", "sign_counts", "sign_test",
           "sign_tests"]
