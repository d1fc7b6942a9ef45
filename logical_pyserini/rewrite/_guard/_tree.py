"""Repairs of a rewrite's operator tree that the rewriters apply before the guard (rules and model alike)."""

from __future__ import annotations


from ...query import And, Node, Not, Or, Term, count_negations, iter_terms, shape
from ._text import _CLAUSE_BREAKS, _TOKEN, _bare, _cues, _match, _plain, _sentences, _words
from ._scopes import _operator_cues, _scoped_tokens, exclusion_scopes


def missing_operators(question: str, tree: Node) -> list[str]:
    """Operators the question's wording asks for that ``tree`` lacks: ``"OR"`` for "or" / "either", ``"NOT"``
    for an exclusion cue ("except", "not", "without", "neither" ...) or any other cue that opens an exclusion
    scope (", ignoring X", "X is irrelevant to me", "so leave that out").

    A model rewrite with such a gap gets a repair round that names it
    ("Museums in Vienna or Copenhagen except ..." rewritten with AND only).
    """
    ors, exclusions = _operator_cues(question)
    structure = shape(tree)  # leaves anonymised: a quoted "or" is not an operator
    asked = {"OR": bool(ors), "NOT": bool(exclusions) or bool(exclusion_scopes(question))}
    return [op for op in ("OR", "NOT") if asked[op] and f"{op}(" not in structure]


def excluded_positive_terms(question: str, tree: Node) -> list[str]:
    """Positive leaves of ``tree`` that ask for what the question excludes: a word of theirs occurs in the
    question only inside exclusion scopes.

    "Textile museums excluding museums with a garden as well as museums with
    a library" read as ``"museums with a garden" AND "museums with a library"
    AND NOT "textile"``: both positive leaves are flagged ("garden" and
    "library" occur only after "excluding"); a shared head ("museums") alone
    flags nothing.
    """
    only_excluded = excluded_only_words(question)
    return [term.text for term, negated in iter_terms(tree)
            if not negated and only_excluded & set(_words(term.text))]


def excluded_only_words(question: str) -> set[str]:
    """Lower-cased words (stopwords and filler aside) that ``question`` uses only inside exclusion scopes:
    ``{"ferns"}`` for "Houseplants that tolerate low light; avoid anything with ferns."."""
    tokens, _, in_scope = _scoped_tokens(_sentences(question))
    lower = [t.lower() for t in tokens]
    return {lower[j] for j in in_scope} - {w for j, w in enumerate(lower) if j not in in_scope} - _cues().ignore


def unasked_disjunction(question: str, tree: Node) -> bool:
    """True when the question says "both" and no "or" / "either", yet ``tree`` has an OR outside every NOT.

    "Museums that are both museums with an auditorium and museums with a
    garden" rewritten with OR: the model's answer gets the repair round.
    Only "both" counts: "museums in Paris and Amsterdam" often means either
    city, and an OR under a NOT ("neither A nor B") is a conjunction of NOTs.
    """
    cues = _cues()
    tokens = _words(question)
    if not any(_match(tokens, i, cues.conjunction) for i in range(len(tokens))) or _operator_cues(question)[0]:
        return False

    def free_or(node: Node) -> bool:
        if isinstance(node, (Term, Not)):
            return False
        return isinstance(node, Or) or any(free_or(c) for c in node.children)

    return free_or(tree)


def scope_trailing_exclusion(question: str, tree: Node) -> Node:
    """``A OR (B AND NOT C)`` -> ``(A OR B) AND NOT C`` when the question states the exclusion after its last
    alternative ("museums in Vienna or Copenhagen except history museums").

    NOT binds tighter than AND and AND tighter than OR, so a model that
    writes the three parts in the question's order without parentheses
    excludes C from the last alternative only; in English a trailing
    exclusion covers the whole list.  Anything else comes back unchanged.
    """
    if not isinstance(tree, Or) or not isinstance(tree.children[-1], And):
        return tree
    last = tree.children[-1].children
    nots = tuple(c for c in last if isinstance(c, Not))
    rest = tuple(c for c in last if not isinstance(c, Not))
    if not nots or not rest or any(count_negations(c) for c in tree.children[:-1]):
        return tree
    ors, exclusions = _operator_cues(question)
    if not ors or not exclusions or min(exclusions) < max(ors):
        return tree
    branch = rest[0] if len(rest) == 1 else And(rest)
    return And((Or(tree.children[:-1] + (branch,)), *nots))


