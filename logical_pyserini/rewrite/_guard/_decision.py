"""The guard itself: which of a rewrite's NOTs the question confirms, and the safe rewrite built from them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from ...query import And, Node, Not, Term, distinct_terms, iter_terms, normalize_text
from .._types import Rewrite
from ._text import (_Cues, _SENTENCE_END, _cues, _gerund, _linked_name, _match, _sentence_end, _sentences, _title_case,
                    _words)
from ._situations import _clause_state, _contrast, _negated_action
from ._scopes import _asked_no, _items, _meta_lead, _scoped_tokens, _split_close, negative_clauses


#: ``--rewrite-guard`` values: no guard, the guard (default), the guard that also adds stated exclusions.
GUARD_MODES = ("off", "on", "propose")
_MODEL_SOURCES = ("llm", "repaired")  # rewrites a model wrote: the ones whose NOT may rest on a clause it read
#: Strength of the NOTs the guard adds to a question kept whole (``NOT^0.3``): a document that mentions an excluded
#: thing loses at most 30% of its score, so it falls below comparably relevant documents without sinking below
#: weakly related ones.  The guard reads exclusions from prose and is wrong on some of them; a strict NOT turned each
#: wrong one into a ranking far below plain search.  Chosen on the guard's first runs of 28 blind long-question sets
#: (nDCG@10 0.867 against 0.816 for strict NOTs, 18 questions below plain BM25 against 51); on three sets held out
#: 0.787 against 0.765, 4 below against 7 (``eval/bench_soft_not.py``).  A short question's reliable parse keeps
#: strict NOTs.
GUARD_NOT_WEIGHT = 0.3
#: A check of the kept exclusions: (question, exclusions) -> one keep flag each (``rewrite.ExclusionVerifier``).
Verify = Callable[[str, Sequence[str]], Sequence[bool]]
#: Exclusions the cues missed: (question, kept exclusions) -> names as the question writes them
#: (``rewrite.ExclusionProposer``).
Propose = Callable[[str, Sequence[str]], Sequence[str]]


@dataclass(frozen=True)
class GuardDecision:
    """What :func:`guard_rewrite` did: the new tree and why."""

    tree: Node
    mode: str  # "structure" (reliable parse kept), "question" (whole question as positive leaf) or "plain"
    kept: tuple[str, ...]  # the exclusions kept (their words)
    dropped: tuple[str, ...]  # the rewrite's negated leaves the question does not confirm
    vetoed: tuple[str, ...] = ()  # exclusions (confirmed or proposed) ``verify`` judged part of the asker's situation
    proposed: tuple[str, ...] = ()  # exclusions ``proposer`` added that ``verify`` kept (also in ``kept``)


def guard_decision(rewrite: Rewrite, propose: bool = False, verify: Verify | None = None,
                   not_weight: float = GUARD_NOT_WEIGHT, phrases: bool = False,
                   proposer: Propose | None = None) -> GuardDecision:
    """Decide the safe tree for ``rewrite`` (see the module docstring).

    With ``propose``, an exclusion the question states in a cue's scope is added
    even when the rewrite missed it ("Humphrey Bogart is off the table").
    ``verify`` (e.g. :class:`~logical_pyserini.rewrite.ExclusionVerifier`) gets
    the question and the exclusions the cues confirmed and returns a keep flag
    for each; a vetoed one is treated as never confirmed (its words stay in the
    positive leaf), so a veto only moves the rewrite toward plain search.
    ``proposer`` (e.g. :class:`~logical_pyserini.rewrite.ExclusionProposer`)
    gets the question and the exclusions kept so far and returns names the
    question writes that it should also exclude: each is added as a NOT of the
    question kept whole (soft, ``not_weight``), its mentions taken out of the
    positive text; ``verify``, when given, checks the proposals too.

    With ``phrases``, an exclusion added to a question kept whole that lost words the question also uses
    elsewhere ("please don't suggest a care home" in a question about help at home: ``NOT "care"``) is the
    whole item as a positional phrase instead (``NOT phrase:"care home"``): it sinks the documents that say
    the thing, not every document that uses one of its words.  Needs a Lucene index with positions.
    """
    cues = _cues()
    question = _sentences(rewrite.question)
    tokens, scopes, in_scope = _scoped_tokens(question)
    lower = [t.lower() for t in tokens]
    scope_words = {lower[j] for j in in_scope}
    outside_words = {w for j, w in enumerate(lower) if j not in in_scope and w[0].isalnum()}

    kept: list[list[str]] = []
    dropped: list[str] = []
    cue_tokens = {j for cs, ce, _, _ in scopes for j in range(cs, ce)}
    said_at: dict[tuple[str, ...], list[int]] = {}  # a kept NOT confirmed by its clause, not a scope: where it is
    stated_at: dict[tuple[str, ...], list[int]] = {}  # a NOT the question states: where its item is
    whole_at: dict[tuple[str, ...], tuple[int, int]] = {}  # a kept NOT that lost shared words: its whole item's span
    prose = phrases and _prose(lower, cues)
    for term, negated in iter_terms(rewrite.tree):
        if not negated:
            continue
        words = _words(term.text)
        named = [w for w in words if w in scope_words and w not in cues.ignore]
        core = _unshared(words, named, outside_words)
        if _written_name(tokens, lower, sorted(in_scope), words, outside_words, cues):
            core = words  # "don't say One Piece", "no Will Ferrell": a name stays whole
        top = _top_level_negation(rewrite.tree, term)
        if core and len(core) <= cues.max_constraint_words and top:
            if not any(set(core) <= set(k) for k in kept):
                kept.append(core)
                span = _item_span(lower, sorted(in_scope), words, cues) if prose and _lost_shared(named, core) \
                    else None
                if span:
                    whole_at[tuple(core)] = span
        elif top and rewrite.source in _MODEL_SOURCES and (
                said := _said_in_negative_clause(term, question, tokens, cue_tokens, cues)):
            core = [lower[j] for j in said]
            if not any(set(core) <= set(k) for k in kept):
                kept.append(core)
                said_at[tuple(core)] = said
        else:
            dropped.append(term.text)
    if propose:  # exclusions the question states that the rewrite missed
        stated = []  # (the scope's item span, after a weak cue?, named words, those not shared with the question)
        for cs, ce, start, end in scopes:
            # "so definitely not the Tour du Mont Blanc again": a repeat refused, not a contrast with the request
            weak = _contrast(lower, tokens, cs, ce, cues) and "again" not in lower[start : end + 1] \
                and not _asked_no(lower, cs, ce, cues)  # "said no Cascadia pls"
            items = (x for it in _items(lower, start, end, cues)
                     for x in _named_examples(_gerund_object(it, cues), tokens, lower, start, end))
            for item in items:
                item = [w for w in item if w not in cues.comment_adverbs]  # "Jonathan Strange obviously and also ..."
                whole = [w for w in item if w[:1].isalnum()]
                span = list(range(start, end))
                if whole and whole[0] in cues.determiners and len(whole) > 2 \
                        and not _written_name(tokens, lower, span, whole, outside_words, cues):
                    whole = whole[1:]  # "setting the Battle of Hastings aside" (not "The Wire": its article is its own)
                if _written_name(tokens, lower, span, whole, outside_words, cues):
                    named = unshared = whole  # "One Piece": a name stays whole
                else:
                    named = [w for w in item if w not in cues.ignore]
                    unshared = _unshared(item, named, outside_words)
                stated.append(((start, end), weak, named, unshared, item))
        # A rewrite's NOT that runs two stated items together ("mushrooms olives" for "without mushrooms, olives or
        # anchovies") gives way to the items themselves.
        cores = [set(unshared) for *_, unshared, _ in stated]
        kept = [k for k in kept if sum(1 for c in cores if c and c & set(k)) < 2 or not set(k) <= set().union(*cores)]
        for (start, end), weak, named, unshared, item in stated:
            # Shared words are heads ("but not *art* museums"), unless a strong cue's item has no other word: then
            # the question names the excluded thing outside the exclusion too ("Hostas are everywhere, so ... other
            # than hostas"); after a weak cue it is a contrast ("Books from Iceland that aren't about Iceland").
            core = unshared or ([] if weak and _said_around(tokens, lower, in_scope, start, end, named)
                                and not _tried_elsewhere(lower, in_scope, named, cues) else named)
            if core and len(core) <= cues.max_constraint_words and not any(set(core) <= set(k) for k in kept):
                # A kept exclusion that is a fragment of this stated one ("diets" of the model's "keto diets" beside
                # "ketogenic diets") would exclude more than asked: the stated phrase replaces it.
                kept = [k for k in kept if not set(k) < set(core)] + [core]
                stated_at[tuple(core)] = [j for j in range(start, end) if lower[j] in core]
            # the stated item whole, for --rewrite-phrases (also when the rewrite's own NOT kept the same words)
            if prose and _lost_shared(named, unshared) and core in kept and tuple(core) not in whole_at:
                span = _item_span(lower, list(range(start, end)), item, cues)
                if span:
                    whole_at[tuple(core)] = span
    # Write each kept exclusion with the question's own spelling, in the question's order.
    spelled, wholes = [], []
    for core in kept:
        js = said_at.get(tuple(core)) or stated_at.get(tuple(core)) or sorted(j for j in in_scope if lower[j] in core)
        spelled.append(" ".join(dict.fromkeys(tokens[j] for j in js)))
        span = whole_at.get(tuple(core))
        wholes.append(" ".join(tokens[span[0]:span[1]]) if span else None)
    # The model's proposals join the kept exclusions first, so that ``verify`` checks them too.
    proposed: list[str] = []
    named_at: dict[str, set[int]] = {}  # where each proposed name stands: out of the positive text
    if proposer is not None:
        for name in proposer(rewrite.question, tuple(spelled)):
            at = _mentions(lower, _words(name))
            if at and not any(set(_words(name)) <= set(k) for k in kept):
                kept.append(_words(name))
                spelled.append(" ".join(dict.fromkeys(tokens[j] for j in sorted(at))))
                wholes.append(None)
                proposed.append(spelled[-1])
                named_at[spelled[-1]] = at
    vetoed: list[str] = []
    if verify is not None and spelled:
        flags = list(verify(rewrite.question, tuple(spelled)))
        if len(flags) != len(spelled):
            raise ValueError(f"verify returned {len(flags)} flags for {len(spelled)} exclusions")
        vetoed = [text for text, keep in zip(spelled, flags) if not keep]
        kept = [core for core, keep in zip(kept, flags) if keep]
        spelled = [text for text, keep in zip(spelled, flags) if keep]
        wholes = [text for text, keep in zip(wholes, flags) if keep]
    proposed = [x for x in proposed if x not in vetoed]
    excluded = {j for j in in_scope if any(lower[j] in core for core in kept)}
    said = {j for core in kept for j in said_at.get(tuple(core), ())} | {j for x in proposed for j in named_at[x]}
    # A scope that yields an exclusion leaves the positive text whole, cue included: its other words are filler
    # ("anything about") or shared heads the question also uses outside it ("but not award-winning *novels*").
    removed = {j for cs, ce, s, e in scopes if any(k in excluded for k in range(s, e))
               for j in _span(lower, cs, ce, _meta_lead(lower, s, cues) if cs >= e else s,
                              _split_close(lower, cs, e, cues))}
    positive_text = " ".join(t for j, t in enumerate(tokens) if j not in removed | said and t[0].isalnum())

    # A vetoed exclusion's words belong to the need, but the parse read them as excluded: its structure lacks them.
    # A proposed name is in the parse's positive part (no cue took it out): the question is kept whole instead.
    # (a vetoed proposal took nothing from the parse)
    structure = None if set(vetoed) - set(named_at) or proposed \
        else _reliable_positive(rewrite.tree, lower, in_scope, cue_tokens, cues)
    if structure is not None:
        positive, mode = structure, "structure"
    elif kept:
        positive, mode = Term(positive_text or normalize_text(rewrite.question)), "question"
    else:
        # the question as typed: the sentence ends ``_sentences`` added are for reading it, not for searching
        return GuardDecision(Term(normalize_text(rewrite.question)), "plain", (), tuple(dropped), tuple(vetoed))
    weight = not_weight if mode == "question" else 1.0
    if mode == "question":  # a short question's parse keeps its words: "not art museums" -> NOT "art" (any art)
        spelled = [whole or text for text, whole in zip(spelled, wholes)]
    nots = tuple(Not(Term(text, "phrase" if mode == "question" and whole else None), weight)
                 for text, whole in zip(spelled, wholes))
    tree = And((positive, *nots)) if nots else positive
    if isinstance(tree, And):  # flatten a positive And into the conjunction
        children = []
        for c in tree.children:
            children.extend(c.children if isinstance(c, And) else (c,))
        tree = And(tuple(children))
    return GuardDecision(tree, mode, tuple(spelled), tuple(dropped), tuple(vetoed), tuple(proposed))


def _mentions(lower: list[str], words: list[str]) -> set[int]:
    """Token positions of every mention of ``words`` (a name's words, lower case) in ``lower``, the question's
    tokens: the name's first word and what follows it among the question's words (punctuation skipped)."""
    if not words:
        return set()
    alnum = [j for j, w in enumerate(lower) if w[:1].isalnum() or w[:1] == "_"]
    seq = [lower[j] for j in alnum]
    return {alnum[i + k] for i in range(len(seq) - len(words) + 1) if seq[i : i + len(words)] == words
            for k in range(len(words))}


def _unshared(item: list[str], named: list[str], outside: set[str]) -> list[str]:
    """The words ``named`` of an excluded item (``item``, its words with filler) that the question does not use
    outside the exclusion: a shared word is the head the question asks for ("museums that are not *art* museums"
    excludes art museums, not museums; "not novels about exile" excludes exile).  One exception: an item of two
    words whose shared first word stands right before the other, as a name before its class ("anything but amd gpus"
    after "issues with amd cards"), stays whole; without the name it would exclude the whole class asked for.  A
    verb form or a number there ("not serving seafood", "1970s drama") shares the request's head, so it goes."""
    core = [w for w in named if w not in outside]
    if len(named) == 2 and core == named[1:] and named[0].isalpha() and not named[0].endswith(("ing", "ed")) \
            and item.index(named[1]) == item.index(named[0]) + 1:
        return named
    return core


def _written_name(tokens: list[str], lower: list[str], positions: list[int], words: list[str], outside: set[str],
                  cues: _Cues) -> bool:
    """True when ``words`` (two or more) occur together at ``positions`` written as a name, each capitalised and
    not opening a sentence ("don't say Naruto or One Piece", "no Will Ferrell"): the name is the excluded thing
    whole, filler words ("one", "will") included.  Not when the question uses one of its other words outside the
    exclusion ("Justin Guitar" in a question about guitar lessons, "Rocket Mortgage" among mortgage lenders): a NOT
    leaf is a bag of words, and that word would sink every answer.  Not in a question written in title case, where
    capitals name nothing."""
    if len(words) < 2 or any(w in outside for w in words if w not in cues.ignore):
        return False
    if _title_case(tokens):
        return False
    at = set(positions)
    for j in positions:
        k = j + len(words)
        # (a title's lower-case links inside it: "I Have a Dream", "Gone with the Wind")
        if lower[j:k] == words and set(range(j, k)) <= at and _linked_name(tokens[j:k], cues) \
                and ((j > 0 and tokens[j - 1] not in _SENTENCE_END)
                     or (k - j > 2 and tokens[j + 1] in cues.name_links)):  # "Wheel of Time? No thanks"
            return True
    return False


def _gerund_object(item: list[str], cues: _Cues) -> list[str]:
    """An item that opens with an -ing verb and a preposition names the verb's object: "switching to Linux Mint is
    not an option" excludes Linux Mint, "not interested in paying for a subscription" a subscription."""
    if len(item) >= 3 and _gerund(item[0], cues) and item[1] in ("to", "with", "for", "from", "into"):
        return item[2:]
    return item


def _named_examples(item: list[str], tokens: list[str], lower: list[str], start: int, end: int) -> list[list[str]]:
    """A class with named examples names them, each one item: "skip the big resort groups like Meridia Stays" excludes
    Meridia Stays, "no chains like Five Guys or Byron" Five Guys and Byron (the class alone is too many words for a
    NOT, and the names are what the asker has seen).  Only capitalised names after "like" / "such as" in the item's
    scope (``start``-``end``); else the item as it is."""
    for j in range(start, end - 1):
        k = j + (2 if lower[j : j + 2] == ["such", "as"] else 1 if lower[j] == "like" else 0)
        if k == j or k >= end or not tokens[k][:1].isupper() or lower[j] not in item:
            continue
        names, current, m = [], [], k
        while m < end and (tokens[m][:1].isupper() or lower[m] in ("&", "of", "and", "or", ",")
                           and m + 1 < end and tokens[m + 1][:1].isupper()):
            if lower[m] in ("and", "or", ","):
                names.append(current)
                current = []
            else:
                current.append(lower[m])
            m += 1
        return [n for n in names + [current] if n]
    return [item]


def _said_around(tokens: list[str], lower: list[str], in_scope: set[int], start: int, end: int,
                 words: list[str]) -> bool:
    """True when one of ``words`` (an item scoped from ``start`` to ``end``) occurs outside the exclusions in the
    item's own sentence, or the item is no name: a contrast with the request ("Books from Iceland that aren't about
    Iceland").  A name said only in another sentence is what the asker has had enough of ("I know everyone loves
    The Office. Workplace comedies that aren't The Office?"); a common word there is still a contrast."""
    if not words or not all(tokens[j][:1].isupper() and not tokens[j].isupper()  # "AC" abbreviates a common noun
                            for j in range(start, end) if lower[j] in words):
        return True
    lo = start
    while lo > 0 and lower[lo - 1] not in _SENTENCE_END:
        lo -= 1
    return any(lower[j] in words for j in range(lo, _sentence_end(lower, end)) if j not in in_scope)


def _tried_elsewhere(lower: list[str], in_scope: set[int], words: list[str], cues: _Cues) -> bool:
    """True when every mention of ``words`` outside the exclusions is the object of something the asker tried, did
    or had ("I tried a memory foam topper last year ..., so I'd rather avoid memory foam entirely"): the same thing
    again, not a contrast with the request.  The verb stands at most three words before the mention, in its clause."""
    seen = False
    for j, w in enumerate(lower):
        if j in in_scope or w not in words or (j > 0 and lower[j - 1] in words and j - 1 not in in_scope):
            continue  # a mention is read from its first word
        seen = True
        k, lo = j - 1, max(0, j - 4)
        while k >= lo and lower[k][:1].isalnum() and lower[k] not in cues.boundary \
                and lower[k] not in cues.tried_verbs and lower[k] not in cues.experienced:
            k -= 1
        if not (k >= lo and (lower[k] in cues.tried_verbs or lower[k] in cues.experienced)):
            return False
    return seen


def _prose(lower: list[str], cues: _Cues) -> bool:
    """Whether the question is prose, with more content words than a noun-phrase query has (``reliable_max_words``):
    only there does ``--rewrite-phrases`` write an exclusion whole.  A short question names classes: "Restaurants in
    Krakow, but neither ... nor seafood restaurants", "Birds of Vietnam but not Birds of Myanmar" exclude a kind of
    what they ask for, and ``NOT "seafood"`` also reaches "a seafood place", which the phrase would not.  Prose uses
    a word in several senses ("stay in his own home ... don't suggest a care home")."""
    return len({w for w in lower if w[:1].isalnum() and w not in cues.ignore}) > cues.reliable_max_words


def _lost_shared(named: list[str], core: list[str]) -> bool:
    """Whether an exclusion kept only ``core`` of its ``named`` words, dropping some the question shares."""
    return bool(core) and bool(set(named) - set(core))


def _item_span(lower: list[str], positions: list[int], item: list[str], cues: _Cues) -> tuple[int, int] | None:
    """Where ``item`` (an excluded item's words) stands whole and contiguous among ``positions``, filler
    words at its ends left out ("a care home" -> the span of "care home"); None when it does not, or when
    what is left is one word or longer than ``max_constraint_words``."""
    words = [w for w in item if w[:1].isalnum()]
    while words and words[0] in cues.ignore:
        words = words[1:]
    while words and words[-1] in cues.ignore:
        words = words[:-1]
    if not 2 <= len(words) <= cues.max_constraint_words:
        return None
    at = set(positions)
    for j in positions:
        k = j + len(words)
        if lower[j:k] == words and set(range(j, k)) <= at:
            return j, k
    return None


def _span(lower: list[str], cs: int, ce: int, s: int, e: int) -> set[int]:
    """The tokens a kept scope takes out of the positive text: cue and scope with what lies between them in one
    sentence (a trailing cue follows its scope: "X is off the table"); an anaphor in a later sentence ("... Shopify
    ... Anything except that one.") takes only the two, not the sentences between."""
    lo, hi = min(cs, s), max(ce, e)
    if any(t in _SENTENCE_END for t in lower[lo:hi]):
        return set(range(s, e)) | set(range(cs, ce))
    return set(range(lo, hi))


def _said_in_negative_clause(term: Term, question: str, written: list[str], cue_tokens: set[int],
                              cues: _Cues) -> list[int] | None:
    """Positions of a NOT leaf's words in the one negative clause (:func:`negative_clauses`) that holds them all,
    when the question uses each of them once and they are at most ``max_constraint_words``; else None.

    This confirms a rewrite's exclusion that no cue's scope reaches ("I already know the Camargue, so exclude it":
    a model reads the anaphor; the scope of "exclude" holds only "it").  A leaf that copies the negative word or
    a cue ("NOT "my shelf already"", "NOT "an option for me"") names no excluded thing, nor does a verb whose object
    is a pronoun ("NOT "eat"" for "my kids won't eat it", :func:`_negated_action`), nor a verb alone after an auxiliary
    ("NOT "send"" for "please don't send anything about those"): not confirmed."""
    said = _words(term.text)
    words = list(dict.fromkeys(w for w in said if w not in cues.loose))
    if not words or len(words) > cues.max_constraint_words or cues.negative & set(said):
        return None
    lower = [t.lower() for t in written]
    for start, end in negative_clauses(question):  # only for a model NOT no scope confirmed: rare, so not up front
        at = [j for j in range(start, end) if lower[j] in words and j not in cue_tokens]
        if {lower[j] for j in at} == set(words) and all(lower.count(w) == 1 for w in words):
            verb = len(at) == 1 and any(_match(lower, at[0] - k, cues.auxiliaries) == k for k in (1, 2) if at[0] >= k)
            # a state right after its negation, as a cue's scope would read it: "refund still not received"
            state = at == list(range(at[0], at[-1] + 1)) and any(
                _match(lower, at[0] - k, cues.weak) == k and _clause_state(lower, written, at[0] - k, at[-1] + 1, cues)
                for k in (1, 2) if at[0] >= k)
            return None if verb or state or _negated_action(lower, written, at[0], at[-1] + 1, cues) else at
    return None


def _top_level_negation(tree: Node, term: Term) -> bool:
    """True when ``term`` sits under a NOT that is the root or one of its conjuncts (``a AND NOT (b OR c)``)."""
    roots = tree.children if isinstance(tree, And) else (tree,)
    for child in roots:
        if isinstance(child, Not) and any(t.key == term.key for t in distinct_terms(child.child)):
            return not any(n for _, n in iter_terms(child.child))  # no double negation inside
    return False


def _reliable_positive(tree: Node, lower: list[str], in_scope: set[int], cue_tokens: set[int],
                       cues: _Cues) -> Node | None:
    """The rewrite's positive part when the parse can be trusted, else None.

    Trusted: a noun-phrase query (one sentence, no question mark, no personal
    word such as "I" or "my", not opening like a sentence:
    "which", "please", ...) of at most ``reliable_max_words`` content words;
    every NOT a top-level conjunct; positive leaves made only of the question's
    own words outside its exclusion scopes (a model's paraphrase is not
    trusted), covering every content word outside those scopes (nothing of the
    need is lost).
    """
    content = {w for j, w in enumerate(lower) if w[0].isalnum() and w not in cues.ignore and j not in in_scope
               and j not in cue_tokens}
    if (len(content) > cues.reliable_max_words or any(t in _SENTENCE_END for t in lower[:-1]) or "?" in lower
            or cues.personal & set(lower) or not lower or lower[0] in cues.sentence_starts):
        return None
    children = tree.children if isinstance(tree, And) else (tree,)
    positive = tuple(c for c in children if not isinstance(c, Not))
    if not positive or any(n for c in positive for _, n in iter_terms(c)):
        return None
    # The words a leaf may use: neither the exclusions nor their cues.
    allowed = {w for j, w in enumerate(lower) if j not in in_scope and j not in cue_tokens}
    covered: set[str] = set()
    for c in positive:
        for term, _ in iter_terms(c):
            words = _words(term.text)
            if not _phrase_of(words, allowed, cues.stopwords):
                return None
            covered |= set(words)
    if not content <= covered:
        return None
    return positive[0] if len(positive) == 1 else And(positive)


def _phrase_of(words: list[str], allowed: set[str], stopwords: frozenset[str]) -> bool:
    """True when ``words`` can be a phrase of the question: only its allowed words, neither starting nor ending
    with a stopword.  A leaf cut at the wrong place fails: "Famous bridges designed by engineers in but I",
    "Novels set in but", "Films that won an award and"."""
    return bool(words) and words[0] not in stopwords and words[-1] not in stopwords and set(words) <= allowed


def guard_rewrite(rewrite: Rewrite, mode: str = "propose", verify: Verify | None = None,
                  not_weight: float = GUARD_NOT_WEIGHT, phrases: bool = False,
                  proposer: Propose | None = None) -> Rewrite:
    """The guarded rewrite: the question as positive leaf (or a reliable parse) plus confirmed exclusions.

    Works on the result of any rewriter (rules, model, cache); the source is
    kept.  ``mode`` is one of :data:`GUARD_MODES` (``off`` returns ``rewrite``,
    unchecked); ``verify`` checks the confirmed exclusions and ``not_weight``
    sets the strength of the NOTs added to a question kept whole, ``phrases``
    writes those that lost shared words as ``phrase:`` leaves, ``proposer``
    adds exclusions the cues missed (see :func:`guard_decision`).
    """
    if mode not in GUARD_MODES:
        raise ValueError(f"unknown guard mode {mode!r}; expected one of {GUARD_MODES}")
    if mode == "off":
        return rewrite
    decision = guard_decision(rewrite, propose=mode == "propose", verify=verify, not_weight=not_weight,
                              phrases=phrases, proposer=proposer)
    if decision.tree == rewrite.tree:  # kept as is: so are the rewriter's predicates and parse cost
        return rewrite
    return Rewrite.from_tree(rewrite.question, decision.tree, rewrite.source)
