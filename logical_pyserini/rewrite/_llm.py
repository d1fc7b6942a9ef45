"""LLM rewriter: few-shot prompt -> validate -> one repair -> rule fallback (answers cached by the model layer)."""

from __future__ import annotations

import dataclasses
import json
import logging
from typing import Any, Callable, TypeVar

from ..prompts import fill, load_prompt
from ..query import Node, Or, normalize_text, parse_query
from ._guard import (doubly_negated_atoms, excluded_positive_terms, lift_inner_negations, missing_operators,
                     narrow_negations, scope_trailing_exclusion, unasked_disjunction)
from ._rules import RuleRewriter, split_clauses
from ._types import Decomposition, Rewrite, RewriteError
from ._validate import validate_decomposition, validate_query

__all__ = ["LLMRewriter", "build_messages"]

log = logging.getLogger(__name__)

T = TypeVar("T")


def build_messages(prompt: dict[str, Any], question: str, draft: str | None = None) -> list[dict[str, str]]:
    """Chat messages for ``question``: system, few-shot turns, then the request.

    The question (and, for a prompt with a ``{draft}`` field, the rule
    rewriter's draft query) is inserted JSON-encoded (quotes, backslashes and
    newlines escaped) into its own user turn, so no question text can close
    the data field, start a new line that looks like an instruction, or add a
    turn.
    """
    def user(q: str, d: str | None) -> str:
        fields = {"question": json.dumps(q, ensure_ascii=False)}
        if d is not None:
            fields["draft"] = json.dumps(d, ensure_ascii=False)
        return fill(prompt["user"], **fields)

    messages = [{"role": "system", "content": prompt["system"]}]
    for example in prompt.get("examples", []):
        messages.append({"role": "user", "content": user(example["question"], example.get("draft"))})
        messages.append({"role": "assistant", "content": example["answer"]})
    messages.append({"role": "user", "content": user(question, draft)})
    return messages