def lift_inner_negations(tree: Node, question: str | None = None) -> Node:
    """Move a negation written inside a term out of its quotes: ``"museums not in Paris"`` -> ``"museums" AND
    NOT "museums in Paris"``; ``"documents not about chess"`` -> ``NOT "documents about chess"``;
    ``"museums without a library"`` -> ``"museums" AND NOT "museums with a library"`` (the cue's positive
    form, ``inner_negation_positive`` of ``guard.json``, opens the excluded phrase).

    A lexical leaf cannot express "not" (BM25 drops it), so such a term
    would *reward* the excluded topic; small models write them ("Documents
    not about X" -> ``"documents not about X"``).  The words before the
    negation stay a positive term unless they only name the kind of result
    ("documents", "articles": ``generic_heads``); the excluded phrase keeps
    its own head noun, or borrows the kept part's ("in Paris" -> "museums in
    Paris").  In a conjunction, a term that only names the kind of result
    (``"documents" AND NOT "chess"``) is dropped.  A term under a NOT that
    *opens* with a cue counts the question's negation twice (``NOT "without
    a garden"`` for "... and without a garden"): the cue is replaced by its
    positive form (``NOT "with a garden"``), unless ``question`` itself
    negates that phrase (:func:`negates_negated_phrase`: "not without a
    garden", "but not those without a garden") or the cue is capitalised
    (``NOT "Never Let Me Go"`` names a title).  A negation further inside a
    NOT'd term (``NOT "houseplants that do not have ferns"``, also "don't"
    and the other ``inner_negation_contractions``) goes the same way, by the
    same test, when ``question`` is given ("Museums without a garden" read as
    ``NOT "museums without a garden"`` becomes ``NOT "museums with a
    garden"``); without ``question`` such a term is left alone.  Only model rewrites
    pass through here: a title that opens with "Not" would be lifted too.
    """
    from .._data import load_rules  # late: the rule data loads on first use

    cues = _cues()
    if not cues.inner_negation:
        return tree
    heads = load_rules().heads
    generic = cues.generic_heads | cues.ignore
    positives = dict(cues.positive)  # "without" -> "with"

    def names_only_the_kind(words) -> bool:  # "documents", "the articles": no constraint of its own
        return all(w.lower() in generic for w in words)

    def lift(term: Term) -> Node:
        words = term.text.split()
        lower = [w.lower().strip(",;:") for w in words]
        at = next((i for i, w in enumerate(lower) if w in cues.inner_negation), None)
        if at is None or at == len(words) - 1:
            return term
        kept, excluded = words[:at], words[at + 1:]
        positive = positives.get(lower[at])
        if positive and not any(w.lower() in heads for w in excluded):
            excluded = [positive, *excluded]  # "without a library" excludes "with a library", not "a library"
        trimmed = True
        while kept and trimmed:  # drop "that are", "which is", "but" before the negation
            trimmed = False
            for seq in cues.lead_in:
                if len(seq) <= len(kept) and tuple(w.lower() for w in kept[-len(seq):]) == seq:
                    kept, trimmed = kept[: -len(seq)], True
                    break
        head = next((w for w in reversed(kept) if w.lower() in heads), None)
        if not any(w.lower() in heads for w in excluded) and head:
            excluded = [head, *excluded]
        negated = Not(Term(" ".join(excluded), term.retriever))
        if names_only_the_kind(kept):  # (also when nothing is kept)
            return negated
        return And((Term(" ".join(kept), term.retriever), negated))

    def undouble(node: Not) -> Not:
        """A negation written inside a NOT'd term counts the question's negation twice; it becomes its
        positive form ("without" -> "with", "don't" -> "do") or goes."""
        term = node.child
        if not isinstance(term, Term):
            return node
        words = term.text.split()
        at = negation_at(words)
        if at is None or (at and not question):  # inside a phrase, only the question tells a double negation
            return node
        if question and negates_negated_phrase(question, " ".join(words[at:])):
            return node  # "not without a garden", "but not those without a garden": meant twice
        cue = _bare(words[at])
        swap = positives.get(cue) or cues.contractions.get(cue)
        return Not(Term(" ".join(words[:at] + ([swap] if swap else []) + words[at + 1:]), term.retriever), node.weight)

    def walk(node: Node) -> Node:
        if isinstance(node, Term):
            return lift(node)
        if isinstance(node, Not):
            return undouble(node)
        children = tuple(walk(c) for c in node.children)
        return children[0] if len(children) == 1 else type(node)(children)

    return drop_kind_only_terms(walk(tree))


def narrow_negations(tree: Node) -> Node:
    """Keep in each term a conjunction negates only what sets it apart: ``"films set in Porto" AND NOT "comedy
    films"`` -> ``… AND NOT "comedy"``; ``"romance novels about exile" AND NOT "romance novels about espionage"``
    -> ``… AND NOT "about espionage"`` (stopwords are left to the analyser).

    A negated lexical leaf that repeats the kind of result ("films",
    ``heads`` of ``rules.json``) or a word of the positive conjuncts scores
    every document the query wants, so its NOT pushes them all down and
    lifts documents of other kinds that share a word with the positive
    leaves (museums in Porto): measured on the demo, such rewrites ranked no
    relevant film in the top 10.  Head nouns and words of the positive
    siblings are dropped; a term that would keep no content word ("sequels")
    stays, and so does a NOT with no positive sibling (then the kind is all
    it can name).  Only the search tree is narrowed: the predicate the OrLog
    oracle judges keeps the whole phrase ("{x} is a comedy film").
    """
    from .._data import load_rules  # late: the rule data loads on first use

    heads = load_rules().heads
    ignore = _cues().ignore

    def narrow(node: Node, shared: set[str]) -> Node:
        if isinstance(node, Term):
            words = node.text.split()
            kept = [w for w in words if w.lower() not in heads and w.lower() not in shared]
            if kept != words and any(w.lower() not in ignore for w in kept):
                return Term(" ".join(kept), node.retriever)
            return node
        if isinstance(node, Not):
            return Not(narrow(node.child, shared), node.weight)
        return type(node)(tuple(narrow(c, shared) for c in node.children))

    def walk(node: Node) -> Node:
        if isinstance(node, (Term, Not)):
            return node
        positive = [c for c in node.children if not isinstance(c, Not)] if isinstance(node, And) else []
        shared = {w.lower() for c in positive for t, negated in iter_terms(c) if not negated
                  for w in t.text.split()} - ignore
        return type(node)(tuple(Not(narrow(c.child, shared), c.weight) if positive and isinstance(c, Not) else walk(c)
                                for c in node.children))

    return walk(tree)


