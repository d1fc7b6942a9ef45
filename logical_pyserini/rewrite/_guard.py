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

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources

from ..query import And, Node, Not, Or, Term, count_negations, distinct_terms, iter_terms, normalize_text, shape
from ._types import Rewrite

__all__ = ["GUARD_MODES", "GuardDecision", "doubly_negated_atoms", "drop_kind_only_terms", "excluded_only_words",
           "excluded_positive_terms", "exclusion_scopes", "guard_decision", "guard_rewrite", "lift_inner_negations",
           "missing_operators", "narrow_negations", "negates_negated_phrase", "negation_at", "negative_clauses",
           "scope_trailing_exclusion", "unasked_disjunction"]

#: ``--rewrite-guard`` values: no guard, the guard (default), the guard that also adds stated exclusions.
GUARD_MODES = ("off", "on", "propose")

# A hyphen or en dash between spaces, or an em dash, separates clauses as a comma does ("at home - stretching
# routines"); an unspaced en dash joins ("Trastevere\u2013Testaccio").
_TOKEN = re.compile(r"\w[\w'-]*(?:\.\w[\w'-]*)*|[.,;:!?()\u2014]|(?<!\S)[-\u2013](?!\S)")  # "chart.js" is one word
_SENTENCE_END = {".", "!", "?"}
_COMMA_LIKE = {",", ";", ":", "(", "-", "\u2013", "\u2014"}
_MODEL_SOURCES = ("llm", "repaired")  # rewrites a model wrote: the ones whose NOT may rest on a clause it read
_CLAUSE_BREAKS = {"and", "or", "nor", "but"}  # a cue before one of these excludes something else


@dataclass(frozen=True)
class _Cues:
    strong: tuple[tuple[str, ...], ...]
    weak: tuple[tuple[str, ...], ...]
    trailing: tuple[tuple[str, ...], ...]
    fact_starts: tuple[tuple[str, ...], ...]
    condition: frozenset[str]
    boundary: frozenset[str]
    ignore: frozenset[str]  # stopwords and filler: never an excluded thing by themselves
    lists: tuple[tuple[str, ...], ...]  # "or", "as well as": separate excluded items inside one scope
    sentence_starts: frozenset[str]  # a question starting so is a sentence, not a noun-phrase query
    max_constraint_words: int
    max_scope_words: int
    reliable_max_words: int
    version: str
    disjunction: tuple[tuple[str, ...], ...] = ()
    inner_negation: frozenset[str] = frozenset()
    lead_in: tuple[tuple[str, ...], ...] = ()  # "that are" before an inner "not": dropped from the kept part
    generic_heads: frozenset[str] = frozenset()  # "documents": names no constraint on its own
    positive: tuple[tuple[str, str], ...] = ()  # what an inner cue becomes in the excluded phrase: without -> with
    conjunction: tuple[tuple[str, ...], ...] = ()  # "both": the request joins its conditions with AND
    stopwords: frozenset[str] = frozenset()  # a trusted positive leaf neither starts nor ends with one
    contractions: dict[str, str] = field(default_factory=dict)  # "don't" -> "do": a negation inside one word
    relative: frozenset[str] = frozenset()  # "that": after filler only ("not the ones that ..."), not a boundary
    anaphors: frozenset[str] = frozenset()  # "it", "that one": a cue followed only by these points back
    copulas: frozenset[str] = frozenset()  # "is": ends the subject an anaphoric exclusion points back to
    anaphoric: tuple[tuple[str, ...], ...] = ()  # "leave that out": a cue that points back by itself
    property_relatives: tuple[tuple[str, ...], ...] = ()  # "who does not sleep": a property asked for
    split: dict[str, tuple[tuple[str, ...], ...]] = field(default_factory=dict)  # "leave" X "out": around its scope
    need_verbs: tuple[tuple[str, ...], ...] = ()  # "survive without much light": what is asked for
    comma: tuple[tuple[str, ...], ...] = ()  # "..., ignoring X": a cue only right after a comma
    personal: frozenset[str] = frozenset()  # "I", "my": a query that holds one is a sentence, not a noun phrase
    negative: frozenset[str] = frozenset()  # "not", "skip", "irrelevant": a clause that holds one says what not to find
    clause_words: frozenset[str] = frozenset()  # "but", "so": end a clause, as punctuation does
    objects: frozenset[str] = frozenset()  # "it", "me": after a weak cue's verb, the thing is named elsewhere
    prepositions: frozenset[str] = frozenset()  # "in": "meat in them" names a thing, "buy it" an action
    request_starts: tuple[tuple[str, ...], ...] = ()  # "can anyone recommend": a request, not a fact question
    background: tuple[tuple[str, ...], ...] = ()  # "even though I never eat sugar": the asker's situation
    preference: frozenset[str] = frozenset()  # "though I'd rather not read about lions": still an exclusion
    possession: frozenset[str] = frozenset()  # "the school has no kiln", "we don't have a car": a situation
    possession_skip: frozenset[str] = frozenset()  # "we don't even have a car"
    preference_nouns: frozenset[str] = frozenset()  # "I have no interest in X": an exclusion after all
    additive: frozenset[str] = frozenset()  # "not only A but also B": adds, excludes nothing
    trailing_not_before: frozenset[str] = frozenset()  # "dogs are banned from beaches": a fact, not a wish
    adverb_suffix: str = "ly"  # "Monopoly is officially banned": an adverb inside a trailing cue
    wish: frozenset[str] = frozenset()  # "..., I want to avoid ibuprofen": a request inside a how-to question
    reporting: frozenset[str] = frozenset()  # "my boss says no X": someone else's exclusion, not a situation
    preference_verbs: frozenset[str] = frozenset()  # "I don't like horror": a taste, so an exclusion
    ability_negations: frozenset[str] = frozenset()  # "can't": before one of ability_verbs, what the asker can't do
    situation_negations: frozenset[str] = frozenset()  # "neither of us drives so no rental car": before "so no"
    past_negations: tuple[tuple[str, ...], ...] = ()  # "didn't sign the lease": an event told, not a wish
    elided_ability: tuple[tuple[str, ...], ...] = ()  # "don't speak French, ...": the unnamed asker's skill
    time_determiners: frozenset[str] = frozenset()  # "for the last two months": words before a time word
    taste_nouns: frozenset[str] = frozenset()  # "not a fan of X": a taste after "not a", so an exclusion
    amount_qualifiers: tuple[tuple[str, ...], ...] = ()  # "3000 EUR excluding flights": what an amount counts
    currencies: frozenset[str] = frozenset()  # "EUR", "bucks": an amount's unit after its number
    amount_items: frozenset[str] = frozenset()  # "flights", "tax": what an amount may count or leave out
    title_words: frozenset[str] = frozenset()  # "No Country *for* Old Men": small words inside a title
    title_pronouns: frozenset[str] = frozenset()  # "Never Let *Me* Go": capitalised in a title, not in a name
    ability_modals: frozenset[str] = frozenset()  # "can visit without a visa": doing it without is what is asked
    addressees: frozenset[str] = frozenset()  # "can you recommend ... without": a request to the helper, not a need
    ability_verbs: frozenset[str] = frozenset()  # "can't read music": a skill lacked, not a taste ("don't read X")
    relative_needs: tuple[tuple[str, ...], ...] = ()  # "plants that don't need direct sunlight": a property asked for
    determiners: frozenset[str] = frozenset()  # "skip the Vatican and the Colosseum"
    intensifiers: frozenset[str] = frozenset()  # "not really into X", "barns are so overdone": inside a cue
    interrogatives: frozenset[str] = frozenset()  # "Which countries have no income tax?": a question, no relative
    manner: frozenset[str] = frozenset()  # "without using chemicals", "without the place smelling": how, not what
    manner_objects: frozenset[str] = frozenset()  # the words that make an -ing word a verb with an object or subject
    topic_gerunds: frozenset[str] = frozenset()  # "without mentioning the war" still excludes the war
    demonstratives: frozenset[str] = frozenset()  # "not allowed to touch that": an object pronoun at a clause end
    premise: frozenset[str] = frozenset()  # "We already bought top-bar hives, so please no Langstroth": a premise
    consequence: frozenset[str] = frozenset()  # "so": what follows it rests on what came before
    need_adverbs: frozenset[str] = frozenset()  # "grow well without CO2 injection": still what is asked for
    imperative: tuple[tuple[str, ...], ...] = ()  # "Ignore the JNC 8 report": a cue only where its clause opens
    openers: frozenset[str] = frozenset()  # "please", "just": may stand before an imperative cue
    volitional: frozenset[str] = frozenset()  # "We're avoiding egg": the asker's choice, not their situation
    name_links: frozenset[str] = frozenset()  # "Couch to 5K", "Lord of the Rings": lower-case words inside a name
    imperative_names: tuple[tuple[str, ...], ...] = ()  # ", bar Geico": an imperative cue before a name only
    contrast: tuple[tuple[str, ...], ...] = ()  # "but not": strong in a request, silent in a fact question
    not_before: dict[tuple[str, ...], frozenset[str]] = field(default_factory=dict)  # "sans serif" is no cue
    fact_tails: tuple[tuple[str, ...], ...] = ()  # "..., why??", "— what's wrong?": the sentence asks a fact
    midclause: tuple[tuple[str, ...], ...] = ()  # "..., but scratch bali": an imperative inside a sentence only
    auxiliaries: tuple[tuple[str, ...], ...] = ()  # "won't", "doesn't": the next word is a verb
    substitution: frozenset[str] = frozenset()  # "what can I use instead of buttermilk": the thing to replace
    wish_negations: tuple[tuple[str, ...], ...] = ()  # "don't want": someone else's in a how-to question
    experience: frozenset[str] = frozenset()  # "never been to a wedding": the asker's lack of experience
    negators: frozenset[str] = frozenset()  # "never been to", "do not skip": a strong cue negated excludes nothing
    particle_verbs: frozenset[str] = frozenset()  # "it turns out", "eat out": "out" / "off" as a particle
    particles: frozenset[str] = frozenset()  # "can't swim away", "won't crack badly": how the verb goes, no thing
    fact_clause: frozenset[str] = frozenset()  # "the reasons hypertension doesn't respond": a fact asked about
    examples: tuple[tuple[str, ...], ...] = ()  # "something else like histamines": candidates, not exclusions
    state_prepositions: frozenset[str] = frozenset()  # "won't start on cold mornings": when, not what
    possessives: frozenset[str] = frozenset()  # "don't hurt your ears": the subject's own thing, not a topic
    state_adjectives: frozenset[str] = frozenset()  # "medications that are not safe": a property asked for
    content_verbs: frozenset[str] = frozenset()  # "things to do that don't involve Disney": what a thing holds
    making_verbs: frozenset[str] = frozenset()  # "redo our backyard without grass": how to make it, a need
    status: frozenset[str] = frozenset()  # "no SIM card detected": a device's message, a state
    elided_subject: tuple[tuple[str, ...], ...] = ()  # "can't decide between renting and buying": a situation
    time_words: frozenset[str] = frozenset()  # "isn't for another month": when, not what
    linking_verbs: frozenset[str] = frozenset()  # "won't stay lit": how a thing is, not what to leave out
    symptom_nouns: frozenset[str] = frozenset()  # "no signal on my TV": an absence reported, not a thing to leave out
    symptom_followers: frozenset[str] = frozenset()  # "makes no sound when ...": the symptom noun ends its phrase
    harm: tuple[tuple[str, ...], ...] = ()  # "Retinol made my face peel": what harmed the asker, to leave out
    quantifiers: frozenset[str] = frozenset()  # "every glass of red wine gives me ...": no one thing named
    stops: tuple[tuple[str, ...], ...] = ()  # "won't touch fish no matter how I cook it": the scope ends before it
    exceptive: tuple[tuple[str, ...], ...] = ()  # "besides", "other than": after a negation they mean "only"
    negative_only: frozenset[str] = frozenset()  # "not", "no", "nothing": the negations an exception turns to "only"
    remedy: frozenset[str] = frozenset()  # "Running makes my knees hurt, what helps?": the harm is the topic
    subject_verbs: frozenset[str] = frozenset()  # "no handover document exists": "no X" is a verb's subject, a fact
    place_nouns: frozenset[str] = frozenset()  # "no heating in the kitchen": an absence where the asker is
    experience_ends: frozenset[str] = frozenset()  # "never opened the hood before": what the asker has not done
    message_prefixes: frozenset[str] = frozenset()  # "fatal: not a git repository": a program's message
    third_persons: frozenset[str] = frozenset()  # "she clicks through without paying attention": how someone acts
    tried_verbs: frozenset[str] = frozenset()  # "I tried melatonin and it gave me nightmares": what harmed the asker
    benefit: frozenset[str] = frozenset()  # "Yoga made me feel great": no harm
    perfect_auxiliaries: frozenset[str] = frozenset()  # "the office has not returned my calls": an event
    title_media: frozenset[str] = frozenset()  # "no time to die trailer": what a query about a title asks for
    identity_nouns: frozenset[str] = frozenset()  # "im not a spreadsheet person": who the asker is
    commands: frozenset[str] = frozenset()  # "find -name not matching": a command line, whose "-name" is an option
    perception: frozenset[str] = frozenset()  # "I've seen X": the verb of an experience cue ("seen", "read")
    reports: frozenset[str] = frozenset()  # "I've seen X mentioned", "seen mates get burned": a report, no experience
    meta_nouns: frozenset[str] = frozenset()  # "no answers using pandas": the answer's kind, not the excluded thing
    meta_links: tuple[tuple[str, ...], ...] = ()  # "using", "that involve": what joins a meta noun to its thing
    refusals: frozenset[str] = frozenset()  # "she won't touch fish", "the landlord doesn't allow drilling": a limit

    @cached_property
    def loose(self) -> frozenset[str]:
        """Words that name no excluded thing of their own: stopwords, filler and anaphors ("the ones", "it")."""
        return self.ignore | self.anaphors


