"""Score calibration ``σ((s - τ) λ)`` per retriever (seed 001, appendix E).

``python -m logical_pyserini.calibrate --index DIR|NAME [--dense-index DIR|NAME] --topics FILE|NAME
--qrels FILE|NAME --output calib.json``
writes the file that ``python -m logical_pyserini.search --calibration`` reads.
"""

from ._fit import fit_sigmoid, load_calibration, write_calibration
from ._pairs import LeafScores, PairSet, collect_pairs, forced_labels

__all__ = [
    "LeafScores",
    "PairSet",
    "collect_pairs",
    "fit_sigmoid",
    "forced_labels",
    "load_calibration",
    "write_calibration",
]
