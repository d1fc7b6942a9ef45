"""The leaf-score OrLog oracle (the default without an LLM) on a real index."""

from __future__ import annotations

import numpy as np
import pytest

from conftest import MUSEUMS


def test_leaf_scores_equal_the_normalised_leaf_scores_of_logical_search(searcher):
    hits = searcher.search('museum AND Amsterdam AND NOT art', k=20)
    docids = [h.docid for h in hits] + ["no-such-doc"]
    for leaf in ("museum", "Amsterdam", "art"):
        values = searcher.leaf_scores(leaf, docids)
        assert values[-1] == 0.0 and np.all((values >= 0) & (values <= 1))
        expected = [h.leaf_scores[leaf] for h in hits]
        assert values[:-1] == pytest.approx(expected, abs=1e-6)
    assert searcher.leaf_scores("art", ["m01"])[0] > 0 and searcher.leaf_scores("art", ["m04"])[0] == 0


def test_statement_leaf_inverts_the_leaf_statement():
    from logical_pyserini.rerank._leaf import statement_leaf
    from logical_pyserini.rerank import leaf_statement

    for leaf in ('art museums', 'a "quoted" {x} leaf'):
        assert statement_leaf(leaf_statement(leaf)) == leaf
    assert statement_leaf("{x} is a comedy film") == "is a comedy film"


def test_orlog_with_leaf_oracle_keeps_what_itlr_got_right(searcher):
    from logical_pyserini.query import parse_query
    from logical_pyserini.rerank import OrLogReranker, get_oracle

    oracle = get_oracle("leaf")
    oracle.bind(searcher.leaf_scores)
    reranker = OrLogReranker(oracle, depth=10, fusion=1.0)  # the posterior alone (no fusion with the base score)
    for q in ('museum AND Amsterdam AND NOT art', 'museum AND Paris AND NOT (art OR science)'):
        tree = parse_query(q)
        hits = searcher.search(tree, k=10)
        new, stats = reranker.rerank(tree, hits)
        assert not stats.fallback
        # AND / NOT only: the posterior is the product of (1 - x) and x, i.e. ITLR's own score.
        assert [h.docid for h in new] == [h.docid for h in hits]
        assert [h.rerank_score for h in new] == pytest.approx([h.score for h in hits], rel=1e-6, abs=1e-9)


def test_unbound_leaf_oracle_falls_back_to_the_base_ranking(searcher):
    from logical_pyserini.query import parse_query
    from logical_pyserini.rerank import OrLogReranker, get_oracle

    hits = searcher.search('museum AND NOT art', k=5)
    new, stats = OrLogReranker(get_oracle("leaf"), depth=5).rerank(parse_query('museum AND NOT art'), hits)
    assert stats.fallback and "bind" in stats.error and [h.docid for h in new] == [h.docid for h in hits]


def test_cli_default_oracle_without_an_llm_is_the_leaf_oracle(tmp_path, museum_index, monkeypatch, capsys):
    from logical_pyserini.search.__main__ import main

    monkeypatch.setenv("LOGICAL_PYSERINI_HOME", str(tmp_path / "empty-home"))  # no model installed
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND Amsterdam AND NOT art\nq2\t(Paris OR Madrid) AND museum\n")
    base, reranked = tmp_path / "base.txt", tmp_path / "orlog.txt"
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(base), "--quiet"]) == 0
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(reranked), "--rerank",
                 "orlog", "--rerank-depth", "5", "--quiet"]) == 0
    err = capsys.readouterr().err
    assert "0 fell back" in err

    def top(path, qid):
        return [line.split()[2] for line in path.read_text().splitlines() if line.startswith(qid + " ")][:3]

    assert top(reranked, "q1") == top(base, "q1")
    assert set(top(reranked, "q2")) <= {d for d, text in MUSEUMS if "museum" in text.lower()}