@lru_cache(maxsize=1)
def _guard_data() -> dict:
    return json.loads(resources.files(__package__).joinpath("guard.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _bare_contractions() -> re.Pattern:
    return re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, _guard_data()["bare_contractions"])), re.IGNORECASE)


@lru_cache(maxsize=1)
def _abbreviations() -> tuple[re.Pattern, dict[str, str]]:
    spelled = {k.lower(): v for k, v in _guard_data().get("abbreviations", {}).items()}
    alternatives = "|".join(map(re.escape, sorted(spelled, key=len, reverse=True))) or "(?!)"
    return re.compile(r"(?<![\w/])(?:%s)(?![\w/])" % alternatives, re.IGNORECASE), spelled


def _plain(text: str) -> str:
    """``text`` with straight apostrophes and single quotes, a negation typed without one restored ("dont" -> "don't") and a
    shorthand spelled out ("excl." -> "excluding", "w/o" -> "without"), so a cue matches however the question was
    typed.  Every token list of the guard is taken from this text, so their positions agree."""
    pattern, spelled = _abbreviations()
    text = pattern.sub(lambda m: spelled[m[0].lower()], text.replace("\u2019", "'").replace("\u2018", "'"))
    text = _MINUS.sub(", not ", _copula_s().sub(" is", text))  # each one a clause: "-d3 -highcharts" lists two
    text = _mid_minus(text)
    return _bare_contractions().sub(lambda m: f"{m[0][:-1]}'{m[0][-1]}", text)


@lru_cache(maxsize=1)
def _copula_s() -> re.Pattern:
    """"ramen's off the table", "piano's a hard no": an 's before the rest of an "is ..." trailing cue is "is"."""
    rests = {c[3:] for c in _guard_data()["trailing"] if c.startswith("is ")} | {"off", "out"}
    alternatives = "|".join(map(re.escape, sorted(rests, key=len, reverse=True)))
    return re.compile(r"(?<=\w)'s(?=\s+(?:%s)\b)" % alternatives, re.IGNORECASE)
# A suffix typed apart from its word is no operator: "shampoo for curly hair sulfate -free", "-based", "-less".
_SUFFIXES = r"(?:free|based|less|friendly|safe|only|style|like)\b"
# A search engine's exclusion operator closing a query: "pdf parsing libraries -pypdf2 -d3" (a word of two or more
# characters; "ls -l" is an option, "--verbose" no operator, and "how do I use rm -rf" asks about a fact).
_MINUS = re.compile(r"(?<=\S\s)-(?!%s)(?=[A-Za-z][\w.+#]+(?:\s+-[A-Za-z][\w.+#]+)*\s*$)" % _SUFFIXES)
# The operator inside or opening a query ("jaguar -car -football top speed"): a word of three or more characters,
# never in a question about a command line, where "-name" or "-jar" is an option ("find -name not matching").
_MID_MINUS = re.compile(r"(?:(?<=\S\s)|^)((?:-(?!%s)[A-Za-z][\w.+#]{2,}\s+)+)(?=[^\s-])" % _SUFFIXES)
_SHELL_MARKS = re.compile(r"--|[|=`]|(?:^|\s)\.{0,2}/")


def _mid_minus(text: str) -> str:
    """Each "-word" inside a query becomes its own clause ", not word," so its scope is that word alone."""
    if not _MID_MINUS.search(text) or _SHELL_MARKS.search(text):
        return text
    if _cues().commands & set(re.findall(r"[\w+.-]+", text.lower())):
        return text
    return _MID_MINUS.sub(lambda m: ", ".join(f"not {w[1:]}" for w in m[1].split()) + ", "
                          if m.start() == 0 else "".join(f", not {w[1:]}" for w in m[1].split()) + ", ", text)