class LLMRewriter:
    """Rewrite questions with a language model; never fails, falls back to rules.

    :meth:`rewrite` asks for the logical query as one line (few tokens to
    decode: on a CPU, decoding dominates the cost) and derives each leaf's
    natural-language predicate from it; :meth:`decompose` asks for the JSON
    decomposition with the model's own predicates.  An answer that does not validate
    against the grammar gets one repair call that quotes the error; if that
    fails too, or the model cannot be asked, the rule rewriter answers and a
    warning is logged.  Answers are cached by the model layer (model id +
    prompt version + prompt).

    Parameters
    ----------
    model : LanguageModel
        From :func:`logical_pyserini.models.get_model`.
    fallback : RuleRewriter, optional
        The rules used when the model fails.
    max_leaves : int
        Most atoms accepted in one answer.
    max_new_tokens : int
        Generation limit per reply.
    draft : bool
        Show the model the rule rewriter's query for each clause as a draft to
        keep or correct (prompt ``rewrite_draft``, ``--rewrite llm-draft``):
        a small model then keeps the rules' structure where they are right and
        mends their fragment leaves, instead of re-deriving the structure.
        Any prompt whose user turn has a ``{draft}`` field gets the draft.

    Attributes
    ----------
    stats : dict
        ``ok``, ``repaired``, ``fallback``, ``model_calls``, ``backend_errors``,
        ``parse_tokens`` (prompt + generated tokens spent rewriting, for token accounting).
    """

    def __init__(self, model: Any, *, fallback: RuleRewriter | None = None, prompt: str = "rewrite",
                 decompose_prompt: str = "decompose", max_leaves: int = 8, max_new_tokens: int = 160,
                 draft: bool = False):
        self.model = model
        self.fallback = fallback or RuleRewriter()
        self.prompt = load_prompt("rewrite_draft" if draft and prompt == "rewrite" else prompt)
        self.draft = "{draft}" in self.prompt["user"]  # the rules' draft is computed only where the prompt shows it
        self.decompose_prompt = load_prompt(decompose_prompt)
        self.max_leaves = max_leaves
        self.max_new_tokens = int(max_new_tokens)
        self.stats: dict[str, int] = dict.fromkeys(
            ("ok", "repaired", "fallback", "model_calls", "backend_errors", "parse_tokens"), 0)

    @property
    def model_id(self) -> str:
        return self.model.id

    def rewrite(self, question: str) -> Rewrite:
        """Rewrite one question: one short model reply (the query line) per clause, validated against the grammar.

        A question of several clauses ("documents about A and B, or documents
        about C": :func:`split_clauses`) is asked clause by clause and the
        answers are joined with OR: a small model flattens such questions
        into one list.  ``decomposition`` carries the natural-language
        predicate of each leaf (``"museums in Porto"`` -> ``"{x} is a museum
        in Porto"``, from the phrasing templates of ``rules.json``): what the
        OrLog oracle is asked.
        """
        clauses = split_clauses(normalize_text(question)) if isinstance(question, str) else [question]
        parts = [self._rewrite_clause(c) for c in clauses]
        trees = [t for t, _, _ in parts]
        tree = trees[0] if len(trees) == 1 else Or(tuple(
            g for t in trees for g in (t.children if isinstance(t, Or) else (t,))))  # flat: one OR of all clauses
        # The least trusted clause names the whole: fallback > repaired > llm.
        source = max((s for _, s, _ in parts), key=("llm", "repaired", "fallback").index)
        decomposition = Decomposition.from_tree(tree, question, source)  # whole phrases: what the oracle judges
        decomposition = dataclasses.replace(decomposition, parse_tokens=sum(n for _, _, n in parts))
        tree = narrow_negations(tree)  # the search leaves: a NOT excludes the qualifier, not the kind of result
        return Rewrite(question, str(tree), tree, source, decomposition)

    def _rewrite_clause(self, question: str) -> tuple[Node, str, int]:
        """``(tree, source, tokens)`` for one clause: the model's answer, else the rules'."""
        def check(answer: str, first: bool) -> Node:
            tree = lift_inner_negations(validate_query(answer, question, max_leaves=self.max_leaves), question)
            # Asking for what the request excludes ("X excluding A as well as B" read as A AND B AND NOT X) is
            # worse than any gap: it gets the repair round, and if the repaired answer still does it, the rules.
            wrong = excluded_positive_terms(question, tree)
            if wrong:
                raise RewriteError(f"the request excludes {' and '.join(json.dumps(t) for t in wrong)} but the "
                                   "query asks for it: put it under NOT")
            if not first:  # a repaired answer that still has a gap is taken as the model's reading
                return tree
            cue = {"OR": '"or"', "NOT": 'an exclusion ("not", "except", "without", ...)'}
            gaps = [f"the request says {cue[op]} but the query has no {op}" for op in missing_operators(question, tree)]
            if unasked_disjunction(question, tree):
                gaps.append('the request says "both" and never "or", but the query joins conditions with OR')
            if gaps:
                raise RewriteError(" and ".join(gaps))
            return tree

        draft = str(self.fallback.tree(question)) if self.draft else None
        tree, source, tokens = self._ask(self.prompt, question, check, draft)
        if tree is None:
            return self.fallback.tree(question), source, tokens
        return scope_trailing_exclusion(question, tree), source, tokens

    def decompose(self, question: str) -> Decomposition:
        """Atoms (the model's own predicates and search phrases) and formula as JSON, else from the rules."""
        def check(answer: str, first: bool) -> tuple[tuple[str, ...], tuple[str, ...], str]:
            atoms, leaves, formula = validate_decomposition(answer, question, max_atoms=self.max_leaves)
            # NOT over "{x} does not have ferns" for "avoid anything with ferns" asks for ferns: repair, else rules.
            twice = doubly_negated_atoms(question, atoms, parse_query(formula))
            if twice:
                raise RewriteError(f"atom(s) {twice} state a negation and the formula negates them again, but the "
                                   "request negates that only once: state the atom positively and keep the NOT")
            return atoms, leaves, formula

        parts, source, tokens = self._ask(self.decompose_prompt, question, check)
        if parts is None:
            return Decomposition.from_tree(self.fallback.tree(question), question, "fallback")
        return Decomposition(question, *parts, source=source, parse_tokens=tokens)

    def _ask(self, prompt: dict[str, Any], question: str, check: Callable[[str, bool], T],
             draft: str | None = None) -> tuple[T | None, str, int]:
        """``(value, source, tokens spent)``; value None means "use the fallback"."""
        from ..models import ModelError

        messages = build_messages(prompt, question, draft)
        tokens = 0
        for source in ("llm", "repaired"):
            self.stats["model_calls"] += 1
            try:
                reply = self.model.generate([messages], self.max_new_tokens, version=prompt["version"])[0]
            except ModelError as exc:
                log.warning("falling back to rules for %r: %s", question, exc)
                self.stats["backend_errors"] += 1
                self.stats["fallback"] += 1
                return None, "fallback", tokens
            tokens += reply.prompt_tokens + reply.generated_tokens
            self.stats["parse_tokens"] += reply.prompt_tokens + reply.generated_tokens
            answer = reply.text.strip()
            try:
                value = check(answer, source == "llm")
            except RewriteError as error:
                log.info("invalid %s answer for %r: %s", source, question, error)
                # One repair turn: the model sees its answer and what is wrong with it.
                messages = messages + [
                    {"role": "assistant", "content": answer},
                    {"role": "user", "content": fill(prompt["repair"], error=json.dumps(str(error), ensure_ascii=False),
                                                     answer=json.dumps(answer, ensure_ascii=False))},
                ]
                continue
            self.stats["ok" if source == "llm" else "repaired"] += 1
            return value, source, tokens
        log.warning("falling back to rules for %r: the repaired answer is still invalid", question)
        self.stats["fallback"] += 1
        return None, "fallback", tokens
