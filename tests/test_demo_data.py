"""Tests for the bundled demo dataset and its generator.

The qrels are computed by the generator from hidden attribute sets.  Here
they are checked with an independent reading: a small parser for the query
language evaluated over each document's *true attributes* (exposed by
``noise_records``).  The text deliberately disagrees with those attributes
(paraphrases, contrastive mentions); the tests check that it disagrees
exactly where the per-document record says and at the documented rates.
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

REPO_ROOT = Path(__file__).resolve().parents[1]
# The generator is a development script outside the package (its vocabulary is data in scripts/demo_data/).
sys.path.insert(0, str(REPO_ROOT / "scripts"))
from make_demo_data import (  # noqa: E402 - scripts/ is put on sys.path above
    CONTRAST_BOUNDS,
    LONG_DOC_RATE,
    MAX_RELEVANT_FINAL,
    NEAR_MISSES_NEGATED,
    PARAPHRASE_BOUNDS,
    TEMPLATES,
    build,
    generate,
    noise_records,
    write,
)

FILES = ("corpus.jsonl", "topics.logical.tsv", "topics.natural.tsv", "qrels.txt", "metadata.jsonl")


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


def term_words(atom: str) -> set[str]:
    """Folded words of the query term of an ``attribute:value`` atom."""
    return {fold(w) for w in atom.split(":", 1)[1].lower().split()}


def relaxations(tree) -> list:
    """For each NOT node: the query with that NOT made true, and the query."""
    return [(replace(tree, node, True), tree) for node in not_nodes(tree)]


# --------------------------------------------------------------------------
# Fixtures
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    return build()


@pytest.fixture(scope="module")
def fresh(data, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("demo_fresh")
    counts = write(data, out)
    assert counts["documents"] == len((out / "corpus.jsonl").read_text().splitlines())
    return out


@pytest.fixture(scope="module")
def notes(data) -> dict[str, dict]:
    return {a["id"]: a for a in noise_records(data)}


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
    """What the text says: folded words of each document."""
    return {doc["id"]: words_of(doc["contents"]) for doc in corpus}


@pytest.fixture(scope="module")
def true_words(notes) -> dict[str, set[str]]:
    """What is true: folded words of the query terms of each document's attributes."""
    return {docid: set().union(*(term_words(a) for a in note["atoms"])) for docid, note in notes.items()}


@pytest.fixture(scope="module")
def vocabulary(notes, logical) -> list[str]:
    """Every atom that occurs as an attribute or a contrast, sorted."""
    atoms = {a for note in notes.values() for key in ("atoms", "contrasted") for a in note[key]}
    terms = {m.group(1) for q in logical.values() for m in re.finditer(r'"([^"]+)"', q)}
    assert terms <= {a.split(":", 1)[1] for a in atoms}, "a query term is no attribute"
    return sorted(atoms)


# --------------------------------------------------------------------------
# Generator
# --------------------------------------------------------------------------


def test_generation_is_deterministic(fresh, tmp_path):
    # A second run in a new interpreter with another str-hash seed: any
    # dependence on set or dict ordering of strings would change the bytes.
    env = dict(os.environ, PYTHONHASHSEED="4242")
    subprocess.run([sys.executable, str(REPO_ROOT / "scripts" / "make_demo_data.py"), "--output", str(tmp_path)],
                   check=True, env=env, cwd=REPO_ROOT, capture_output=True)
    for name in FILES:
        assert (tmp_path / name).read_bytes() == (fresh / name).read_bytes(), name


def test_seed_is_used(fresh, tmp_path):
    generate(tmp_path, seed=14)
    assert (tmp_path / "corpus.jsonl").read_bytes() != (fresh / "corpus.jsonl").read_bytes()


def test_bundled_files_equal_fresh_generation(fresh):
    for name in FILES:
        assert (DEMO_DIR / name).read_bytes() == (fresh / name).read_bytes(), (
            f"{name} is stale: run python scripts/make_demo_data.py")


