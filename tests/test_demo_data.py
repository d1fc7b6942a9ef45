"""Tests for the bundled demo dataset and its generator.

The qrels are computed by the generator from hidden attribute sets; here they
are checked against an independent reading of the published files: a small
parser for the query language evaluated over each document's words.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from logical_pyserini.data import DEMO_DIR
from logical_pyserini.data._demo import MAX_RELEVANT_FINAL, NEAR_MISSES_NEGATED, TEMPLATES, generate

FILES = ("corpus.jsonl", "topics.logical.tsv", "topics.natural.tsv", "qrels.txt", "metadata.jsonl")
REPO_ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------
# Readers and a reference evaluator for the query language
# --------------------------------------------------------------------------


def read_tsv(path: Path) -> dict[str, str]:
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    assert all(len(row) == 2 for row in rows), f"{path.name}: every line must be qid<TAB>text"
    qids = [qid for qid, _ in rows]
    assert len(qids) == len(set(qids)), f"{path.name}: duplicate qids"
    return dict(rows)


def read_qrels(path: Path) -> dict[str, set[str]]:
    qrels: dict[str, set[str]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        qid, iteration, docid, rel = line.split(" ")
        assert (iteration, rel) == ("0", "1"), line
        assert docid not in qrels.get(qid, set()), f"duplicate qrel: {line}"
        qrels.setdefault(qid, set()).add(docid)
    return qrels


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


_LEX = re.compile(r'\s*(?:"(?P<phrase>[^"]+)"|(?P<paren>[()])|(?P<op>AND|OR|NOT)\b|(?P<word>[^\s()"]+))')


def parse(query: str):
    """Parse into nested tuples: ("term", words) / ("not", x) / ("and"|"or", [..]).

    Precedence NOT > AND > OR, parentheses group; terms are quoted phrases or
    bare words.
    """
    tokens, pos = [], 0
    while pos < len(query.rstrip()):
        m = _LEX.match(query, pos)
        assert m and m.end() > pos, f"cannot lex {query!r} at {pos}"
        kind = m.lastgroup
        tokens.append((kind, m.group(kind)))
        pos = m.end()
    tokens.append(("end", None))
    i = 0

    def peek(*wanted):
        return tokens[i] if tokens[i][0] in ("op", "paren") and tokens[i][1] in wanted else None

    def binary(op, operand):
        nonlocal i
        items = [operand()]
        while peek(op):
            i += 1
            items.append(operand())
        return items[0] if len(items) == 1 else (op.lower(), items)

    def unary():
        nonlocal i
        if peek("NOT"):
            i += 1
            return ("not", unary())
        if peek("("):
            i += 1
            node = binary("OR", lambda: binary("AND", unary))
            assert peek(")"), f"missing ) in {query!r}"
            i += 1
            return node
        kind, value = tokens[i]
        assert kind in ("phrase", "word"), f"unexpected {value!r} in {query!r}"
        i += 1
        return ("term", tuple(fold(w) for w in value.lower().split()))

    tree = binary("OR", lambda: binary("AND", unary))
    assert tokens[i][0] == "end", f"trailing input in {query!r}"
    return tree


def fold(word: str) -> str:
    """Plural folding, so that 'comedies' in a document counts for 'comedy'."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


def words_of(text: str) -> set[str]:
    return {fold(w) for w in re.findall(r"[a-z0-9]+", text.lower())}


def holds(node, words: set[str]) -> bool:
    op, arg = node
    if op == "const":
        return arg
    if op == "term":
        return set(arg) <= words
    if op == "not":
        return not holds(arg, words)
    return (all if op == "and" else any)(holds(child, words) for child in arg)


def replace(node, target, value: bool):
    """``node`` with the subtree ``target`` (by identity) replaced by a constant."""
    if node is target:
        return ("const", value)
    op, arg = node
    if op in ("term", "const"):
        return node
    if op == "not":
        return ("not", replace(arg, target, value))
    return (op, [replace(child, target, value) for child in arg])


def not_nodes(node) -> list:
    op, arg = node
    if op in ("term", "const"):
        return []
    if op == "not":
        return [node] + not_nodes(arg)
    return [n for child in arg for n in not_nodes(child)]


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fresh(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo_fresh")
    counts = generate(out)
    assert counts["documents"] == len((out / "corpus.jsonl").read_text().splitlines())
    return out


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    return read_jsonl(DEMO_DIR / "corpus.jsonl")


@pytest.fixture(scope="module")
def logical() -> dict[str, str]:
    return read_tsv(DEMO_DIR / "topics.logical.tsv")


@pytest.fixture(scope="module")
def qrels() -> dict[str, set[str]]:
    return read_qrels(DEMO_DIR / "qrels.txt")


@pytest.fixture(scope="module")
def metadata() -> dict[str, dict]:
    return {m["qid"]: m for m in read_jsonl(DEMO_DIR / "metadata.jsonl")}


@pytest.fixture(scope="module")
def doc_words(corpus) -> dict[str, set[str]]:
    return {doc["id"]: words_of(doc["contents"]) for doc in corpus}


# --------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------


def test_generation_is_deterministic(fresh, tmp_path):
    # A second run in a new interpreter with another str-hash seed: any
    # dependence on set or dict ordering of strings would change the bytes.
    env = dict(os.environ, PYTHONHASHSEED="4242")
    subprocess.run([sys.executable, "-m", "logical_pyserini.data._demo", "--output", str(tmp_path)],
                   check=True, env=env, cwd=REPO_ROOT, capture_output=True)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (fresh / name).read_bytes(), name


def test_seed_is_used(fresh, tmp_path):
    generate(tmp_path, seed=14)
    assert (tmp_path / "corpus.jsonl").read_bytes() != (fresh / "corpus.jsonl").read_bytes()


def test_bundled_files_equal_fresh_generation(fresh):
    for name in FILES:
        assert (DEMO_DIR / name).read_bytes() == (fresh / name).read_bytes(), (
            f"{name} is stale: run python -m logical_pyserini.data._demo")


# --------------------------------------------------------------------------
# Bundled files: format and consistency
# --------------------------------------------------------------------------


def test_corpus_is_a_jsonl_collection(corpus):
    assert 2000 <= len(corpus) <= 3000
    ids = [doc["id"] for doc in corpus]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"demo-\d{5}", i) for i in ids)
    assert len({doc["title"] for doc in corpus}) == len(corpus)
    for doc in corpus:
        assert set(doc) == {"id", "title", "contents"}
        assert doc["contents"].startswith(doc["title"] + ". ")