def drop_kind_only_terms(tree: Node) -> Node:
    """Drop AND operands that add no constraint: ``"documents" AND NOT "chess"`` -> ``NOT "chess"``.

    A term that only names the kind of result ("documents", "articles":
    ``generic_heads`` of ``guard.json``) matches few documents lexically, so
    inside a product it would zero nearly every score; a bare head noun left
    by a lift ("stories") is implied by a sibling that names it.  Nested
    conjunctions are flattened; terms under a NOT are left alone; a query
    that is only such a term stays as it is.
    """
    cues = _cues()
    generic = cues.generic_heads | cues.ignore

    def walk(node: Node) -> Node:
        if isinstance(node, (Term, Not)):
            return node
        children = tuple(walk(c) for c in node.children)
        if isinstance(node, And):  # keep conjunctions flat
            children = tuple(g for c in children for g in (c.children if isinstance(c, And) else (c,)))
            words = [set(c.text.lower().split()) if isinstance(c, Term) else set() for c in children]
            kept = tuple(c for i, c in enumerate(children)
                         if not (isinstance(c, Term) and (
                             all(w.strip(",;:") in generic for w in words[i])
                             or len(words[i]) == 1 and any(words[i] <= w for j, w in enumerate(words)
                                                           if j != i and len(w) > 1))))
            children = kept or children
        return children[0] if len(children) == 1 else type(node)(children)

    return walk(tree)


def negation_at(words: list[str]) -> int | None:
    """Where a phrase carries a negation of its own: a lower-case leading cue (``without a garden``; ``Never Let
    Me Go`` is a title) or one inside it (``houseplants that do not have ferns``, ``don't``); else None."""
    cues = _cues()
    if len(words) > 1 and words[0] in cues.inner_negation:
        return 0
    lower = [_bare(w) for w in words]
    return next((i for i, w in enumerate(lower) if i and i < len(words) - 1
                 and (w in cues.inner_negation or w in cues.contractions)), None)


def doubly_negated_atoms(question: str, atoms: tuple[str, ...] | list[str], formula: Node) -> list[int]:
    """Atoms a decomposition negates although their statement is already negative and the question negates
    the thing only once: ``NOT 1`` with atom 1 ``"{x} does not have ferns"`` for "avoid anything with ferns".

    ``formula`` is the id tree (``Decomposition.formula_tree()``); the same
    test as for a rewrite's NOT'd terms (:func:`negation_at`,
    :func:`negates_negated_phrase`).
    """
    out = []
    for term, negated in iter_terms(formula):
        i = int(term.text)
        words = atoms[i].replace("{x}", " ").split()
        at = negation_at(words)
        if negated and at is not None and i not in out \
                and not negates_negated_phrase(question, " ".join(words[at:])):
            out.append(i)
    return out


def negates_negated_phrase(question: str, phrase: str) -> bool:
    """True when ``question`` states ``phrase`` (which opens with a negation: "without a garden") right after an
    exclusion cue of its own, i.e. negates it twice on purpose.

    The cue may sit up to three words before the phrase, with no punctuation
    or "and" / "or" / "but" between them:
    "not without a garden", "but not those without a garden", "but not plants
    that do not have ferns".  A phrase the question does not state, or states
    with no cue before it ("Museums without a garden"), is not negated twice:
    a rewrite's ``NOT "museums without a garden"`` for it asks for gardens.
    """
    cues = _cues()
    tokens = _TOKEN.findall(_plain(_sentences(question)).lower())
    wanted = _TOKEN.findall(_plain(phrase).lower())
    negators = (*cues.strong, *cues.weak, *((c,) for c in cues.inner_negation))
    for k in range(len(tokens) - len(wanted) + 1):
        if not wanted or tokens[k : k + len(wanted)] != wanted:
            continue
        for end in range(k - 1, max(k - 5, -1), -1):  # the cue's last token: 0-3 words between it and the phrase
            if any(end + 1 >= len(c) and tuple(tokens[end + 1 - len(c) : end + 1]) == c for c in negators):
                return True
            if not tokens[end][0].isalnum() or tokens[end] in _CLAUSE_BREAKS:  # "no café and without a garden"
                break
    return False