def test_noise_records_follow_the_corpus(notes, corpus):
    assert list(notes) == [doc["id"] for doc in corpus]
    for docid, note in notes.items():
        atoms, literal, para, contrast = (set(note[k]) for k in ("atoms", "literal", "paraphrased", "contrasted"))
        assert literal | para == atoms and not literal & para, docid
        assert not contrast & atoms, docid
        kinds = [a for a in atoms if a.startswith("kind:")]
        assert len(kinds) == 1 and kinds[0] in literal, docid  # the kind is never paraphrased
        assert sum(a.startswith("city:") for a in atoms) == 1, docid


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
    assert len(logical) == 160
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
# Ground truth: the qrels are the logic of the query over the true attributes
# --------------------------------------------------------------------------


def test_parser_follows_precedence():
    tree = parse('"a" OR "b c" AND NOT d')
    assert tree == ("or", [("term", ("a",)), ("and", [("term", ("b", "c")), ("not", ("term", ("d",)))])])


def test_qrels_equal_boolean_evaluation_over_true_attributes(logical, qrels, true_words):
    for qid, query in logical.items():
        tree = parse(query)
        assert {d for d, words in true_words.items() if holds(tree, words)} == qrels[qid], qid


def test_negations_have_hard_negatives(logical, true_words, doc_words):
    # For each NOT: documents that satisfy everything else but have the
    # excluded attribute -- what plain BM25 ranks on top.  Some of them
    # paraphrase the excluded attribute, so fewer *name* it.
    for qid, query in logical.items():
        for relaxed, tree in relaxations(parse(query)):
            hard = [d for d, w in true_words.items() if holds(relaxed, w) and not holds(tree, w)]
            assert len(hard) >= NEAR_MISSES_NEGATED, qid
            named = [d for d, w in doc_words.items() if holds(relaxed, w) and not holds(tree, w)]
            assert len(named) >= NEAR_MISSES_NEGATED // 2, qid


# --------------------------------------------------------------------------
# Noise: the text departs from the truth exactly as recorded and documented
# --------------------------------------------------------------------------


def test_text_names_exactly_the_literal_and_contrasted_attributes(notes, doc_words, vocabulary):
    # A term's words are in a document iff the attribute is written literally
    # or named contrastively: paraphrases share no word with the term, and
    # nothing else matches by accident.
    for docid, note in notes.items():
        named = set(note["literal"]) | set(note["contrasted"])
        for atom in vocabulary:
            words = term_words(atom)
            if atom in named:
                assert words <= doc_words[docid], (docid, atom)
            else:
                assert not words & doc_words[docid], (docid, atom)


def test_paraphrase_rate_is_as_documented(notes):
    pairs = Counter(a.split(":")[0] for n in notes.values() for a in n["atoms"] if not a.startswith("kind:"))
    para = Counter(a.split(":")[0] for n in notes.values() for a in n["paraphrased"])
    low, high = PARAPHRASE_BOUNDS
    assert low <= sum(para.values()) / sum(pairs.values()) <= high
    for attribute in ("city", "type", "feature"):  # every attribute is affected, none singled out
        assert low - 0.03 <= para[attribute] / pairs[attribute] <= high + 0.03, attribute


def test_contrast_rate_is_as_documented(notes):
    contrasted = [n["contrasted"] for n in notes.values() if n["contrasted"]]
    low, high = CONTRAST_BOUNDS
    assert low <= len(contrasted) / len(notes) <= high
    assert all(len(c) == 1 for c in contrasted)
    assert {c[0].split(":")[0] for c in contrasted} == {"kind", "city", "type", "feature"}