def test_topic_files_share_qids(logical, qrels, metadata):
    natural = read_tsv(DEMO_DIR / "topics.natural.tsv")
    assert 120 <= len(logical) <= 200
    assert all(re.fullmatch(r"q\d{3}", qid) for qid in logical)
    assert list(natural) == list(logical) == list(metadata)
    assert set(qrels) == set(logical)
    for qid, question in natural.items():
        assert question and not re.search(r"\b(AND|OR|NOT)\b|\"", question), question


def test_qrels_point_into_the_corpus(corpus, qrels):
    ids = {doc["id"] for doc in corpus}
    for qid, docids in qrels.items():
        assert docids <= ids, qid


def test_every_query_has_a_bounded_number_of_relevant_docs(qrels, metadata):
    for qid, meta in metadata.items():
        assert 1 <= len(qrels[qid]) <= MAX_RELEVANT_FINAL, qid
        assert meta["n_relevant"] == len(qrels[qid]), qid


def test_metadata_describes_the_query(logical, metadata):
    names = {t.name for t in TEMPLATES}
    assert {m["template"] for m in metadata.values()} == names
    for qid, meta in metadata.items():
        query = logical[qid]
        assert set(meta) == {"qid", "template", "negations", "operators", "n_relevant"}
        assert meta["negations"] == len(re.findall(r"\bNOT\b", query)), qid
        assert meta["operators"] == [op for op in ("AND", "OR", "NOT") if re.search(rf"\b{op}\b", query)], qid
    assert Counter(m["negations"] for m in metadata.values()).keys() == {0, 1, 2}


def test_multiword_terms_are_quoted(logical):
    for query in logical.values():
        unquoted = re.sub(r'"[^"]*"', " ", query)
        assert not re.search(r"[a-z]", unquoted), query


# --------------------------------------------------------------------------
# Bundled files: the qrels are the logic of the query over the text
# --------------------------------------------------------------------------


def test_parser_follows_precedence():
    tree = parse('"a" OR "b c" AND NOT d')
    assert tree == ("or", [("term", ("a",)), ("and", [("term", ("b", "c")), ("not", ("term", ("d",)))])])


def test_qrels_equal_boolean_evaluation_over_document_words(logical, qrels, doc_words):
    # Holds only if every document mentions exactly the query terms of its
    # attributes: no missing head word and no accidental match.
    for qid, query in logical.items():
        tree = parse(query)
        matching = {docid for docid, words in doc_words.items() if holds(tree, words)}
        assert matching == qrels[qid], qid


def test_negations_have_hard_negatives(logical, doc_words):
    # For each NOT: documents that satisfy everything else but mention the
    # excluded term.  These are what plain BM25 ranks on top.
    for qid, query in logical.items():
        tree = parse(query)
        for node in not_nodes(tree):
            relaxed = replace(tree, node, True)
            hard = [d for d, words in doc_words.items() if holds(relaxed, words) and not holds(tree, words)]
            assert len(hard) >= NEAR_MISSES_NEGATED, qid


def test_query_terms_match_with_the_lucene_analyzer(logical, corpus, doc_words):
    """Porter stemming must not create matches the attribute sets do not have
    (e.g. 'animal' would match 'animation')."""
    jnius = pytest.importorskip("jnius")  # noqa: F841
    try:
        import logical_pyserini._bootstrap as bootstrap

        bootstrap.ensure_pyserini()
        from pyserini.analysis import Analyzer, get_lucene_analyzer
    except Exception as exc:  # pragma: no cover - depends on the local Java
        pytest.skip(f"pyserini unavailable: {exc}")
    analyzer = Analyzer(get_lucene_analyzer())
    stems = {doc["id"]: set(analyzer.analyze(doc["contents"])) for doc in corpus}
    terms = sorted({m.group(1) for q in logical.values() for m in re.finditer(r'"([^"]+)"', q)})
    for term in terms:
        folded = {fold(w) for w in term.lower().split()}
        expected = {d for d, w in doc_words.items() if folded <= w}
        # Each stem on its own, so that no document matches half a phrase.
        for stem in analyzer.analyze(term):
            assert {d for d, s in stems.items() if stem in s} == expected, (term, stem)
