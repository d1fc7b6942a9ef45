"""Rewriting that does no harm: keep the question, add only the exclusions the text confirms.

A rewrite of a long, real question can rank far below plain BM25 on the same
question: the question is cut into fragment leaves whose product punishes any
document that misses one fragment, and a negated leaf can carry the wrong words
("without Denmark" -> ``NOT "with Denmark"``; "Why do cats not like water?" ->
``NOT "like water"``).  :func:`guard_rewrite` turns any rewrite (rules or
model) into a safe one:

* **The whole question stays the positive leaf**, so the ranking of the
  documents that meet the constraints is exactly plain BM25's on the question
  (minus the excluded words).  Only a short, one-sentence question whose
  rewrite uses the question's own words keeps the rewrite's positive structure
  (its OR / AND leaves): there the parse is reliable.
* **A NOT is kept only when the question confirms it**: its leaf's words must
  lie in the scope of an exclusion cue of the question ("but not", "excluding",
  "don't mention", "X is off the table", "without" in a request — not in a
  question about a fact, nor after "when"/"if").  Only those words are kept
  (``NOT "Denmark"``, ``NOT "art"`` for "museums that are not art museums": a
  word the question also uses outside the exclusion is a shared head, not the
  thing excluded), at most ``max_constraint_words`` of them.  A model's NOT
  whose words no scope reaches is also kept when they all lie in one clause
  that says what not to return, each used once in the question ("I already
  know the Camargue, so exclude it": :func:`negative_clauses`); a model reads
  such anaphors, the cue lists do not.
* Otherwise the rewrite falls back to one leaf, the question: plain search.

The cues live in ``guard.json``.  The result is an ordinary :class:`Rewrite`,
so every consumer (search CLI, rewrite CLI, API) treats guarded and unguarded
rewrites alike.
"""

# Layers, each importing only the ones above it: _text (cue lists, tokens) -> _situations (negations that exclude
# nothing) -> _scopes (what each cue excludes) -> _tree (repairs the rewriters apply) -> _decision (the guard).
from ._scopes import exclusion_scopes, negative_clauses
from ._tree import (doubly_negated_atoms, drop_kind_only_terms, excluded_only_words, excluded_positive_terms,
                    lift_inner_negations, missing_operators, narrow_negations, negates_negated_phrase, negation_at,
                    scope_trailing_exclusion, unasked_disjunction)
from ._decision import GUARD_MODES, GUARD_NOT_WEIGHT, GuardDecision, guard_decision, guard_rewrite

__all__ = ["GUARD_MODES", "GUARD_NOT_WEIGHT", "GuardDecision", "doubly_negated_atoms", "drop_kind_only_terms", "excluded_only_words",
           "excluded_positive_terms", "exclusion_scopes", "guard_decision", "guard_rewrite", "lift_inner_negations",
           "missing_operators", "narrow_negations", "negates_negated_phrase", "negation_at", "negative_clauses",
           "scope_trailing_exclusion", "unasked_disjunction"]