def test_cli_writes_the_rerank_record_next_to_the_run(tmp_path, museum_index, monkeypatch):
    import json

    from logical_pyserini.search.__main__ import main

    monkeypatch.setenv("LOGICAL_PYSERINI_HOME", str(tmp_path / "empty-home"))
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseum AND Amsterdam AND NOT art\nq2\t(Paris OR Madrid) AND museum\n")
    base, reranked = tmp_path / "base.txt", tmp_path / "orlog.txt"
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(base), "--quiet"]) == 0
    assert not (tmp_path / "base.txt.rerank.jsonl").exists()  # nothing reranked, no record
    assert main(["--index", str(museum_index), "--topics", str(topics), "--output", str(reranked), "--rerank",
                 "orlog", "--rerank-depth", "4", "--rerank-fusion", "0.5", "--quiet"]) == 0
    records = [json.loads(line) for line in (tmp_path / "orlog.txt.rerank.jsonl").read_text().splitlines()]
    assert [r["qid"] for r in records] == ["q1", "q2"]
    run = {q: [line.split()[2] for line in reranked.read_text().splitlines() if line.startswith(q + " ")]
           for q in ("q1", "q2")}
    base_run = {q: [line.split()[2] for line in base.read_text().splitlines() if line.startswith(q + " ")]
                for q in ("q1", "q2")}
    for r in records:
        rows = r["reranked"]
        assert [row["docid"] for row in rows] == run[r["qid"]][: len(rows)] and 0 < len(rows) <= 4
        assert sorted(row["base_rank"] for row in rows) == list(range(1, len(rows) + 1))
        assert all(base_run[r["qid"]][row["base_rank"] - 1] == row["docid"] for row in rows)
        assert all(0.0 <= row["posterior"] <= 1.0 for row in rows)
        scores = [row["score"] for row in rows]
        assert scores == sorted(scores, reverse=True)
        # The final score is the fusion of the posterior with the scaled base score, not the posterior itself.
        b = [row["base_score"] for row in rows]
        lo, hi = min(b), max(b)
        for row in rows:
            scaled = (row["base_score"] - lo) / (hi - lo) if hi > lo else 0.0
            assert row["score"] == pytest.approx(0.5 * row["posterior"] + 0.5 * scaled, abs=1e-5)


def test_resume_keeps_the_side_records_of_topics_done_before(tmp_path, museum_index, monkeypatch):
    """``--resume`` redoes only the unfinished topics; their rewrite and rerank records join those of the topics
    finished before, which are kept as they were (both side records share one reader, ``_earlier_lines``)."""
    import json

    from logical_pyserini.search.__main__ import main

    monkeypatch.setenv("LOGICAL_PYSERINI_HOME", str(tmp_path / "empty-home"))
    topics = tmp_path / "t.tsv"
    topics.write_text("q1\tmuseums in Amsterdam but not art museums\nq2\tmuseums in Paris or Madrid\n")
    run = tmp_path / "run.txt"
    args = ["--index", str(museum_index), "--topics", str(topics), "--output", str(run), "--rewrite", "rules",
            "--rerank", "orlog", "--rerank-depth", "4", "--quiet"]
    assert main(args) == 0
    rewrites, rerank = tmp_path / "run.txt.rewrites.tsv", tmp_path / "run.txt.rerank.jsonl"
    full = {"run": run.read_text(), "rewrites": rewrites.read_text(), "rerank": rerank.read_text()}
    # An interrupted run: q1 finished (its side records marked, to see that they are kept, not redone), q2 cut.
    lines = run.read_text().splitlines()
    (tmp_path / "run.txt.partial").write_text("".join(line + "\n" for line in lines if line.startswith("q1 "))
                                              + next(line for line in lines if line.startswith("q2 ")) + "\n")
    run.unlink()
    rewrites.write_text("q1\t\"earlier\"\tearlier\n")
    rerank.write_text(json.dumps({"qid": "q1", "reranked": [], "note": "earlier"}) + "\n")
    assert main(args + ["--resume"]) == 0
    assert run.read_text() == full["run"]
    assert rewrites.read_text().splitlines() == ["q1\t\"earlier\"\tearlier", full["rewrites"].splitlines()[1]]
    records = [json.loads(line) for line in rerank.read_text().splitlines()]
    assert records[0] == {"qid": "q1", "reranked": [], "note": "earlier"}
    assert [r["qid"] for r in records] == ["q1", "q2"]
    assert records[1] == json.loads(full["rerank"].splitlines()[1])