def test_noise_breaks_boolean_matching_over_the_text(logical, qrels, doc_words, notes):
    # Boolean matching over the words loses some relevant documents and admits
    # some non-relevant ones -- but stays informative.
    tp = fp = fn = 0
    leaks = contrast_hits = 0
    for qid, query in logical.items():
        tree = parse(query)
        matched = {d for d, w in doc_words.items() if holds(tree, w)}
        tp, fp, fn = tp + len(matched & qrels[qid]), fp + len(matched - qrels[qid]), fn + len(qrels[qid] - matched)
        terms = {m.group(1) for m in re.finditer(r'NOT "([^"]+)"', query)}
        for d in matched - qrels[qid]:  # non-relevant, matched: a paraphrase hid an excluded attribute ...
            leaks += any(a.split(":", 1)[1] in terms for a in notes[d]["paraphrased"])
        for d in qrels[qid] - matched:  # ... relevant, missed: e.g. a contrastive mention of an excluded term
            contrast_hits += any(a.split(":", 1)[1] in terms for a in notes[d]["contrasted"])
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    assert 0.75 <= precision <= 0.97, precision
    assert 0.75 <= recall <= 0.95, recall
    assert leaks >= 20 and contrast_hits >= 5, (leaks, contrast_hits)


def test_document_lengths_and_term_frequencies_vary(corpus, notes, doc_words):
    lengths = sorted(len(doc["contents"].split()) for doc in corpus)
    assert lengths[9 * len(lengths) // 10] >= 2.5 * lengths[len(lengths) // 10]
    share_long = sum(n["long"] for n in notes.values()) / len(notes)
    assert abs(share_long - LONG_DOC_RATE) <= 0.03
    # Literal attribute terms occur one to three times.
    tf = Counter()
    for doc in corpus:
        tokens = [fold(w) for w in re.findall(r"[a-z0-9]+", doc["contents"].lower())]
        for atom in notes[doc["id"]]["literal"]:
            words = sorted(term_words(atom))
            if len(words) == 1 and not atom.startswith("kind:"):
                tf[tokens.count(words[0])] += 1
    assert set(tf) >= {1, 2, 3} and tf[1] > tf[2] > tf[3], tf


def test_query_terms_match_with_the_lucene_analyzer(corpus, doc_words, vocabulary):
    """Porter stemming must not create matches the folded words do not have
    (e.g. 'animated' would match 'animation', 'guide' would match 'guided')."""
    jnius = pytest.importorskip("jnius")  # noqa: F841
    try:
        import logical_pyserini._bootstrap as bootstrap

        bootstrap.ensure_pyserini()
        from pyserini.analysis import Analyzer, get_lucene_analyzer
    except Exception as exc:  # pragma: no cover - depends on the local Java
        pytest.skip(f"pyserini unavailable: {exc}")
    analyzer = Analyzer(get_lucene_analyzer())
    stems = {doc["id"]: set(analyzer.analyze(doc["contents"])) for doc in corpus}
    for term in sorted({a.split(":", 1)[1] for a in vocabulary}):
        folded = {fold(w) for w in term.lower().split()}
        expected = {d for d, w in doc_words.items() if folded <= w}
        # Each stem on its own, so that no document matches half a phrase.
        for stem in analyzer.analyze(term):
            assert {d for d, s in stems.items() if stem in s} == expected, (term, stem)


def test_llm_subset_slices_are_disjoint_and_cover_every_topic():
    """Held-out slices of the LLM rows' topics (--skip-per-template) never overlap the topics read before."""
    from logical_pyserini.demo import llm_subset

    meta = [json.loads(line) for line in (Path(DEMO_DIR) / "metadata.jsonl").read_text().splitlines()]
    first = llm_subset(Path(DEMO_DIR), 1)
    assert len(first) == len({m["template"] for m in meta})
    read, rest = llm_subset(Path(DEMO_DIR), 2), llm_subset(Path(DEMO_DIR), 100, skip=2)
    assert set(first) <= set(read) and not set(read) & set(rest)
    assert sorted(read + rest) == sorted(m["qid"] for m in meta)
    template = {m["qid"]: m["template"] for m in meta}
    assert Counter(template[q] for q in llm_subset(Path(DEMO_DIR), 3, skip=2)) == Counter(
        {t: 3 for t in set(template.values())})