@lru_cache(maxsize=1)
def _cues() -> _Cues:
    data = _guard_data()

    def seqs(key: str) -> tuple[tuple[str, ...], ...]:
        # Longest first, so "do not mention" wins over "do not".  An optional list may be absent.
        return tuple(sorted((tuple(_words(c)) for c in data.get(key, ())), key=len, reverse=True))

    def words(key: str) -> frozenset[str]:  # an optional word list
        return frozenset(data.get(key, ()))

    return _Cues(
        strong=seqs("strong"),
        weak=seqs("weak"),
        trailing=seqs("trailing"),
        fact_starts=seqs("fact_question_starts"),
        condition=frozenset(data["condition_words"]),
        boundary=frozenset(data["boundary_words"]),
        ignore=frozenset(data["stopwords"]) | frozenset(data["filler"]),
        lists=seqs("list_words"),
        sentence_starts=frozenset(data["sentence_starts"]),
        max_constraint_words=int(data["max_constraint_words"]),
        max_scope_words=int(data["max_scope_words"]),
        reliable_max_words=int(data["reliable_max_words"]),
        version=data["version"],
        disjunction=seqs("disjunction"),
        inner_negation=words("inner_negation"),
        lead_in=seqs("inner_negation_lead_in"),
        generic_heads=words("generic_heads"),
        positive=tuple(data.get("inner_negation_positive", {}).items()),
        conjunction=seqs("conjunction"),
        stopwords=frozenset(data["stopwords"]),
        contractions=dict(data.get("inner_negation_contractions", {})),
        relative=words("relative_words"),
        anaphors=words("anaphors"),
        copulas=words("copulas"),
        anaphoric=seqs("anaphoric_cues"),
        property_relatives=seqs("property_relatives"),
        split={k: tuple(tuple(_words(c)) for c in v) for k, v in data.get("split_cues", {}).items()},
        need_verbs=seqs("need_verbs"),
        comma=seqs("comma_cues"),
        personal=words("personal_words"),
        negative=words("negative_words"),
        clause_words=words("clause_words"),
        objects=words("object_pronouns"),
        prepositions=words("prepositions"),
        request_starts=seqs("request_starts"),
        background=seqs("background_words"),
        preference=words("preference_words"),
        possession=words("possession_verbs"),
        possession_skip=words("possession_skip"),
        preference_nouns=words("preference_nouns"),
        additive=words("additive_words"),
        trailing_not_before=words("trailing_not_before"),
        adverb_suffix=data.get("adverb_suffix", "ly"),
        wish=words("wish_words"),
        reporting=words("reporting_words"),
        preference_verbs=words("preference_verbs"),
        ability_negations=words("ability_negations"),
        ability_verbs=words("ability_verbs"),
        ability_modals=words("ability_modals"),
        title_words=words("title_words"),
        title_pronouns=words("title_pronouns"),
        amount_qualifiers=seqs("amount_qualifiers"),
        currencies=words("currencies"),
        amount_items=words("amount_items"),
        taste_nouns=words("taste_nouns"),
        time_determiners=words("time_determiners"),
        addressees=words("addressees"),
        past_negations=seqs("past_negations"),
        elided_ability=seqs("elided_ability_negations"),
        situation_negations=words("situation_negations"),
        relative_needs=seqs("relative_needs"),
        determiners=words("determiners"),
        intensifiers=words("intensifiers"),
        interrogatives=words("interrogatives"),
        manner=words("manner_cues"),
        manner_objects=words("manner_objects"),
        topic_gerunds=words("topic_gerunds"),
        demonstratives=words("object_demonstratives"),
        premise=words("premise_words"),
        consequence=words("consequence_words"),
        need_adverbs=words("need_adverbs"),
        imperative=seqs("imperative_cues"),
        openers=words("clause_openers"),
        volitional=words("volitional_cues"),
        name_links=words("name_links"),
        imperative_names=seqs("imperative_name_cues"),
        contrast=seqs("contrast_cues"),
        not_before={tuple(_words(k)): frozenset(v) for k, v in data.get("cue_not_before", {}).items()},
        fact_tails=seqs("fact_question_tails"),
        midclause=seqs("midclause_cues"),
        auxiliaries=seqs("auxiliary_negations"),
        substitution=words("substitution_verbs"),
        wish_negations=seqs("wish_negations"),
        experience=words("experience_participles"),
        negators=words("cue_negators"),
        particle_verbs=words("particle_verbs"),
        particles=words("verb_particles"),
        fact_clause=words("fact_clause_words"),
        examples=seqs("example_words"),
        state_prepositions=words("state_prepositions"),
        possessives=words("possessives"),
        state_adjectives=words("state_adjectives"),
        content_verbs=words("content_verbs"),
        making_verbs=words("making_verbs"),
        status=words("status_words"),
        elided_subject=seqs("elided_subject_negations"),
        time_words=words("time_words"),
        linking_verbs=words("linking_verbs"),
        symptom_nouns=words("symptom_nouns"),
        symptom_followers=words("symptom_followers"),
        harm=seqs("harm_cues"),
        quantifiers=words("quantifiers"),
        remedy=words("remedy_words"),
        exceptive=seqs("exceptive_cues"),
        stops=seqs("scope_stops"),
        negative_only=words("only_negations"),
        subject_verbs=words("subject_verbs"),
        place_nouns=words("place_nouns"),
        experience_ends=words("experience_ends"),
        message_prefixes=words("message_prefixes"),
        third_persons=words("third_persons"),
        tried_verbs=words("tried_verbs"),
        benefit=words("benefit_words"),
        perfect_auxiliaries=words("perfect_auxiliaries"),
        title_media=words("title_media_words"),
        identity_nouns=words("identity_nouns"),
        commands=words("command_words"),
        perception=words("perception_cue_verbs"),
        reports=words("report_words"),
        meta_nouns=words("meta_nouns"),
        meta_links=seqs("meta_links"),
        refusals=words("refusal_verbs"),
    )


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
    tokens, _, in_scope = _scoped_tokens(normalize_text(question))
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
    from ._data import load_rules  # late: the rule data loads on first use

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
        return Not(Term(" ".join(words[:at] + ([swap] if swap else []) + words[at + 1:]), term.retriever))

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
    from ._data import load_rules  # late: the rule data loads on first use

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
            return Not(narrow(node.child, shared))
        return type(node)(tuple(narrow(c, shared) for c in node.children))

    def walk(node: Node) -> Node:
        if isinstance(node, (Term, Not)):
            return node
        positive = [c for c in node.children if not isinstance(c, Not)] if isinstance(node, And) else []
        shared = {w.lower() for c in positive for t, negated in iter_terms(c) if not negated
                  for w in t.text.split()} - ignore
        return type(node)(tuple(Not(narrow(c.child, shared)) if positive and isinstance(c, Not) else walk(c)
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


def _bare(word: str) -> str:
    """A word of a leaf as the cue lists spell it: lower case, no trailing comma, a straight apostrophe."""
    return _plain(word.lower().strip(",;:"))


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
    tokens = _TOKEN.findall(_plain(normalize_text(question)).lower())
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


def _operator_cues(question: str) -> tuple[list[int], list[int]]:
    """Token positions of the question's disjunction cues and of its exclusion cues (strong or weak)."""
    cues = _cues()
    tokens = _words(question)
    ors = [i for i in range(len(tokens)) if _match(tokens, i, cues.disjunction)]
    exclusions = [i for i in range(len(tokens)) if _match(tokens, i, cues.strong) or _match(tokens, i, cues.weak)]
    return ors, exclusions


def _words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(_plain(text).lower()) if t[0].isalnum() or t[0] == "_"]


def _match(tokens: list[str], i: int, seqs) -> int:
    """Length of the longest cue in ``seqs`` starting at token ``i`` (0 if none)."""
    for seq in seqs:
        if tuple(tokens[i : i + len(seq)]) == seq:
            return len(seq)
    return 0


def exclusion_scopes(question: str) -> list[tuple[int, int, int, int]]:
    """Exclusion scopes of a question: ``(cue_start, cue_end, scope_start, scope_end)`` token spans.

    Tokens are words and punctuation of ``question`` (lower-cased).  A scope runs
    from its cue to the next punctuation mark or boundary word (at most
    ``max_scope_words`` tokens per item of a list joined by "or" / "as well
    as"; a relative word right after filler does not end it: "not the ones
    that talk about X"); a trailing cue ("X is off the table") scopes
    backwards, and so does a cue followed only by anaphors to the end of its
    sentence, to the sentence's named subject ("Edinburgh Castle is too
    crowded, so not that one"); a split cue encloses its scope ("leave
    pesticides out of it"); "and" between names continues a list ("excluding
    Tokyo and Seoul").  Weak cues ("not", "without") count only in a request,
    not in a sentence that asks about a fact ("Why do cats not like water?"),
    not right after "when" / "if" or a verb of getting by ("plants that
    survive without much light"), not capitalised inside a sentence (a
    title), and not in a clause opened by "who" / "where" / "in which" ("a
    toddler who does not sleep on planes").
    """
    cues = _cues()
    plain = _plain(question)
    written = _TOKEN.findall(plain)
    tokens = [t.lower() for t in written]
    quoted = _unread_tokens(plain, tokens, cues)
    sentence_start = 0
    scopes = []
    i = 0
    while i < len(tokens):
        if tokens[i] in _SENTENCE_END:
            sentence_start = i + 1
            i += 1
            continue
        if i in quoted:  # "I get 'fatal: not a git repository'": quoted words are the asker's subject
            i += 1
            continue
        n, kind = _match(tokens, i, cues.anaphoric), "anaphoric"
        if n and tokens[i + n - 1] == "else" and _match(tokens, i + n, cues.examples):
            n = 0  # "something else like histamines or tannins": the examples are what is asked about
        if not n:
            n, kind = _match_intensified(tokens, i, cues.strong, cues), "strong"
            if n and i + n < len(tokens) and tokens[i + n] in cues.not_before.get(tuple(tokens[i : i + n]), ()):
                n = 0  # "sans serif fonts"
            if n and _match(tokens, i, cues.contrast) and _asks_fact(tokens, sentence_start, i, cues):
                n = 0  # "Why do cats like fish but not water?": the contrast is the fact asked about
            if n and tokens[i : i + n] == ["instead", "of"] and cues.substitution & set(tokens[max(0, i - 2) : i]):
                n = 0  # "what can I use instead of buttermilk": what is replaced is the topic
            if n and tokens[i : i + n] == ["instead", "of"]:
                g = i + n
                while g < len(tokens) and (tokens[g] in cues.intensifiers or _adverb(tokens[g], cues)
                                           or tokens[g] in ("only", "just", "simply", "merely")):
                    g += 1
                if g < len(tokens) and _gerund(tokens[g], cues) and tokens[g] not in cues.topic_gerunds:
                    n = 0  # "synthesise papers instead of only summarizing each one": how, not what
            if n and _match(tokens, i, cues.wish_negations) and _asks_fact(tokens, sentence_start, i, cues) \
                    and not (i > 0 and tokens[i - 1] in cues.personal):
                n = 0  # "how to tell someone you don't want to be friends": not the asker's wish
            if n and i > 0 and tokens[i - 1] in cues.negators:
                n = 0  # "never been to a wedding", "do not skip leg day": the cue is negated
            if n and _match(tokens, i, cues.exceptive) == n and any(
                    t in cues.negative_only or t.endswith("n't")
                    for t in tokens[_clause_start(tokens, sentence_start, i, cues) : i]):
                n = 0  # "we don't speak any language besides English": a negation and an exception say "only"
        if not n and i > 0 and tokens[i - 1] in _COMMA_LIKE:  # "..., ignoring X" (not "the cost of ignoring X")
            n, kind = _match(tokens, i, cues.comma), "strong"
        if not n and _opens_clause(tokens, sentence_start, i, cues):  # "Ignore the JNC 8 report" (not "apps to ignore")
            n, kind = _match(tokens, i, cues.imperative), "strong"
            m = _match(tokens, i, cues.imperative_names)
            if not n and m and i + m < len(written) and written[i + m][:1].isupper():  # ", bar Geico" (not "bar snacks")
                n = m
            if not n and i > sentence_start:  # "..., but scratch bali" (not "Scratch cooking for beginners")
                n = _match(tokens, i, cues.midclause)
        # An anaphor after an exclusion of its own sentence points to that one ("barns are so overdone, so none
        # of those"), not to the names around it; an empty scope ("already tried" alone) is no exclusion.
        names = not any(s >= sentence_start and e > s for _, _, s, e in scopes)
        if not n and tokens[i] in cues.split:  # "leave pesticides out of it": the scope lies inside the cue
            closes = cues.split[tokens[i]]
            close = next((j for j in range(i + 2, min(len(tokens), i + 2 + cues.max_scope_words))
                          if _match(tokens, j, closes) or not (_inside(tokens[j], cues) or tokens[j] in ("and", "or"))),
                         None)  # "leave Leonardo da Vinci and Michelangelo aside"
            if close is not None and _match(tokens, close, closes):
                back = None
                if all(t in cues.loose for t in tokens[i + 1 : close]) and cues.anaphors & set(tokens[i + 1 : close]):
                    # "we've crossed it off", "so leave that one out": the names before it
                    back = _antecedent(tokens, written, sentence_start, i, names, cues)
                scopes.append((i, close + 1, *back) if back else (i, i + 1, i + 1, close))
                i = close + _match(tokens, close, closes)
                continue
        if not n:
            n, kind = _match_trailing(tokens, i, cues), "trailing"
            tried = None if n else _tried_object(tokens, sentence_start, i, cues)
            if tried:  # "I tried melatonin and it gave me nightmares": what the asker tried
                m = _match(tokens, i, cues.harm)
                scopes.append((tried[1], i + m, *tried))
                i += m
                continue
            if not n and _harms_asker(tokens, written, sentence_start, i, cues):
                n = _match(tokens, i, cues.harm)  # "Retinol made my face peel": the subject is the exclusion
            if n and i > sentence_start and written[i][:1].isupper() and not written[i].isupper():
                n = 0  # a title: "the film Never Say Never Again"
        if not n:
            n, kind = _match(tokens, i, cues.weak), "weak"
            if n and not _contrast(tokens, written, i, i + n, cues):
                kind = "strong"  # "I did keto ..., so no keto please": a conclusion, not a contrast
            if n and _match(tokens, i + n, cues.strong):
                n = 0  # "do not skip leg day": the negation cancels the cue
            if n and i + n < len(tokens) and tokens[i + n] in cues.not_before.get(tuple(tokens[i : i + n]), ()):
                n = 0  # "no matter how I cook it"
            if n and _match(tokens, i, cues.auxiliaries) == n and i + n < len(written) and written[i + n][:1].isupper():
                n = 0  # a title: "Don't Stop Believin' chords" (a verb is capitalised only in one)
            if n and _silenced(tokens, written, sentence_start, i, cues):
                n = 0
        if n and i > sentence_start and tokens[i - 1] in cues.relative and _match(tokens, i, cues.relative_needs):
            n = 0  # "houseplants that don't need direct sunlight" asks for that property
        if n and _amount_qualifier(tokens, i, cues):
            n = 0  # "budget around 3000 EUR excluding flights": what an amount counts, not what to leave out
        if not n:
            i += 1
            continue
        if kind == "trailing":
            start = i
            # The subject stops at a reporting verb: "my doctor said X is not an option" excludes X.
            while start > sentence_start and start > i - cues.max_scope_words and tokens[start - 1] not in cues.reporting \
                    and (_inside(tokens[start - 1], cues)
                         or _and_between_names(written, start, start - 1, cues, back=True)
                         or _and_in_list_back(tokens, sentence_start, start - 1, i, cues)):
                start -= 1
            stop = i
            if start == 0 and i >= 4 and _keyword_query(tokens, cues):
                # a run of keywords has no subject to read: its last word ("mortgage lenders santander is a no-go"),
                # with the word before when the last one is named earlier too ("crime drama series true crime excluded")
                last = i - int(tokens[i - 1] in cues.copulas)  # "used suvs under 15k ford is off the table"
                start, stop = last - 1 - int(tokens[last - 1] in tokens[: last - 1]), last
            if start == i == sentence_start and i > 1 and tokens[i - 1] in _SENTENCE_END:
                # "AirAsia? never again.": a cue alone after a sentence of one to three names scopes them
                ps = max((j + 1 for j in range(i - 1) if tokens[j] in _SENTENCE_END), default=0)
                if 0 < i - 1 - ps <= 3 and all(w[:1].isupper() for w in written[ps : i - 1]):
                    start, stop = ps, i - 1
            back = None
            if all(t in cues.loose for t in tokens[start:stop]):  # "so that one is off the table"
                p = start
                while p > sentence_start and (tokens[p - 1] in cues.loose or tokens[p - 1] in cues.boundary):
                    p -= 1
                if cues.anaphors & set(tokens[p:i]):  # "I've finished Couch to 5K so that one's out"
                    back = _antecedent(tokens, written, sentence_start, p, names, cues)
            scopes.append((i, i + n, *back) if back else (i, i + n, start, stop))
        else:
            # The word limit holds per excluded item: "excluding A as well as B" keeps B whole.
            end = item = i + n
            while end < len(tokens) and end < item + cues.max_scope_words \
                    and not _match(tokens, end, cues.stops) and not _time_phrase(tokens, end, cues) and (
                    _inside(tokens[end], cues) or _relative_after_filler(tokens, i + n, end, cues)
                    # "not a fan of those wire frames": a demonstrative before a noun phrase is a determiner
                    # ("anything but that breed" points back)
                    or (end == i + n and tokens[end] in cues.demonstratives and end + 2 < len(tokens)
                        and all(_inside(t, cues) and t not in cues.loose for t in tokens[end + 1 : end + 3]))
                    or _and_between_names(written, i + n, end, cues) or _and_in_list(tokens, item, end, cues)):
                if _names_listed(written, i + n, end, cues) and written[end].islower() \
                        and tokens[end] not in cues.determiners:
                    break  # "excluding Germany and France with the lowest cost of living": the names end it
                step = _match(tokens, end, cues.lists) or int(tokens[end] == "and")  # "Tokyo and Seoul"
                end += step or 1
                item = end if step else item
            if i == 0 and end == len(tokens) and end - n > 2 and _keyword_query(tokens, cues):
                # a cue opening a run of keywords names a plural noun, not the rest of the query ("no nuts brownie
                # recipe for kids", "ditch the onions chicken curry recipe"; "and" / "or" join a second); a singular
                # is an attribute of what is asked for ("no bake cheesecake recipe", "no deposit car finance")
                k = n + sum(1 for _ in itertools.takewhile(lambda t: t in cues.determiners, tokens[n:]))
                if k < end and (_plural(tokens[k]) or tokens[i + n - 1] not in ("no", "not")):
                    # "avoid ryanair flights dublin to rome": a verb's object is its first word
                    end = min(len(tokens), k + (3 if k + 2 < len(tokens) and tokens[k + 1] in ("and", "or") else 1))
                elif kind == "weak":  # "no bake": an attribute; a NOT of the whole query would sink every answer
                    i += n
                    continue
            pointing = kind == "anaphoric" or (kind == "strong" and _elided_object(tokens, sentence_start, i, n, cues))
            back = _anaphoric_subject(tokens, written, sentence_start, i, n, pointing, cues, names)
            if back:  # the anaphors count as the cue's: they leave the positive text with it
                scopes.append((i, back[2], back[0], back[1]))
            elif not (((kind == "weak" or _match(tokens, i, cues.wish_negations) == n)  # "don't want to upset him"
                       and _negated_action(tokens, written, i + n, end, cues))
                      or (tokens[i] == "no" and _details_nothing(tokens, sentence_start, i, cues))
                      or (kind in ("weak", "strong") and _states_fact(tokens, written, i, n, end, cues))
                      or (kind == "strong" and _own_thing(tokens, i + n, cues))
                      or (kind == "strong" and _reported(tokens, i, n, cues))
                      or (kind == "weak" and _others_event(tokens, written, sentence_start, i, n, end, cues))
                      or ((kind == "weak" or _match(tokens, i, cues.contrast) == n)
                          and _negated_state(tokens, written, i, n, end, cues))
                      # "knee pain walking down stairs but not up": a direction, no thing
                      or (end > i + n and all(t in cues.particles or t in cues.prepositions
                                              for t in tokens[i + n : end]))
                      # "phone says no SIM card detected": a message the asker reports
                      or (tokens[i + n - 1] == "no" and cues.status & set(tokens[i + n + 1 : end]))
                      or _possession_goes_on(tokens, sentence_start, i, n, cues)
                      # "flowering but no fruit forming": an absence reported (a weak "no" is silenced before)
                      or (n > 1 and _reports_absence(tokens, written, i + n - 1, cues))):
                # After an auxiliary the first word is the verb, not the thing: "won't eat anything with cilantro"
                # and so is a verb of taste after "not": "we're not considering anything from Kia"
                verb = int(kind == "weak" and (_match(tokens, i, cues.auxiliaries) == n
                                               or (i + n < len(tokens) and tokens[i + n] in cues.preference_verbs))
                           and i + n < end - 1 and tokens[i + n] not in cues.loose)
                # "no interest in romance", "no patience for long intros": the taste leaves with the cue
                if not verb and i + n + 2 < end and tokens[i + n] in cues.preference_nouns \
                        and tokens[i + n + 1] in cues.prepositions:
                    verb = 2
                # "please no answers using pandas": the kind of answer leaves with the cue, its link too
                if not verb and i + n + 1 < end and tokens[i + n] in cues.meta_nouns:
                    link = _match(tokens, i + n + 1, cues.meta_links)
                    verb = 1 + link if link and i + n + 1 + link < end else 0
                scopes.append((i, i + n + verb, i + n + verb, end))
        i += n
    return [scope for scope in scopes if not _premise(tokens, scope, scopes, cues)]


def _details_nothing(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when "no" at ``i`` details a negated "anything" (or a "nothing") earlier in its sentence, after
    punctuation: "I haven't gotten anything back - no itemized list, no explanation", "Nothing happens when I press
    the power button - no fans, no lights" report what did not happen, as "the ISP says there's no outage" reports
    what someone found; they exclude nothing."""
    if (i >= 2 and tokens[i - 1] == "there's" and tokens[i - 2] in cues.reporting) or (
            i >= 3 and tokens[i - 2] == "there" and tokens[i - 1] in ("is", "are") and tokens[i - 3] in cues.reporting):
        return True  # "the ISP says there's no outage": what someone found, not what to leave out
    for j in range(sentence_start, i):
        # "Nothing happens ..." as the sentence's subject ("so nothing fishing related" is an exclusion itself)
        if (tokens[j] == "nothing" and j == sentence_start) or (tokens[j] == "anything" and any(
                t in cues.negative or t.endswith("n't") for t in tokens[max(sentence_start, j - 4) : j])):
            return any(not t[0].isalnum() for t in tokens[j + 1 : i])
    return False


def _possession_goes_on(tokens: list[str], sentence_start: int, i: int, n: int, cues: _Cues) -> bool:
    """True when the cue ``tokens[i:i + n]`` is "but no" / "and no" after a clause of possession: "tv has sound but
    no picture" tells what the thing lacks, as "has no picture" would (:func:`_states_situation`); not "hotels that
    have a pool but no gym", whose relative clause asks for the property, nor "I have a Kindle but no interest in
    romance", a taste."""
    k = i + (n - 1 if tokens[i + n - 1] == "no" and n > 1 else 0)
    if tokens[k] != "no" or k == 0 or tokens[k - 1] not in ("but", "and") \
            or cues.preference_nouns & set(tokens[k + 1 : k + 4]):
        return False
    clause = tokens[_clause_start(tokens, sentence_start, k - 1, cues) : k - 1]
    return bool(cues.possession & set(clause)) and not cues.relative & set(clause)


def _contrast(tokens: list[str], written: list[str], cs: int, ce: int, cues: _Cues) -> bool:
    """True when the cue ``tokens[cs:ce]`` is a weak one that contrasts: its item may share words with the rest of the
    question ("Books from Iceland that aren't about Iceland" asks for Icelandic books).  A shouted one ("NOT
    crochet") insists, and "so no" after a premise ("I did keto for three months ..., so no keto please") concludes:
    both exclude what they name."""
    return _match(tokens, cs, cues.weak) == ce - cs and not written[cs].isupper() and not (
        tokens[cs] == "no" and cs > 0 and tokens[cs - 1] in cues.consequence)


def _opens_clause(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when token ``i`` opens its sentence or a clause (after punctuation), words of ``openers`` ("please",
    "just", "and") allowed before it: where an imperative cue ("ignore", "hold the") gives an order."""
    j = i
    while j > sentence_start and tokens[j - 1] in cues.openers:
        j -= 1
        if tokens[j] in cues.clause_words:  # "... so drop amex": "so" opens a clause
            return True
    return j == sentence_start or tokens[j - 1] in _COMMA_LIKE


def _elided_object(tokens: list[str], sentence_start: int, i: int, n: int, cues: _Cues) -> bool:
    """True when the strong cue at ``i`` ends its sentence right after a consequence word ("Vajiram I have already
    enquired so pls omit"): its object is what the sentence named before, as an anaphor's would be.  A cue that ends
    a question with nothing before it ("Which Marvel films can I skip?") names no object."""
    end = i + n
    if end < len(tokens) and tokens[end] not in _SENTENCE_END:
        return False
    j = i
    while j > sentence_start and tokens[j - 1] in cues.openers and tokens[j - 1] not in cues.consequence:
        j -= 1
    return j > sentence_start and tokens[j - 1] in cues.consequence


def _premise(tokens: list[str], scope: tuple[int, int, int, int], scopes: list, cues: _Cues) -> bool:
    """True when ``scope`` ("We already bought top-bar hives") is the premise of a later exclusion of its sentence
    that names another thing ("…, so please no Langstroth hives stuff"): what the asker has is the reason, not what
    to leave out.  Followed by an anaphoric one ("I already tried bokashi, so not those") or by one that names the same
    thing again ("I already tried the Aebersold books, so skip Aebersold") it is the exclusion."""
    cs, _, start, end = scope
    if tokens[cs] not in cues.premise or start < cs:
        return False
    stop = _sentence_end(tokens, end)
    had = {t for t in tokens[start:end] if t not in cues.loose}
    return any(end <= c < stop and s >= c and cues.consequence & set(tokens[end:c])
               and not {t for t in tokens[s:e] if t not in cues.loose} <= had for c, _, s, e in scopes)


def _sentence_end(tokens: list[str], i: int) -> int:
    """The position of the first sentence end at or after ``i`` (the end of the tokens when there is none)."""
    return next((j for j in range(i, len(tokens)) if tokens[j] in _SENTENCE_END), len(tokens))


def _adverb(word: str, cues: _Cues) -> bool:
    """An -ly adverb ("really", "officially"); not a compound adjective ("online-only banks", "kid-friendly")."""
    return len(word) > 4 and word.endswith(cues.adverb_suffix) and "-" not in word


def _match_intensified(tokens: list[str], i: int, seqs, cues: _Cues) -> int:
    """Length of a cue of ``seqs`` at ``i``, an adverb allowed after its first word ("not really into X", "Monopoly
    is officially banned", "barns are so overdone")."""
    n = _match(tokens, i, seqs)
    if not n and i + 1 < len(tokens) and (tokens[i + 1] in cues.intensifiers or (
            _adverb(tokens[i + 1], cues))):
        n = _match(tokens[i : i + 1] + tokens[i + 2 :], 0, seqs)
        n = n + 1 if n > 1 else 0
    return n


def _match_trailing(tokens: list[str], i: int, cues: _Cues) -> int:
    """Length of a trailing cue at ``i``, an adverb after its copula allowed (:func:`_match_intensified`); 0 before a
    word of ``trailing_not_before`` ("Dogs are banned from most beaches" states a fact) or a clock time ("not allowed
    after 8pm")."""
    n = _match_intensified(tokens, i, cues.trailing, cues)
    closes_split = any(_match(tokens, i, cues.split.get(tokens[j], ()))
                       for j in range(max(0, i - cues.max_scope_words - 1), i))
    if n == 1 and i > 0 and (tokens[i - 1] in cues.particle_verbs or closes_split):
        return 0  # "setting aside money", "leaving (Lehman Brothers) aside": a verb's particle ("golf aside" excludes)
    if n and i + n < len(tokens) and tokens[i + n] in cues.trailing_not_before:  # "banned from most beaches"
        return n if i + n + 1 < len(tokens) and tokens[i + n + 1] in cues.personal else 0  # "a hard no from me"
    if n and i + n + 1 < len(tokens) and tokens[i + n] in cues.state_prepositions and tokens[i + n + 1][0].isdigit():
        return 0  # "visitors are not allowed after 8pm": a rule of a place ("forbidden after last time" excludes)
    return n


def _negated_state(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when a weak cue's scope ``tokens[i + n:end]`` is a verb alone: the state of something named before it,
    not a thing to leave out ("car makes clicking noise but won't start", "the sink is not draining at all").  After
    an auxiliary ("won't", "doesn't") the first word is that verb, and particles or -ly adverbs may follow it ("can't
    swim away", "won't crack badly"), a preposition of time or place ("won't start on cold mornings") or a possessive
    ("don't hurt your ears"); "be" after an auxiliary is a state ("it won't be alone much"), and so is any verb in a
    relative clause but one of ``content_verbs`` ("a sunscreen that doesn't leave a white cast"; "things to do that
    don't involve Disney" still excludes).  After "is not" or "aren't", an -ing word; after "not" or "but not" outside
    a relative clause, a single -ed word ("delayed but not cancelled"; "novels that are not illustrated", "books that
    are not bestsellers" and "novels, but not computing" still exclude)."""
    if any(w[:1].isupper() for w in written[i + n : end]):
        return False  # a name is a thing: "trees that can't be found in Canada", "... doesn't bring Louis Armstrong in"
    def how(t: str) -> bool:  # a particle or an -ly adverb: how the verb goes, no thing
        return t in cues.particles or _adverb(t, cues)

    # "has not returned my calls", "it has never once kept a schedule": a perfect, someone else's event
    perfect = n == 1 and tokens[i] in ("not", "never") and i > 1 and tokens[i - 1] in cues.perfect_auxiliaries \
        and tokens[i - 2] not in cues.personal
    auxiliary = _match(tokens, i, cues.auxiliaries) == n or perfect
    if auxiliary and i + n < len(tokens) and tokens[i + n] == "be":
        return True  # "it won't be alone much": a copula after an auxiliary states how something is
    named = [t for t in tokens[i + n : end] if t not in cues.loose]
    k = i + n
    while k < end and (how(tokens[k]) or (tokens[i] == "not" and tokens[k] in cues.intensifiers)) \
            and tokens[k] not in cues.particles:
        k += 1  # "not super technical": an intensified adjective, how someone is
    if k > i + n and end - k == 1 and tokens[k] not in cues.prepositions and tokens[k] not in cues.loose:
        return True  # "but never actually rolls": adverbs, then a verb ("not really into jazz" names a thing)
    if (tokens[i] in cues.copulas or tokens[i] == "not") and k < end and tokens[k] in cues.state_prepositions \
            and named and all(t in cues.time_words or t in cues.state_prepositions for t in named):
        return True  # "the appointment isn't for another month", "not until next week": when, not what
    if auxiliary and len(named) == 2 and tokens[i + n] == named[0] and named[0] in cues.linking_verbs:
        return True  # "the pilot light won't stay lit": how the thing is
    if auxiliary and named and i + n < len(tokens) and tokens[i + n] in cues.loose and all(map(how, named)):
        return True  # a filler verb with an adverb: "still can't read fluently" ("I don't like horror" names a thing)
    # "novels that are not illustrated", "movies that aren't found footage": a property asked for
    in_relative = bool(cues.relative & set(tokens[_clause_start(tokens, 0, i, cues) : i]))
    if tokens[i] == "not" and n == 1 and not in_relative:
        v = i + 1
        while v < end and (_adverb(tokens[v], cues) or tokens[v] in cues.intensifiers):
            v += 1
        if v < end and tokens[v] == "from" and i > 0 and tokens[i - 1] in cues.copulas:
            return True  # "my certificate is not from the approved list": where something comes from, a fact
        if v == end - 1 and i > 0 and tokens[i - 1] in cues.copulas and tokens[v] not in cues.loose \
                and tokens[v] not in cues.prepositions:
            return True  # "reviewers said the writing is not logical": one word after a copula says how it is
    if not named or i + n >= len(tokens) or tokens[i + n] != named[0]:  # "I don't like horror" names a thing
        return False
    if (tokens[i + n - 1] == "not" or tokens[i] in cues.copulas) and named[0] in cues.status and not in_relative:
        return True  # "404 not found error on my site", "train isn't showing on the app": a status message
    past = _match(tokens, i, cues.past_negations) == n or perfect or (
        i > 0 and tokens[i] == "not" and n == 1 and _match(tokens, i - 1, cues.past_negations) == 2)
    if past and named[0] not in cues.preference_verbs and not cues.relative & set(tokens[max(0, i - 3) : i]):
        return True  # "tenant did not sign the lease renewal": what happened ("I didn't like Dune" is a taste)
    if auxiliary and i > 0 and tokens[i - 1] in cues.relative and named[0] not in cues.content_verbs:
        return True  # "a sunscreen that doesn't leave a white cast": a property
    if auxiliary:  # the verb, maybe with particles: "can't swim away"
        after = i + n + 1  # or with when / where it happens ("won't start on cold mornings") or one's own thing
        while after < len(tokens) and tokens[after] in cues.particles and tokens[after] not in cues.state_prepositions:
            after += 1  # after its particles: "kettle won't switch off when the water boils"
        if after < len(tokens) and (tokens[after] in cues.state_prepositions or tokens[after] in cues.possessives):
            return True
        rest = named[1:]  # "fan won't stop running": an -ing verb after the verb ("I don't like hiking" is a taste)
        if rest and _gerund(rest[0], cues) and named[0] not in cues.preference_verbs:
            # and when it goes on: "baby won't stop crying at night"
            return all(how(t) or t in cues.time_words for t in rest[1:])
        return all(map(how, rest))
    word = named[0]
    if tokens[i] in cues.copulas and n == 1 and len(named) == 1 and len(word) > 4 and word.endswith("ing"):
        return True  # "his meds aren't working even though ..."
    if tokens[i] == "not" and n == 1 and _symptom(tokens, i, word, cues):
        return True  # "fridge not cooling", "dishwasher not draining water at the bottom"
    if len(named) != 1:
        return False
    if tokens[i + n - 1] != "not" or len(word) <= 4:
        return False
    if word.endswith("ing"):  # a verb only right after "is not" or "it's not" ("but not computing" names a thing)
        return n == 1 and i > 0 and (tokens[i - 1] in cues.copulas or tokens[i - 1].endswith(("'s", "'re")))
    return (word.endswith("ed") or word in cues.status) and not in_relative


def _symptom(tokens: list[str], i: int, word: str, cues: _Cues) -> bool:
    """True when "not" at ``i`` and the -ing verb ``word`` after it say what one thing, the subject of the clause,
    does not do: its state ("fridge not cooling", "my laptop fan not spinning", "dishwasher not draining water"). Not
    a plural kind of result ("restaurants not serving seafood"), nor a noun phrase with a preposition ("museums in
    Prague not offering tours", "restaurants serving brunch not ..."), nor a verb of ``content_verbs`` ("a recipe
    not using butter"): those ask for a property of what is searched for."""
    # a participle's particle may end the subject: "laptop charger plugged in not charging"
    particle = i > 1 and tokens[i - 1] in cues.particles and tokens[i - 2].endswith("ed")
    if not (_gerund(word, cues) and i > 0 and tokens[i - 1][0].isalnum()
            and (tokens[i - 1] not in cues.loose or particle)):
        return False
    stem = word[:-3]
    if {stem, stem + "e"} & cues.content_verbs:  # "using", "requiring"
        return False
    subject = tokens[_clause_start(tokens, 0, i, cues) : i]
    if particle:
        subject = subject[:-1]
    if not subject:
        return False
    head = subject[-1]
    # "restaurants serving brunch not serving seafood": the subject is itself a kind with a property
    return len(subject) <= 4 and all(t[0].isalnum() and t not in cues.prepositions and t not in cues.relative
                                     and t not in cues.copulas and not _gerund(t, cues) for t in subject) \
        and not (head.endswith("s") and not head.endswith("ss"))


def _negated_action(tokens: list[str], written: list[str], start: int, end: int, cues: _Cues) -> bool:
    """True when ``tokens[start:end]`` (a weak cue's scope, or the words of a model's NOT) is a verb done to something
    named elsewhere: a word that is no preposition, then an object pronoun, the token after the span included ("I
    don't like it", "don't plan to buy it", "won't help me sleep", "never watch them twice"), or a demonstrative that
    ends its clause ("I'm not allowed to touch that"); what it excludes, if anything, is what the pronoun stands for,
    never the verb.  A pronoun after a preposition ("without any meat in them") or written as a name ("not set in the
    US") is not."""
    def pronoun(k: int) -> bool:
        if tokens[k] in cues.demonstratives:
            return k + 1 == len(tokens) or not _inside(tokens[k + 1], cues)
        return tokens[k] in cues.objects

    return any(pronoun(k) and written[k].islower() and tokens[k - 1][0].isalnum()
               and tokens[k - 1] not in cues.prepositions for k in range(start + 1, min(end + 1, len(tokens))))


def _silenced(tokens: list[str], written: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when a weak cue (or a negative word) at ``i`` excludes nothing: its sentence asks about a fact ("Why do
    cats not like water?") and its clause states no wish ("..., I want to avoid ibuprofen" does), it is capitalised
    but not shouted inside the sentence (a title: "the novel Never Let Me Go"; "NOT crochet" is a cue), it reads "not
    only", it follows a verb of getting by ("survive without light") or "when" / "if" in its clause ("when the
    landlord gives no notice"), or a property relative ("who does not sleep"), or it describes the asker's situation
    (:func:`_states_situation`) or how to do what is asked (:func:`_states_manner`)."""
    start = _clause_start(tokens, sentence_start, i, cues)
    return bool(_asks_fact(tokens, sentence_start, i, cues)
                or (_asks_property(tokens, sentence_start, i, cues)  # not "Which countries ... without Denmark"
                    and not (i + 1 < len(written) and written[i + 1][:1].isupper()))
                or (i > sentence_start and written[i][:1].isupper() and not written[i].isupper())
                or _opens_title(written, sentence_start, i, cues)
                or (tokens[i] == "not" and i + 1 < len(tokens) and tokens[i + 1] in cues.additive)
                or (i + 1 < len(tokens) and tokens[i + 1] in cues.state_adjectives  # "not safe to take", "isn't legal"
                    and (tokens[i] == "not" or tokens[i] in cues.copulas))
                # "It's not that I don't like classical music": the negations cancel
                or any(tokens[j : j + 2] == ["not", "that"] for j in range(start, i - 1))
                or any(tuple(tokens[k - len(v) : k]) == v and not (k - len(v) > 0 and (
                    tokens[k - len(v) - 1] in cues.prepositions or tokens[k - len(v) - 1] in cues.determiners))
                       for v in cues.need_verbs  # "lunches for work w/o rice": a noun, not a verb of getting by
                       for k in (i, i - 1 if i > 0 and tokens[i - 1] in cues.need_adverbs else i))
                or _conditional(tokens, start, i, cues)
                or (_after_property_relative(tokens, sentence_start, i, cues)  # not "players who aren't LeBron"
                    and not (i + 1 < len(written) and written[i + 1][:1].isupper()))
                or _states_situation(tokens, sentence_start, start, i, cues)
                or _follows_situation(tokens, sentence_start, i, cues)
                or _can_without(tokens, sentence_start, i, cues)
                or _states_manner(tokens, written, i, cues)
                or _elided_subject(tokens, written, sentence_start, i, cues)
                or _reports_absence(tokens, written, i, cues))


def _amount_qualifier(tokens: list[str], i: int, cues: _Cues) -> bool:
    """True when the cue at ``i`` ("excluding", "not including") follows an amount and names one of ``amount_items``
    ("budget around 3000 EUR excluding flights", "500 dollars not including tax"): what the amount counts.  "laptops
    under 1000 excluding Dell" still excludes Dell."""
    m = _match(tokens, i, cues.amount_qualifiers)
    if not m or i == 0 or i + m >= len(tokens) or tokens[i + m] not in cues.amount_items:
        return False
    k = i - 1
    while k > 0 and tokens[k] in cues.currencies:  # "3000 EUR", "150 a night"
        k -= 1
    return any(c.isdigit() for c in tokens[k])


def _time_phrase(tokens: list[str], k: int, cues: _Cues) -> bool:
    """True when a preposition at ``k`` opens a time phrase ("refused sandwiches *for months now*", "since last
    year", "in 2 weeks"): when, not part of the excluded thing, so it ends a scope."""
    if tokens[k] not in cues.state_prepositions:
        return False
    for t in tokens[k + 1 : k + 4]:
        if t in cues.time_words:
            return True
        if not (t.isdigit() or t in cues.time_determiners):
            return False
    return False


def _can_without(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when "without" at ``i`` follows a modal of ability in its clause ("countries Indian passport holders can
    visit without a visa", "places you can camp without a permit"): doing it without the thing is what is asked
    for, and the articles that answer name it ("visa-free").  Not after a request to the helper ("Can you recommend
    laptops without a touchscreen?", "could anyone suggest ...")."""
    if tokens[i] not in cues.manner:
        return False
    start = _clause_start(tokens, sentence_start, i, cues)
    return any(tokens[k] in cues.ability_modals and not (k + 1 < i and tokens[k + 1] in cues.addressees)
               for k in range(start, i))


def _follows_situation(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when "so no" at ``i`` draws the consequence of a negation earlier in its sentence that tells the asker's
    situation (:func:`_states_situation`): "neither of us drives so no rental car" restates the situation, and the
    articles that fit it name the missing thing ("Japan without a rental car").  After a premise that is no negation
    ("I did keto for three months, so no keto please") it still excludes."""
    if tokens[i] != "no" or i - 1 <= sentence_start or tokens[i - 1] not in cues.consequence:
        return False
    return any((tokens[j] in cues.situation_negations or tokens[j].endswith("n't"))
               and _states_situation(tokens, sentence_start, _clause_start(tokens, sentence_start, j, cues), j, cues)
               for j in range(sentence_start, i - 1))


def _harms_asker(tokens: list[str], written: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the harm cue at ``i`` ("makes me", "made my", "tore up my") follows its clause's subject, one to
    four words that name a thing ("Polyester makes me sweat buckets.", "Latex gloves make my hands swell up."), and
    the rest of the question asks for something else: what harmed the asker is what to leave out.  Not when the
    subject names no one thing (a pronoun, a quantifier, an adverb: "It makes me sneeze", "Lately every glass of red
    wine gives me a headache"), nor when the question asks a fact anywhere ("... Why?") or asks about the harm itself
    (a word of ``remedy_words``, "what helps", or an anaphor back to it: "Running makes my knees hurt. Exercises to
    strengthen them?")."""
    # the subject opens the sentence or a clause after a comma ("mattresses for side sleepers, memory foam didnt work
    # for us")
    start = next((j + 1 for j in range(i - 1, sentence_start - 1, -1) if tokens[j] in _COMMA_LIKE), sentence_start)
    subject = tokens[start:i]
    if not _match(tokens, i, cues.harm) or not 1 <= len(subject) <= 4 or subject[0] in cues.anaphors \
            or all(t in cues.loose for t in subject) \
            or any(not t[0].isalnum() or t in cues.personal or t in cues.quantifiers or t in cues.interrogatives
                   or _adverb(t, cues) for t in subject):
        return False
    return _asks_else(tokens, start, i, cues)


def _asks_else(tokens: list[str], sentence_start: int, i: int, cues: _Cues, remedy: bool = True) -> bool:
    """True when the cue at ``i`` tells a harm ("made me feel great" tells none: ``benefit_words``) and the question
    around it asks for something else than the harm: no fact question, no ``remedy_words``, no anaphor back to it in
    the next sentence, no word of the harm's own clause named again.  ``remedy=False`` lets the question ask for
    other remedies: what the asker tried and what failed is what they want replaced ("we tried oxalic acid and it
    was a disaster, what are the other treatment options?")."""
    end = _sentence_end(tokens, i)
    clause = next((j for j in range(i, end) if tokens[j] in _COMMA_LIKE or tokens[j] in cues.clause_words), end)
    if cues.benefit & set(tokens[i:clause]):
        return False
    rest = tokens[:sentence_start] + tokens[clause:]
    if not any(t[0].isalnum() for t in rest) or (remedy and cues.remedy & set(rest)) \
            or cues.anaphors & set(tokens[end + 1 : _sentence_end(tokens, end + 1)]) \
            or {t for t in tokens[i + 2 : clause] if t not in cues.loose} & set(rest):
        return False
    starts = [0] + [j + 1 for j in range(len(tokens) - 1) if tokens[j] in _SENTENCE_END or tokens[j] in _COMMA_LIKE]
    return not any(_match(tokens, o, cues.fact_starts) and not _match(tokens, o, cues.request_starts)
                   for o in starts) and not any(_match(tokens, o, cues.fact_tails) for o in starts)


def _tried_object(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> tuple[int, int] | None:
    """What the asker tried, when a harm cue after "and it" points back to it ("I tried melatonin last month and it
    gave me vivid nightmares", "we tried oxalic acid and it honestly was a disaster"): the words after one of
    ``tried_verbs`` (the asker its subject, said or not) up to a time phrase, a preposition or the "and", when the
    question asks for something else (:func:`_asks_else`; other remedies may be asked for).  ``None`` otherwise."""
    j = i - 1 - int(i > 1 and (_adverb(tokens[i - 1], cues) or tokens[i - 1] in cues.intensifiers))
    if j - 1 <= sentence_start or tokens[j] not in ("it", "they") or tokens[j - 1] != "and" \
            or not _match(tokens, i, cues.harm):
        return None  # "... and it (honestly) was a disaster"
    for k in range(sentence_start, j - 2):  # the asker its subject, said or not ("..., tried hellofresh and it ...")
        if tokens[k] in cues.tried_verbs and (k == sentence_start or tokens[k - 1] in cues.personal
                                              or tokens[k - 1] in _COMMA_LIKE):
            e = k + 1
            while e < j - 1 and _inside(tokens[e], cues) and tokens[e] not in cues.prepositions \
                    and tokens[e] not in cues.time_words and tokens[e] not in cues.time_determiners:
                e += 1
            named = [t for t in tokens[k + 1 : e] if t not in cues.loose]
            if named and e - k - 1 <= cues.max_scope_words and _asks_else(tokens, k, i, cues, remedy=False):
                return k + 1, e
            return None
    return None


def _reports_absence(tokens: list[str], written: list[str], k: int, cues: _Cues) -> bool:
    """True when "no" at ``k`` reports an absence, a state or a property of what is asked for, not a thing to leave
    out: after "there is" ("there's no clog I can see", "there is simply no room"), after "with" ("a room with no
    windows", "a society with no central government"), or before one of ``symptom_nouns`` within two words ("no
    signal on my TV", "makes no sound", "no new growth since spring").  Articles that fit such a need name the
    missing thing, so a NOT of it would sink them.  A name after it is still a thing: "apartments with no HOA"."""
    if tokens[k] != "no" or k + 1 >= len(tokens) or not written[k + 1][:1].islower():
        return False
    j = k - 1
    if j > 0 and (tokens[j] in cues.intensifiers or _adverb(tokens[j], cues)):
        j -= 1
    if j >= 0 and (tokens[j] == "there's" or (tokens[j] in ("is", "are", "was", "were") and j > 0
                                              and tokens[j - 1] == "there")):
        return True
    w = k - 1
    while w > 2 and tokens[w] == "and":  # back over "no X and": "with no shed and no water butt"
        before = next((v for v in range(w - 1, max(-1, w - 5), -1) if tokens[v] == "no"), None)
        if before is None:
            break
        w = before - 1
    if w >= 0 and tokens[w] == "with":
        return True
    # the symptom noun heads its phrase: "no video" is reported, "no video courses" are left out
    def ends_phrase(q: int) -> bool:
        return q == len(tokens) or not tokens[q][0].isalnum() or _gerund(tokens[q], cues) or tokens[q] in (
            cues.prepositions | cues.clause_words | cues.symptom_followers | cues.time_words | {"and", "or"})

    return any(tokens[p] in cues.symptom_nouns and ends_phrase(p + 1) for p in range(k + 1, min(k + 3, len(tokens))))


def _never_done(tokens: list[str], i: int, cues: _Cues, past: bool = False) -> bool:
    """True when "never" at ``i`` and its -ly adverbs stand before one of ``experience_participles`` ("never
    (actually) been to"); with ``past``, intensifiers may stand between too and any past verb counts ("never really
    followed a plan"): what the asker has not done."""
    v = i + 1
    while v < len(tokens) and (_adverb(tokens[v], cues) or (past and tokens[v] in cues.intensifiers)):
        v += 1
    return v < len(tokens) and (tokens[v] in cues.experience
                                or (past and len(tokens[v]) > 4 and tokens[v].endswith("ed")))


def _elided_subject(tokens: list[str], written: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the sentence opens with the negation of a verb with no object of its own ("can't decide between
    renting and buying", "won't turn on after the update", "doesn't charge"): the situation of an unnamed subject,
    not an imperative; "Can't do deadlifts or anything overhead" names what to leave out."""
    if i == sentence_start and tokens[i] == "never" and _never_done(tokens, i, cues, past=True):
        return True  # "never really followed a training plan before, ...": as "I never had lessons" says
    opens = i == sentence_start or tokens[i - 1] in _COMMA_LIKE  # a sentence, or a list item after "-" or ","
    m = _match(tokens, i, cues.elided_ability) if opens else 0
    if m and i + m < len(tokens) and tokens[i + m] in cues.ability_verbs:
        return True  # "don't speak French, how to get around Paris", "- can't read kanji": a skill the asker lacks
    if i == sentence_start and tokens[i] == "not" and i + 2 < len(tokens) and tokens[i + 1] in ("a", "an") \
            and written[i + 2][:1].islower() and tokens[i + 2] not in cues.preference_nouns \
            and tokens[i + 2] not in cues.taste_nouns:
        return True  # "Not an electrician but comfortable with wiring": who the asker is ("Not a fan of X", "Not a
        # Chihuahua or a Jack Russell though" exclude)
    if i == sentence_start and tokens[i] == "no":  # "No window in the room, so mould is an issue": a premise
        end = _sentence_end(tokens, i)
        if any(tokens[j] in cues.consequence and j - 1 > i and tokens[j - 1] in _COMMA_LIKE for j in range(i, end)):
            return True
    n = _match(tokens, i, cues.elided_subject) if i == sentence_start else 0
    if not n or i + n >= len(tokens):
        return False
    k = i + n + 1  # the word after the verb
    return k >= len(tokens) or not tokens[k][0].isalnum() or tokens[k] in cues.prepositions \
        or tokens[k] in cues.particles or _gerund(tokens[k], cues)


def _asks_fact(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the sentence of the cue at ``i`` asks about a fact and the cue's clause states no wish: it opens
    with a question word ("Why do cats not like water?"), maybe after a lead-in and a colon ("Random question that's
    been bugging me: why can't you ...") or "and" / "or" ("Or is it ..."), the cue's own clause of a question does
    ("..., and is it true that no dog is ...?") or names a reason or cause ("the common reasons hypertension doesn't
    respond to medication"), or its last clause is one ("... but won't start — what's wrong?", "...
    but not from cron, why??")."""
    clause = _clause_start(tokens, sentence_start, i, cues)
    if cues.wish & set(tokens[clause:i]):
        return False
    if cues.fact_clause & set(tokens[clause:i]):  # "What are the common reasons hypertension doesn't respond ..."
        return True
    end = _sentence_end(tokens, i)
    opening = next((j + 1 for j in range(i - 1, sentence_start - 1, -1) if tokens[j] == ":"), sentence_start)
    # A clause of a question may ask on its own: "..., and is it true that no dog is hypoallergenic?"
    openings = {sentence_start, opening} | ({clause} if end < len(tokens) and tokens[end] == "?" else set())
    for o in openings:
        o = _past_openers(tokens, o, i, cues)  # "Or is it ...", "and is it true that ..."
        if _match(tokens, o, cues.fact_starts) and not _match(tokens, o, cues.request_starts):
            return True
    last = max((j + 1 for j in range(i, end) if tokens[j] in _COMMA_LIKE), default=None)
    return last is not None and _match(tokens, last, cues.fact_tails) > 0 and end < len(tokens) \
        and tokens[end] == "?" and all(not t[0].isalnum() or t in cues.loose for t in
                                       tokens[last + _match(tokens, last, cues.fact_tails) : end])


def _past_openers(tokens: list[str], start: int, i: int, cues: _Cues) -> int:
    """The first token from ``start`` (before ``i``) that is none of ``openers`` ("and", "or", "please")."""
    while start < i and tokens[start] in cues.openers:
        start += 1
    return start


def _asks_property(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the weak cue at ``i`` is in a clause that opens with "which" / "what" and a subject: "Which breeds
    don't shed much?", "Which houseplants are not toxic to cats?" ask for things with the negated property, whose
    articles name it ("non-toxic to cats"); not "What are good laptops, not Macs" (the cue opens its own clause), nor
    "What movies are set in Lebanon that are not about spies" (a relative clause states what to leave out)."""
    start = _past_openers(tokens, _clause_start(tokens, sentence_start, i, cues), i, cues)
    # "What movies are set in Lebanon that are not about spies" excludes: the negation is in a relative clause
    return start < i - 1 and tokens[start] in cues.interrogatives and not cues.relative & set(tokens[start + 1 : i])


def _states_manner(tokens: list[str], written: list[str], i: int, cues: _Cues) -> bool:
    """True when the cue at ``i`` ("without") opens a clause about how to do the thing asked for: an -ing verb with
    its object ("without using chemicals", "without breaking the bank") or with its subject ("without the place
    smelling", "without it showing"); not "without camping" (a thing), nor "without mentioning the war".  After an
    -ing verb it says how that is done ("sleeping without a pillow", "cooking without oil"; not "anything without"),
    and so it does in a clause of making ("redo our backyard without grass", ``making_verbs``)."""
    if tokens[i] not in cues.manner:
        return False
    if i > 0 and _gerund(tokens[i - 1], cues) and tokens[i - 1] not in cues.loose:
        return True
    start = next((j + 1 for j in range(i - 1, -1, -1) if not tokens[j][0].isalnum()), 0)
    if 1 < i - start <= 4 and _gerund(tokens[start], cues) and tokens[start] not in cues.loose \
            and written[i + 1 : i + 2] and written[i + 1][:1].islower():
        return True  # "renting a car without a credit card": how to do it (not "... without Denmark")
    if i + 1 < len(tokens) and _gerund(tokens[i + 1], cues) \
            and (tokens[start] in cues.personal or tokens[start] in cues.third_persons) \
            and not (cues.wish | cues.preference) & set(tokens[start:i]):
        return True  # "my dog can't settle at night without whining", "she clicks through without paying attention"
    if cues.making_verbs & set(tokens[start:i]) and i + 1 < len(written) and written[i + 1][:1].islower():
        return True  # "We want to redo our backyard without grass": how to make it (not "... without Denmark")
    if i + 2 >= len(tokens):
        return False
    a, b = tokens[i + 1], tokens[i + 2]
    if _gerund(a, cues) and (b in cues.manner_objects or a == "being"):
        return True  # "without using chemicals", "won't fall asleep without being rocked", "without being overwhelming"
    return a in cues.manner_objects and (_gerund(b, cues) or (i + 3 < len(tokens) and _gerund(tokens[i + 3], cues)))


def _gerund(word: str, cues: _Cues) -> bool:
    return len(word) > 4 and word.endswith("ing") and word not in cues.topic_gerunds


def _conditional(tokens: list[str], start: int, i: int, cues: _Cues) -> bool:
    """True when the clause before ``i`` (from ``start``) states a condition ("when the landlord gives no written
    notice"), not a polite formula ("if possible") nor a wish ("If possible I'd prefer material without X")."""
    return any(tokens[j] in cues.condition and tokens[j + 1] != "possible" for j in range(start, i)) \
        and not cues.wish & set(tokens[start:i])


# Single quotes are straight by now (:func:`_plain`); double ones straight or curly.
_QUOTE = re.compile(r"(?<![\w'])'(?=\S)(?:[^']|'(?=\w))*?(?<=\S)'(?!\w)|\"[^\"]+\"|\u201c[^\u201d]+\u201d")


def _quoted_tokens(text: str) -> set[int]:
    """Positions (in the guard's tokens of ``text``) of the words inside quotation marks: a quoted error message or
    title ("I get 'fatal: not a git repository'") is what the asker talks about, so its negations exclude nothing.
    An apostrophe inside a word ("don't") opens no quotation."""
    spans = [m.span() for m in _QUOTE.finditer(text)]
    if not spans:
        return set()
    return {k for k, m in enumerate(_TOKEN.finditer(text)) if any(a < m.start() < b for a, b in spans)}


def _own_thing(tokens: list[str], k: int, cues: _Cues) -> bool:
    """True when a strong cue's scope from ``k`` is the asker's own thing, maybe after a verb ("it don't show my
    application", "I don't want to lose my job"): what the asker fears for, not a topic to leave out."""
    for j in (k, k + 1, k + 2):
        if j < len(tokens) and tokens[j] in ("my", "our"):
            return j == k or (j == k + 1 and tokens[k] != "to") or (j == k + 2 and tokens[k] == "to")
    return False


def _reported(tokens: list[str], i: int, n: int, cues: _Cues) -> bool:
    """True when an experience cue ("I've seen", "I have read") ending at ``i + n`` reports what the asker saw others
    say or do before the end of its clause ("I've seen adhesive strips mentioned", "I've seen too many mates get
    burned"), not a title already seen ("I've seen Inception")."""
    if tokens[i + n - 1] not in cues.perception:
        return False
    end = i + n
    while end < len(tokens) and tokens[end][0].isalnum():
        end += 1
    return bool(cues.reports & set(tokens[i + n : end]))


def _others_event(tokens: list[str], written: list[str], sentence_start: int, i: int, n: int, end: int,
                  cues: _Cues) -> bool:
    """True when an auxiliary negation ("don't", "won't") tells what someone other than the asker does: its subject
    is a third person ("He ... but won't let go of anything") or a plural noun phrase ("many small restaurants don't
    accept cards"), and its verb is no taste ("the kids don't like mushrooms", "won't eat anything spicy" still
    exclude)."""
    if _match(tokens, i, cues.auxiliaries) != n or i + n >= end or tokens[i + n] in cues.preference_verbs \
            or tokens[i + n] in cues.ability_verbs or tokens[i + n] in cues.refusals:  # "the kids won't eat X"
        return False
    start = _clause_start(tokens, sentence_start, i, cues)
    for k in range(i - 2, start, -1):  # "I read that many small restaurants ...": the reported clause's subject
        if tokens[k] == "that" and (tokens[k - 1] in cues.reporting or tokens[k - 1] in cues.perception):
            start = k + 1
            break
    subject = tokens[start:i]
    if not subject and i > sentence_start and tokens[i - 1] in ("but", "and"):
        # an elided subject is the sentence's first word: "He cruises ... and crawls ... but won't let go"
        return tokens[sentence_start] in cues.third_persons | {"it", "they"}
    if not subject or len(subject) > 5 or cues.personal & set(subject) or cues.relative & set(subject):
        return False
    head = written[i - 1]
    return tokens[i - 1] in cues.third_persons | {"they"} or (
        head.isalpha() and head.islower() and _plural(head) and len(head) > 3 and head not in cues.loose)


def _plural(word: str) -> bool:
    """A plural noun by its ending: "nuts", "onions" (not "glass", "hummus", "analysis")."""
    return len(word) > 3 and word.isalpha() and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _keyword_query(tokens: list[str], cues: _Cues) -> bool:
    """True for a search-box query: one run of at most 25 words with no punctuation inside it and no personal word
    ("first time buyer mortgage lenders santander is a no-go")."""
    words = [t for t in tokens if t[0].isalnum()]
    return len(words) <= 25 and all(t[0].isalnum() for t in tokens[:-1]) and not cues.personal & set(tokens)


def _unread_tokens(plain: str, tokens: list[str], cues: _Cues) -> set[int]:
    """Positions whose cue words say nothing about what to leave out: words in quotation marks, a program's message
    (:func:`_message_tokens`) and the first word of a search-box query about a title ("never gonna give you up
    lyrics", "skip the dishes promo code": the query names one of ``title_media_words``)."""
    unread = _quoted_tokens(plain) | _message_tokens(tokens, cues)
    if tokens and _keyword_query(tokens, cues) and cues.title_media & set(tokens):
        unread.add(0)
    return unread


def _message_tokens(tokens: list[str], cues: _Cues) -> set[int]:
    """Positions of a program's message typed without quotation marks ("fatal: not a git repository (or any of the
    parent directories)"): from a word of ``message_prefixes`` and its colon to the end of the sentence, read as
    quoted words are."""
    words: set[int] = set()
    for k in range(len(tokens) - 1):
        if tokens[k] in cues.message_prefixes and tokens[k + 1] == ":":
            words.update(range(k + 2, _sentence_end(tokens, k + 2)))
    return words


def _states_fact(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when a weak cue's scope ``tokens[i + n:end]`` tells a fact of the asker's situation, not a thing to leave
    out: "no one" or "no X" as the subject of a verb ("no one in the payroll department has responded", "No
    handover document exists"), "no X" where the asker is ("no heating in the kitchen", "No ammonia test kit at
    home"), "never ... before", what the asker has not done ("never opened the hood before"), and "not a X person",
    who the asker is (``identity_nouns``)."""
    after = tokens[i + n : min(len(tokens), end + 1)]
    if tokens[i + n - 1] == "not" and after[:1] in (["a"], ["an"]) and cues.identity_nouns & set(after[1:4]):
        return True  # "im not a spreadsheet person", "I'm not an electrician": who the asker is
    if tokens[i] == "never":
        return bool(cues.experience_ends & set(after))
    if tokens[i + n - 1] != "no" or not after:
        return False
    if after[0] == "one" or any(t in cues.subject_verbs and written[i + n + k].islower()
                                for k, t in enumerate(after) if k):
        return True  # a lower-case verb: "no Adam Sandler or Will Ferrell" names two actors
    for k in range(1, len(after) - 1):
        if after[k] in ("in", "at"):  # past the determiners and possessives to the place
            rest = [t for t in tokens[i + n + k + 1 : i + n + k + 4]
                    if t not in cues.determiners and t not in cues.possessives]
            return bool(rest) and rest[0] in cues.place_nouns
    return False


def _clause_start(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> int:
    """Where the clause of token ``i`` starts: after punctuation or a clause word ("though", "so")."""
    start = i
    while start > sentence_start and tokens[start - 1][0].isalnum() and tokens[start - 1] not in cues.clause_words:
        start -= 1
    return start


def _states_situation(tokens: list[str], sentence_start: int, start: int, i: int, cues: _Cues) -> bool:
    """True when the negation at ``i`` (in the clause from ``start``) tells the asker's situation, which the
    results must fit, not what to leave out.  Articles that fit such a need tend to name the missing thing ("pizza
    dough without gluten", "sculpting without a kiln"), so a NOT of it would sink them.  Three shapes:

    - a background clause (``background_words``), after its subject and with no word of preference before it:
      "even though I basically never eat sugar", "since we don't drive" (not "though I'd rather not read about
      lions", nor "Paris, though not art museums");
    - the asker (or what is theirs) as the clause's subject, right before the negation, which negates no taste:
      "I can't eat gluten", "my 4 year old won't eat vegetables", "my starter isn't bubbling" (not "I don't like
      horror", "my boss says no X");
    - a negated possession outside a relative clause: "The school has no kiln", "we don't even have a car" (not
      "hotels that have no pool", nor "I have no interest in X").
    """
    if tokens[i] in cues.volitional:  # "We're avoiding egg and dairy", "we're keen to avoid Tromsø": a choice
        return False
    if tokens[i] == "never" and _never_done(tokens, i, cues):
        return True  # "never (actually) been to a wedding", "never seen Star Wars": what the asker lacks
    after = i + 1  # the verb the negation applies to: "don't (even) have", "do not eat"
    while after < len(tokens) and (tokens[after] == "not" or tokens[after] in cues.possession_skip):
        after += 1
    taste = after < len(tokens) and (tokens[after] in cues.preference_verbs or tokens[after] in cues.preference_nouns) \
        and not (tokens[i] in cues.ability_negations and tokens[after] in cues.ability_verbs)
    owner = i + 1 + int(i + 1 < len(tokens) and tokens[i + 1] == "of")
    # "Neither my husband nor I", "None of my plants", "Neither of us" ("US" the country is no personal word elsewhere)
    if owner < len(tokens) and (tokens[owner] in cues.personal or (owner > i + 1 and tokens[owner] == "us")):
        return True
    before = tokens[max(sentence_start, start - 1) : i]
    for k in range(len(before)):
        n = _match(before, k, cues.background)
        if n:  # a subject between the two ("even though I never ..."; "Paris, though not art museums" excludes)
            return k + n < len(before) and not cues.preference & set(before) and not taste
    subject = tokens[start:i]
    # the subject after the clause's last "and": "... abroad and I don't speak German", "... and our school doesn't"
    own = subject[max((k + 1 for k, t in enumerate(subject) if t == "and"), default=0):]
    if own and own[0] in cues.personal and len(own) <= 4 and not taste \
            and not (cues.preference | cues.reporting) & set(own):
        return True
    # A second predicate of the asker's, joined by "and", shares the subject: "We never had a claim before and didn't
    # know flood was separate" (not "... and don't want X", a wish)
    if subject and subject[0] in cues.personal and i > start and tokens[i - 1] == "and" and not taste \
            and not (cues.preference | cues.reporting | cues.wish) & set(subject):
        return True
    if tokens[i] == "no" and i > start and tokens[i - 1] in cues.possession:  # "has no kiln"
        after = i + 1
    elif after < len(tokens) and tokens[after] in cues.possession:
        after += 1
    else:
        return False
    if (start == sentence_start or tokens[start - 1] in _COMMA_LIKE) and subject and subject[0] in cues.interrogatives:
        subject = subject[1:]  # "Which countries have no income tax?" asks; "which" relates nothing
    return not (cues.relative & set(subject) or _match(tokens, start, cues.property_relatives)
                or cues.preference_nouns & set(tokens[after : after + 3]))


def negative_clauses(question: str) -> list[tuple[int, int]]:
    """Token spans of the clauses of ``question`` that say what not to return.

    A clause runs between punctuation marks and clause words ("but", "so",
    "though", ...); it is negative when it holds a live negative word
    (``negative_words``: "not", "skip", "irrelevant", ...; silenced as a weak
    cue is, :func:`_silenced`).  A negative clause with nothing but negative,
    loose and anaphoric words ("skip him", "so not that one") reaches back over
    the clause before it in the same sentence: "Marco Polo gets too much
    coverage, skip him".  "Out" or "off" after a particle verb ("it turns out
    she never made a will") is no negative word.
    """
    cues = _cues()
    plain = _plain(question)
    written = _TOKEN.findall(plain)
    tokens = [t.lower() for t in written]
    quoted = _unread_tokens(plain, tokens, cues)
    spans, start, sentence_start = [], 0, 0
    for j in range(len(tokens) + 1):
        if j == len(tokens) or not tokens[j][0].isalnum() or tokens[j] in cues.clause_words:
            if start < j:
                spans.append((start, j, sentence_start))
            if j < len(tokens) and tokens[j] in _SENTENCE_END:
                sentence_start = j + 1
            start = j + 1
    clauses = []
    for k, (start, end, sentence_start) in enumerate(spans):
        if not any(tokens[j] in cues.negative and j not in quoted
                   and not (tokens[j] in ("out", "off") and j > 0 and tokens[j - 1] in cues.particle_verbs)
                   and not _silenced(tokens, written, sentence_start, j, cues)
                   and not _clause_state(tokens, written, j, end, cues) for j in range(start, end)):
            continue
        bare = all(tokens[j] in cues.negative or tokens[j] in cues.loose for j in range(start, end))
        if bare and k and spans[k - 1][2] == sentence_start:
            start = spans[k - 1][0]
        clauses.append((start, end))
    return clauses


def _clause_state(tokens: list[str], written: list[str], j: int, end: int, cues: _Cues) -> bool:
    """True when the negation at ``j`` says no more than a state up to its clause's ``end``, as a weak cue's scope
    would read it (:func:`_negated_state`: "tenant did not sign the lease renewal", "bluetooth not pairing with car
    after iphone update"), or a fact of the asker's situation (:func:`_states_fact`: "No handover document exists"):
    such a clause confirms no NOT."""
    n = _match(tokens, j, cues.weak)
    return bool(n) and (_negated_state(tokens, written, j, n, end, cues)
                        or _states_fact(tokens, written, j, n, end, cues))


def _opens_title(written: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the capitalised negation at ``i`` opens its sentence and a title in Title Case: capitalised words
    with a small word between them or a capitalised pronoun among them ("No Country for Old Men book summary", "No
    Time to Die review", "Never Let Me Go discussion questions"); not names ("No Disney movies", "Not New York
    hotels", "No Nike Air Max shoes").  Inside a sentence any capitalised weak cue is a title word."""
    if i != sentence_start or not written[i][:1].isupper() or written[i].isupper():
        return False
    caps, small, pronoun = 0, False, False
    for w in written[i + 1 :]:
        if w[:1].isupper():
            caps += 1
            pronoun = pronoun or w.lower() in cues.title_pronouns
        elif w in cues.title_words and caps:
            small = True
        else:
            break
    return caps >= 2 and (small or pronoun)


def _relative_after_filler(tokens: list[str], start: int, at: int, cues: _Cues) -> bool:
    """True when the scope so far and the token at ``at`` are filler or demonstratives leading to a relative word:
    "not the ones *that* talk about X", "but not *those* that are art museums" (not "not that one")."""
    if not all(t in cues.loose for t in tokens[start:at]):
        return False
    j = at
    while j < len(tokens) and tokens[j] in cues.loose and tokens[j] not in cues.relative:
        j += 1
    return start < j < len(tokens) and tokens[j] in cues.relative


def _and_between_names(written: list[str], start: int, at: int, cues: _Cues, back: bool = False) -> bool:
    """An "and" at ``at`` between names in a scope: "excluding Tokyo and Seoul", "skip the Vatican and the
    Colosseum", and scanning ``back`` from a trailing cue at ``start``, "Mykonos and Santorini are too busy", list
    two exclusions."""
    if written[at].lower() != "and":
        return False
    if back:
        return at > 0 and written[at - 1][:1].isupper() and written[start][:1].isupper()
    nxt = at + 2 if at + 2 < len(written) and written[at + 1].lower() in cues.determiners else at + 1
    return nxt < len(written) and written[nxt][:1].isupper() and any(w[:1].isupper() for w in written[start:at])


def _and_in_list(tokens: list[str], item: int, at: int, cues: _Cues) -> bool:
    """An "and" at ``at`` that ends a scope's short list of things: "excluding squats and lunges", "other than B12
    and iron" (one to three words after it up to punctuation or the end; not "without salt and make it spicy")."""
    if tokens[at] != "and" or not 0 < at - item <= 3 or not all(_inside(t, cues) for t in tokens[item:at]):
        return False
    j = at + 1
    k = j
    while k < len(tokens) and _inside(tokens[k], cues):
        k += 1
    return 0 < k - j <= 3 and (k == len(tokens) or not tokens[k][0].isalnum() or tokens[k] in cues.relative) \
        and tokens[j] not in (
        cues.prepositions | cues.personal | cues.ignore)


def _and_in_list_back(tokens: list[str], sentence_start: int, at: int, cue: int, cues: _Cues) -> bool:
    """An "and" at ``at`` in a trailing cue's scope that joins a short list starting a clause: "- tacos and spag bol
    are off the table" (one to three words on each side, punctuation or the sentence start before the list)."""
    if tokens[at] != "and" or not 0 < cue - at - 1 <= 3:
        return False
    k = at
    while k > sentence_start and _inside(tokens[k - 1], cues):
        k -= 1
    return 0 < at - k <= 3 and (k == sentence_start or not tokens[k - 1][0].isalnum()
                                or tokens[k - 1] in cues.clause_words)  # "so lilies and pothos are banned"


def _names_listed(written: list[str], start: int, at: int, cues: _Cues) -> bool:
    """True when ``written[start:at]`` is a list of names joined by "and" / "or" ("Tokyo and Singapore")."""
    words = [w for w in written[start:at] if w.lower() not in cues.determiners]
    joins = [w for w in words if w.lower() in ("and", "or")]
    return bool(joins) and len(words) > len(joins) + 1 and all(w[:1].isupper() or w in joins for w in words)


def _after_property_relative(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the weak cue at ``i`` sits in a clause opened by "who" / "where" / "in which": "a toddler who does
    not sleep on planes" asks for that toddler; it excludes nothing."""
    for j in range(i - 1, max(sentence_start, i - 6) - 1, -1):
        if any(tuple(tokens[j - len(seq) + 1 : j + 1]) == seq for seq in cues.property_relatives):
            return True
        if not tokens[j][0].isalnum() or tokens[j] in cues.boundary:
            return False
    return False


def _anaphoric_subject(tokens: list[str], written: list[str], sentence_start: int, i: int, n: int,
                       pointing: bool, cues: _Cues, names: bool = True) -> tuple[int, int, int] | None:
    """``(subject_start, subject_end, cue_end)`` for an exclusion that points back, else None.

    "Edinburgh Castle is too crowded, so not that one.", "The Great Barrier
    Reef is covered everywhere, so don't include it.", "The Matterhorn area
    is always packed, so leave that out." (``pointing``: the cue carries its
    own anaphor): the cue at ``i`` is followed only by anaphors and filler up
    to the end of its sentence, and the sentence opens with a named subject
    (:func:`_named_subject`) or, when ``names`` (no exclusion of the sentence
    came before the cue), names something before the cue
    (:func:`_named_object`: "we did the Vatican last trip so give it a miss"); a sentence of nothing but
    the cue and filler points to the last names of the three sentences before it.
    """
    end = i + n
    while end < len(tokens) and tokens[end] in cues.loose:
        end += 1
    # up to the sentence's end or its clause's: "... Thailand twice so please leave it out, we want somewhere new"
    if end < len(tokens) and tokens[end] not in _SENTENCE_END and tokens[end] not in _COMMA_LIKE:
        return None
    if not (pointing or cues.anaphors & set(tokens[i + n : end])):
        return None
    subject = _antecedent(tokens, written, sentence_start, i, names, cues)
    if not subject and names and all(t in cues.loose or t in cues.openers for t in tokens[sentence_start:i]):
        # a sentence of the cue alone points further back: "I've been using Shopify ... Anything except that one."
        # (not "Cafés in Rome. The service is slow, so not that one.")
        ends = [j for j in range(sentence_start - 1, -1, -1) if tokens[j] in _SENTENCE_END][:4]
        for stop, begin in zip(ends, ends[1:] + [-1]):
            subject = _named_object(written, begin + 1, stop, cues)
            if subject:
                break
    return (*subject, end) if subject else None


def _antecedent(tokens: list[str], written: list[str], sentence_start: int, before: int, names: bool,
                cues: _Cues) -> tuple[int, int] | None:
    """What an anaphor before ``before`` points to: the sentence's named subject (:func:`_named_subject`), else, when
    ``names`` (no exclusion of the sentence came first), the last names before it (:func:`_named_object`)."""
    return _named_subject(tokens, written, sentence_start, before, cues) or (
        _named_object(written, sentence_start, before, cues) if names else None)


def _named_object(written: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """The last names before ``before`` in the sentence, a list of them joined by "and" / "or" included, for an
    anaphor whose sentence opens with no named subject: "we did the Vatican last trip so give it a miss",
    "Everyone writes about the Golden Circle and the Blue Lagoon, but we want to skip both".  A sentence's first
    word is no name (its capital says nothing), nor is "I"."""
    first = sentence_start + 1

    def name(k: int) -> bool:  # "Borrowdale", "5K"
        word = written[k] if k >= first else ""
        return (word[:1].isupper() or (word[:1].isdigit() and any(c.isupper() for c in word))) \
            and word.lower() not in cues.personal

    end = before
    while end > first and not name(end - 1):
        end -= 1
    if end <= first:
        return _first_word_name(written, sentence_start, before, cues)
    start = end - 1
    while True:
        if name(start - 1):
            start -= 1
            continue
        if start - 2 >= first and written[start - 1] in cues.name_links and name(start - 2):  # "Couch to 5K"
            start -= 2
            continue
        k = start - 1 - int(start - 1 >= first and written[start - 1].lower() in cues.determiners)  # "and the Y"
        if k >= first and written[k].lower() in ("and", "or") and name(k - 1):
            start = k - 1
            continue
        if start > sentence_start and written[start - 1].lower() in cues.personal:
            # the asker's own ("so my GP has told me to stay clear of it"): who speaks, not what is left out
            return _named_object(written, sentence_start, start - 1, cues)
        return start, end


def _first_word_name(written: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """The sentence's first word as the one name an anaphor can point to, when no other word of the sentence is a
    name: capitalised, no function word, and the word after it written lower-case ("Java feels super verbose to me
    and I tried it in college and hated it", "Geico raised our rate twice so they're off the table"; not "Seen
    Schitt's Creek already", nor "Honestly I hated it", nor "Between the fee and the apps it costs ...", nor "Two
    years ago ibuprofen gave me ...")."""
    k = sentence_start
    if k + 1 >= before or not written[k][:1].isupper() or not written[k + 1][:1].islower():
        return None
    low = re.sub(r"'s$", "", written[k].lower())  # "Logitech's broke after a week"
    if not low.isalpha() or low in cues.loose or low in cues.personal or low in cues.sentence_starts \
            or low in cues.interrogatives or low in cues.clause_words or low in cues.boundary \
            or low in cues.determiners or low in cues.prepositions or low.endswith(cues.adverb_suffix) \
            or low in cues.time_determiners \
            or low in cues.wish or low in cues.preference_verbs or _match([low], 0, cues.weak) \
            or _match([low], 0, cues.strong):
        return None
    return k, k + 1


def _named_subject(tokens: list[str], written: list[str], sentence_start: int, before: int,
                   cues: _Cues) -> tuple[int, int] | None:
    """The words before the sentence's first copula ("is", "gets", ...) ahead of ``before``, when they are at
    most ``max_scope_words`` words with no boundary and name something (``written``: the tokens as written)."""
    copula = next((j for j in range(sentence_start, before) if tokens[j] in cues.copulas), None)
    if copula is None or copula == sentence_start or copula - sentence_start > cues.max_scope_words:
        return None
    subject = written[sentence_start:copula]
    if not all(_inside(t, cues) for t in tokens[sentence_start:copula]):
        return None
    # A name, not "The service is slow, so not that one": a capital past the sentence's first word, or one word.
    if not (any(w[:1].isupper() for w in subject[1:]) or (len(subject) == 1 and subject[0][:1].isupper())):
        return None
    return sentence_start, copula


def _scoped_tokens(question: str) -> tuple[list[str], list[tuple[int, int, int, int]], set[int]]:
    """The question's tokens as written, its :func:`exclusion_scopes` and the token positions inside them."""
    scopes = exclusion_scopes(question)
    return _TOKEN.findall(_plain(question)), scopes, {j for _, _, s, e in scopes for j in range(s, e)}


def _inside(token: str, cues: _Cues) -> bool:
    return token[0].isalnum() and token not in cues.boundary


def _items(lower: list[str], start: int, end: int, cues: _Cues) -> list[list[str]]:
    """The scope's tokens split into excluded items at "or" / "as well as"."""
    items, current, j = [], [], start
    while j < end:
        n = _match(lower, j, cues.lists)
        if n and j + n <= end:
            items.append(current)
            current, j = [], j + n
            continue
        current.append(lower[j])
        j += 1
    items.append(current)
    return [i for i in items if i]


@dataclass(frozen=True)
class GuardDecision:
    """What :func:`guard_rewrite` did: the new tree and why."""

    tree: Node
    mode: str  # "structure" (reliable parse kept), "question" (whole question as positive leaf) or "plain"
    kept: tuple[str, ...]  # the exclusions kept (their words)
    dropped: tuple[str, ...]  # the rewrite's negated leaves the question does not confirm


def guard_decision(rewrite: Rewrite, propose: bool = False) -> GuardDecision:
    """Decide the safe tree for ``rewrite`` (see the module docstring).

    With ``propose``, an exclusion the question states in a cue's scope is added
    even when the rewrite missed it ("Humphrey Bogart is off the table").
    """
    cues = _cues()
    question = normalize_text(rewrite.question)
    tokens, scopes, in_scope = _scoped_tokens(question)
    lower = [t.lower() for t in tokens]
    scope_words = {lower[j] for j in in_scope}
    outside_words = {w for j, w in enumerate(lower) if j not in in_scope and w[0].isalnum()}

    kept: list[list[str]] = []
    dropped: list[str] = []
    cue_tokens = {j for cs, ce, _, _ in scopes for j in range(cs, ce)}
    said_at: dict[tuple[str, ...], list[int]] = {}  # a kept NOT confirmed by its clause, not a scope: where it is
    for term, negated in iter_terms(rewrite.tree):
        if not negated:
            continue
        words = _words(term.text)
        core = _unshared(words, [w for w in words if w in scope_words and w not in cues.ignore], outside_words)
        top = _top_level_negation(rewrite.tree, term)
        if core and len(core) <= cues.max_constraint_words and top:
            if not any(set(core) <= set(k) for k in kept):
                kept.append(core)
        elif top and rewrite.source in _MODEL_SOURCES and (
                said := _said_in_negative_clause(term, question, tokens, cue_tokens, cues)):
            core = [lower[j] for j in said]
            if not any(set(core) <= set(k) for k in kept):
                kept.append(core)
                said_at[tuple(core)] = said
        else:
            dropped.append(term.text)
    if propose:  # exclusions the question states that the rewrite missed
        for cs, ce, start, end in scopes:
            weak = _contrast(lower, tokens, cs, ce, cues)
            for item in _items(lower, start, end, cues):
                named = [w for w in item if w not in cues.ignore]
                # Shared words are heads ("but not *art* museums"), unless a strong cue's item has no other word:
                # then the question names the excluded thing outside the exclusion too ("Hostas are everywhere,
                # so ... other than hostas"); after a weak cue it is a contrast ("Books from Iceland that aren't
                # about Iceland").
                core = _unshared(item, named, outside_words) or ([] if weak else named)
                if core and len(core) <= cues.max_constraint_words and not any(set(core) <= set(k) for k in kept):
                    # A kept exclusion that is a fragment of this stated one ("diets" of the model's "keto diets"
                    # beside "ketogenic diets") would exclude more than asked: the stated phrase replaces it.
                    kept = [k for k in kept if not set(k) < set(core)] + [core]
    # Write each kept exclusion with the question's own spelling, in the question's order.
    spelled = []
    for core in kept:
        js = said_at.get(tuple(core)) or sorted(j for j in in_scope if lower[j] in core)
        spelled.append(" ".join(dict.fromkeys(tokens[j] for j in js)))
    excluded = {j for j in in_scope if any(lower[j] in core for core in kept)}
    said = {j for core in kept for j in said_at.get(tuple(core), ())}
    # A scope that yields an exclusion leaves the positive text whole, cue included: its other words are filler
    # ("anything about") or shared heads the question also uses outside it ("but not award-winning *novels*").
    removed = {j for cs, ce, s, e in scopes if any(k in excluded for k in range(s, e))
               for j in _span(lower, cs, ce, s, e)}
    positive_text = " ".join(t for j, t in enumerate(tokens) if j not in removed | said and t[0].isalnum())

    structure = _reliable_positive(rewrite.tree, lower, in_scope, cue_tokens, cues)
    if structure is not None:
        positive, mode = structure, "structure"
    elif kept:
        positive, mode = Term(positive_text or question), "question"
    else:
        return GuardDecision(Term(question), "plain", (), tuple(dropped))
    nots = tuple(Not(Term(text)) for text in spelled)
    tree = And((positive, *nots)) if nots else positive
    if isinstance(tree, And):  # flatten a positive And into the conjunction
        children = []
        for c in tree.children:
            children.extend(c.children if isinstance(c, And) else (c,))
        tree = And(tuple(children))
    return GuardDecision(tree, mode, tuple(spelled), tuple(dropped))


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


def guard_rewrite(rewrite: Rewrite, mode: str = "propose") -> Rewrite:
    """The guarded rewrite: the question as positive leaf (or a reliable parse) plus confirmed exclusions.

    Works on the result of any rewriter (rules, model, cache); the source is
    kept.  ``mode`` is one of :data:`GUARD_MODES` (``off`` returns ``rewrite``).
    """
    if mode not in GUARD_MODES:
        raise ValueError(f"unknown guard mode {mode!r}; expected one of {GUARD_MODES}")
    if mode == "off":
        return rewrite
    decision = guard_decision(rewrite, propose=mode == "propose")
    if decision.tree == rewrite.tree:  # kept as is: so are the rewriter's predicates and parse cost
        return rewrite
    return Rewrite.from_tree(rewrite.question, decision.tree, rewrite.source)
