"""The guard's cue lists (``guard.json``) and the token helpers every other module reads a question with."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from importlib import resources

from ...query import normalize_text


# A hyphen or en dash between spaces, or an em dash, separates clauses as a comma does ("at home - stretching
# routines"); an unspaced en dash joins ("Trastevere\u2013Testaccio").
_TOKEN = re.compile(r"\w[\w'-]*(?:\.\w[\w'-]*)*|[.,;:!?()\u2014]|(?<!\S)[-\u2013](?!\S)")  # "chart.js" is one word
_SENTENCE_END = {".", "!", "?"}
_COMMA_LIKE = {",", ";", ":", "(", "-", "\u2013", "\u2014"}
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
    cost_words: frozenset[str] = frozenset()  # "without spending silly money": an amount, no thing left out
    comment_adverbs: frozenset[str] = frozenset()  # "already read Piranesi obviously": the asker's aside, no name
    courtesy: frozenset[str] = frozenset()  # "no Cascadia pls", "please no Mitogen answers": a request
    reply_nouns: frozenset[str] = frozenset()  # "please no Mitogen answers": the kind of reply, no part of the name
    subject_pronouns: frozenset[str] = frozenset()  # "w/o niacinamide it makes me flare up": a new clause's subject
    finite_verbs: frozenset[str] = frozenset()  # "it makes", "she hates": a subject pronoun's verb
    person_anaphors: frozenset[str] = frozenset()  # "him" / "her": a person, not the thing that failed
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
    situation_questions: tuple[tuple[str, ...], ...] = ()  # "Is this normal?": a later question asks about it
    failure_gerunds: frozenset[str] = frozenset()  # "handles 4K without stuttering": how well, not a thing
    agent_nouns: frozenset[str] = frozenset()  # "the doctor gave me antibiotics": a person, not what harmed
    fact_frames: tuple[tuple[str, ...], ...] = ()  # "..., is it allowed that my employer does not pay X?"
    provider_verbs: frozenset[str] = frozenset()  # "his school does not offer AP": what a provider lacks
    opinion_verbs: frozenset[str] = frozenset()  # "so I think Munich is not for me": the subject starts after it
    past_events: frozenset[str] = frozenset()  # "never had heart issues": the asker's history, no thing
    household_nouns: frozenset[str] = frozenset()  # "I'm 35, no kids, ...": a self-description, no thing
    lack_nouns: frozenset[str] = frozenset()  # "no gym experience really": what the asker lacks, no thing
    excess_words: frozenset[str] = frozenset()  # "anything too drastic": a degree, no thing
    knowing_verbs: frozenset[str] = frozenset()  # "I never know whether to ...": a doubt, not an exclusion
    documents: frozenset[str] = frozenset()  # "the wedding invite says no children": a document's rule, reported
    question_words: frozenset[str] = frozenset()  # "whether", "what": the question a doubt is about
    ceasing_verbs: frozenset[str] = frozenset()  # "I don't want to stop the antibiotic": keeps it
    coping_verbs: frozenset[str] = frozenset()  # "how do other people cope with this?": the rule is the topic
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
    reading: frozenset[str] = frozenset()  # "prefer not to receive further material concerning X": being given reading
    tails: frozenset[str] = frozenset()  # "nobody wants it back": words that may close a clause after an anaphor
    object_anaphors: frozenset[str] = frozenset()  # "it", "them": anaphors that stand for a thing, not a person
    importance: frozenset[str] = frozenset()  # "great but not essential": how much a wish matters
    means_nouns: frozenset[str] = frozenset()  # "visiting wine regions without a car": how, not what
    patronage: frozenset[str] = frozenset()  # "we're not renewing with them": a custom refused
    helper_verbs: frozenset[str] = frozenset()  # "Can you recommend ...": a request to the helper, not an ability
    urging_verbs: frozenset[str] = frozenset()  # "keeps pushing me to see his chiropractor": urged on the asker
    benefit: frozenset[str] = frozenset()  # "Yoga made me feel great": no harm
    perfect_auxiliaries: frozenset[str] = frozenset()  # "the office has not returned my calls": an event
    title_media: frozenset[str] = frozenset()  # "no time to die trailer": what a query about a title asks for
    identity_nouns: frozenset[str] = frozenset()  # "im not a spreadsheet person": who the asker is
    commands: frozenset[str] = frozenset()  # "find -name not matching": a command line, whose "-name" is an option
    perception: frozenset[str] = frozenset()  # "I've seen X": the verb of an experience cue ("seen", "read")
    observation: frozenset[str] = frozenset()  # "I don't see any bugs on them": what the asker observed
    working: frozenset[str] = frozenset()  # "runs fine locally but not in docker": where the problem does not show
    novelty: frozenset[str] = frozenset()  # "somewhere new": something other than what the asker has done
    novelty_leads: frozenset[str] = frozenset()  # the words a request for something new follows ("somewhere", "want")
    experienced: frozenset[str] = frozenset()  # "we did Lisbon last year": what the asker has done, seen or owns
    experience_links: frozenset[str] = frozenset()  # "stayed at", "been to": a preposition before the thing
    reports: frozenset[str] = frozenset()  # "I've seen X mentioned", "seen mates get burned": a report, no experience
    meta_nouns: frozenset[str] = frozenset()  # "no answers using pandas": the answer's kind, not the excluded thing
    meta_links: tuple[tuple[str, ...], ...] = ()  # "using", "that involve": what joins a meta noun to its thing
    relevance_verdicts: tuple[tuple[str, ...], ...] = ()  # "non-relevant", "not of interest": an assessor's verdict
    verdict_leads: frozenset[str] = frozenset()  # "should be considered", "will be judged": before a verdict
    meta_verdicts: tuple[tuple[str, ...], ...] = ()  # "won't help": trails only "answers that just say X"
    code_keywords: frozenset[str] = frozenset()  # "WHERE NOT EXISTS", "NOT NULL": a query language's NOT, no cue
    indirect: frozenset[str] = frozenset()  # "don't recommend me X": the asker as indirect object, X the thing
    giving: frozenset[str] = frozenset()  # "recommend", "send": verbs that take the asker and a thing
    experiences: tuple[tuple[str, ...], ...] = ()  # "I had a horrible experience with X": X, when asking for else
    message_verbs: frozenset[str] = frozenset()  # "printer says no paper": what a machine shows
    devices: frozenset[str] = frozenset()  # "printer", "router", "git": things whose "says no X" is a message
    knowledge: tuple[tuple[str, ...], ...] = ()  # "I know": after an experience, what it taught, not what to omit
    memory_verbs: frozenset[str] = frozenset()  # "I can't remember drug names": the asker's memory, not a thing
    understatements: tuple[tuple[str, ...], ...] = ()  # "..., not a huge amount.": how much, not what
    refusals: frozenset[str] = frozenset()  # "she won't touch fish", "the landlord doesn't allow drilling": a limit
    situation_pronouns: frozenset[str] = frozenset()  # "it's not getting better": the thing asked about
    comparison_words: frozenset[str] = frozenset()  # "not as depressing": a degree, no thing
    quantity_words: frozenset[str] = frozenset()  # "not so much art": after a comparison word, a thing again
    reason_words: frozenset[str] = frozenset()  # "it's not the wifi, because ...": a cause ruled out
    rejections: tuple[tuple[str, ...], ...] = ()  # "UPPAbaby? no thanks": a name turned down
    place_anaphors: frozenset[str] = frozenset()  # "the wedding there was a disaster": a place named before
    class_anaphors: frozenset[str] = frozenset()  # "steering clear of that brand": a name's class after "that"
    function_verbs: frozenset[str] = frozenset()  # "the unit won't connect to our Wi-Fi": a thing failing, a symptom
    question_modals: frozenset[str] = frozenset()  # "what should I know about X": a question, no knowledge claimed
    named_trailing: frozenset[tuple[str, ...]] = frozenset()  # "Casper was way too soft": only after a name
    slang_trailing: frozenset[tuple[str, ...]] = frozenset()  # "ngl hamstudy was mid": a lower-case name too
    slang_openers: frozenset[str] = frozenset()  # "ngl", "tbh": what opens a slang verdict on a lower-case name
    title_links: frozenset[str] = frozenset()  # "Gone with the Wind": lower-case title words beside name_links
    name_joints: frozenset[str] = frozenset()  # "I'm in Spain and Yarn Barn stopped shipping": before a subject's names
    prescribing: tuple[tuple[str, ...], ...] = ()  # "my GP prescribed zopiclone", "put me on": what a doctor gave
    someone_words: frozenset[str] = frozenset()  # "for someone without a flow hood": who the asker is
    name_ends: frozenset[str] = frozenset()  # "vetoed IKEA for anything in the nursery": a name's scope ends here
    travel_verbs: frozenset[str] = frozenset()  # "don't want to drive in Germany": a way of getting about, no place
    act_verbs: frozenset[str] = frozenset()  # "exclude", "filtering": the act of leaving out, when it is the topic
    act_leads: tuple[tuple[str, ...], ...] = ()  # "how to", "alternatives to" (exclude outliers): the act asked about
    operation_words: frozenset[str] = frozenset()  # "SQL query excluding null rows": what an operation leaves out
    complement_heads: frozenset[str] = frozenset()  # "the fact that ...": "that" opens no relative clause after them
    change_words: frozenset[str] = frozenset()  # "my cat won't use the litter box anymore": a problem that began
    permission_verbs: frozenset[str] = frozenset()  # "our HOA won't allow X anymore": a rule, still an exclusion
    maker_nouns: frozenset[str] = frozenset()  # "won't touch that brand" after "a Nissan Rogue": the make
    continuing_negations: frozenset[str] = frozenset()  # "nor": a negation going on with the one before it
    light_verbs: frozenset[str] = frozenset()  # "dont want to go": a verb alone that names no thing
    damage_verbs: frozenset[str] = frozenset()  # "don't want to break the counter": a harm feared, not an exclusion
    place_prepositions: frozenset[str] = frozenset()  # "grass won't grow under the oak": where a state holds
    cost_verbs: frozenset[str] = frozenset()  # "can't afford therapy": a cost, maybe of what is asked for
    cheaper: frozenset[str] = frozenset()  # "free", "cheaper": a question asking for a cheaper way to it
    premise_adverbs: frozenset[str] = frozenset()  # "I've also tried X": between the asker and the verb
    state_gerunds: frozenset[str] = frozenset()  # "not being able to", "not getting ripped off": a state
    cause_nouns: frozenset[str] = frozenset()  # "dark skies aren't the issue": a cause ruled out
    third_person_copulas: frozenset[str] = frozenset()  # "He's not fussy": how someone else is
    replacement_cues: frozenset[tuple[str, ...]] = frozenset()  # "instead of", "rather than": before an -ing, how
    other_words: frozenset[str] = frozenset()  # "so other brands pls": a request for something else
    complaint_verbs: frozenset[str] = frozenset()  # "ikea stuff falls apart": a verb after a complained-of subject
    constraint_nouns: frozenset[str] = frozenset()  # "money is tight so ...": a limit, not a thing to leave out
    bare_negations: frozenset[str] = frozenset()  # "wont", "cant": typed bare and left so by _plain (also words)
    telling_verbs: frozenset[str] = frozenset()  # "how to tell my parents I don't want ...": what is to be told
    ceased: frozenset[str] = frozenset()  # "doesn't want to go to school anymore": a wish that stopped
    onset_verbs: frozenset[str] = frozenset()  # "the machine keeps skipping stitches": a symptom going on
    else_words: frozenset[str] = frozenset()  # "somewhere else warm": an anaphoric cue's last word before what is asked
    choice_verbs: frozenset[str] = frozenset()  # "don't want to deal with eBay": a verb whose object is a thing chosen
    be_contractions: tuple[str, ...] = ()  # "it's", "we're", "I'm": a subject holding its copula
    description_stops: frozenset[str] = frozenset()  # "something that's not", "somewhere not": no subject described
    taste_leads: frozenset[str] = frozenset()  # "we're not into sports": a taste after a negated copula
    manner_nouns: frozenset[str] = frozenset()  # "napped after lunch without any fuss": how it went, no thing
    receiving: frozenset[str] = frozenset()  # "the patio gets no direct sun": what a place or thing receives
    emotion_verbs: frozenset[str] = frozenset()  # "the pediatrician said not to worry": a feeling, no thing
    need_negations: tuple[tuple[str, ...], ...] = ()  # "I don't need AWD": a requirement relaxed, no thing left out
    information_nouns: frozenset[str] = frozenset()  # "don't need goldfish care info": what to read, still left out
    response_verbs: tuple[tuple[str, ...], ...] = ()  # "HR never replies to emails", "never picks up": silence
    examination_verbs: frozenset[str] = frozenset()  # "the vet checked him, no UTI, no crystals": findings follow
    finding_verbs: frozenset[str] = frozenset()  # "the urine test found no infection": what a check found
    requirement_words: frozenset[str] = frozenset()  # "no wheelchair needed": a requirement relaxed
    idle_phrases: tuple[tuple[str, ...], ...] = ()  # "no tests to speak of": an amount, nothing to leave out
    binomials: tuple[tuple[str, ...], ...] = ()  # "no mac and cheese": one thing, though "and" joins two words

    @cached_property
    def loose(self) -> frozenset[str]:
        """Words that name no excluded thing of their own: stopwords, filler and anaphors ("the ones", "it")."""
        return self.ignore | self.anaphors


@lru_cache(maxsize=1)
def _guard_data() -> dict:
    rewrite = resources.files(__package__.rpartition(".")[0])  # the cue lists sit beside the rewriters' data
    return json.loads(rewrite.joinpath("guard.json").read_text(encoding="utf-8"))


# A line that ends with no punctuation ends its sentence: a list item, a heading, a signature ("- Servox (he hates
# it)\n- ..."); the guard reads whitespace-collapsed text, where the line break would be lost.
_LINE_END = re.compile(r"(?<=[\w)\]\"'%])[ \t]*\r?\n\s*")


# "1. vegan protein 2. no weird aftertaste 3. not Greenform 4. ships to Ireland": a list numbered within one line.
_LIST_NUMBER = re.compile(r"(?:^|(?<=\s))\d{1,2}[.)](?=\s)")


@lru_cache(maxsize=1)
def _spoken_marks() -> tuple[re.Pattern, dict[str, str], frozenset[str]]:
    marks = {k.lower(): v for k, v in _guard_data()["spoken_punctuation"].items()}
    words = "|".join(map(re.escape, sorted(marks, key=len, reverse=True)))
    # a mark's word before a joining word is the word ("the Quaternary period or the Pliocene period")
    joins = "|".join(map(re.escape, _guard_data()["spoken_punctuation_not_before"]))
    return re.compile(r"(?<![\w'-])(%s)(?![\w'-])(?!\s+(?:%s)\b)" % (words, joins), re.IGNORECASE), marks, \
        frozenset(_guard_data()["spoken_punctuation_words"])


@lru_cache(maxsize=1)
def _section_label() -> re.Pattern:
    """The space before a capitalised field label and its colon inside a line ("Title: X Description: Y Narrative:
    Z", a test collection's topic written on one line): each field is a sentence of its own."""
    labels = "|".join(map(re.escape, sorted(_guard_data().get("section_labels", []), key=len, reverse=True)))
    return re.compile(r"(?<=[\w)\]\"'%%])\s+(?=[A-Z])(?=(?i:%s)\s*:)" % (labels or "(?!)"))


def _sentences(text: str) -> str:
    """``text`` with its whitespace collapsed and each unpunctuated line end or field label read as a sentence end.

    Two more shapes end a sentence or an item: a list numbered within one line (two numbers or more, "2. no weird
    aftertaste 3. not Greenform"), and dictated punctuation ("not the Kestrel brand period my teacher says ...
    comma also needs a case"), read only in a text that spells two marks or more, or one that is no common word
    ("comma", "question mark"): a lone "period" is a period of time."""
    text = _LINE_END.sub(" . ", text)
    text = _section_label().sub(" . ", text)  # "... without fracture benefit Description: Find trials ..."
    if len(_LIST_NUMBER.findall(text)) >= 2:
        text = _LIST_NUMBER.sub(lambda m: " . " if m.start() else " ", text)
    pattern, marks, words = _spoken_marks()
    said = [m.lower() for m in pattern.findall(text)]
    if len(said) >= 2 or set(said) - words:
        text = pattern.sub(lambda m: f" {marks[m[0].lower()]} ", text)
    return normalize_text(text)


@lru_cache(maxsize=1)
def _bare_contractions() -> re.Pattern:
    return re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, _guard_data()["bare_contractions"])), re.IGNORECASE)


@lru_cache(maxsize=1)
def _abbreviations() -> tuple[re.Pattern, dict[str, str]]:
    spelled = {k.lower(): v for k, v in _guard_data().get("abbreviations", {}).items()}
    def alternatives(keys: list[str]) -> str:
        return "|".join(map(re.escape, sorted(keys, key=len, reverse=True))) or "(?!)"
    # a word ("excl") is spelled out only on its own; a symbol (a cross mark typed against "Apple") anywhere
    words = [k for k in spelled if re.search(r"\w", k)]
    symbols = [k for k in spelled if not re.search(r"\w", k)]
    return re.compile(r"(?<![\w/])(?:%s)(?![\w/])|%s" % (alternatives(words), alternatives(symbols)),
                      re.IGNORECASE), spelled


def _plain(text: str) -> str:
    """``text`` with straight apostrophes and single quotes, a negation typed without one restored ("dont" -> "don't") and a
    shorthand spelled out ("excl." -> "excluding", "w/o" -> "without"), so a cue matches however the question was
    typed.  Every token list of the guard is taken from this text, so their positions agree."""
    pattern, spelled = _abbreviations()
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = _STRUCK.sub(r" , excluding \1 , ", text)  # "~~Buddipole~~ (way over budget)": a name struck through
    text = _MARKED.sub(r"excluding \1 , ", text)  # "Stihl 🚫 he refuses ...": a cross mark typed after a name
    text = pattern.sub(lambda m: spelled[m[0].lower()], text)
    text = _NUMBER_SIGN.sub("#", text)  # "Symphony No. 5": a number's sign, no negation and no sentence end
    text = _headers(bullets=True).sub(_header_bullets, text)  # "Already tried:\n- a booklet\n- Servox (...)"
    text = _headers().sub(_header_list, text)  # "Deal-breakers: Ryanair, overnight layovers", "Not considering: X"
    text = _FREE.sub(lambda m: f"{m[0]} (no {m[1]})", text)  # "a Ferber-free plan": a name left out
    text = _VETO.sub(r"\1 , excluding \2 , \3", text)  # "My foreman won't have Harbor Freight tools on site"
    text = _OTHER_THAN_NAME.sub(r"\1 , excluding \2 , ", text)  # "alternatives to Phonak hearing aids"
    text = _IF_NOT_THEN.sub(r"excluding \1 , what", text)  # "If not Kdenlive then what?"
    text = _REJECTED_NAME.sub(r"\1 , excluding \2 , ", text)  # "ops rejected NATS JetStream"
    # "mum refuses to go to Riverside Medical again" ("set foot" is no thing left out: "go")
    text = _SET_FOOT.sub(lambda m: re.sub(r"(?:set|step) foot", "go", m[1]) + f" , excluding {m[2]} , ", text)
    text = _BAD_MEMORY.sub(r"\1 , excluding \2 , \3", text)  # "after the Quayside Removals disaster last year"
    text = _CROSSED_OFF.sub(r"\1 , excluding \2 , ", text)  # "we're crossing off Harborview Kennels and Pawsome Stay"
    text = _LEFT_OUT.sub(r" , excluding \1 , ", text)  # "an overview with the Gospels left out"
    text = _REFUSES_TO.sub(r"\1 , excluding \2 , ", text)  # "My husband refuses to use a shock collar"
    text = _NO_FAN.sub(r" , excluding \1 , ", text)  # "Not a Nook fan, to be honest"
    text = _PUSHED_NOT_FOR.sub(r" , excluding \1 , \2", text)  # "Kombucha keeps popping up ... but it's not for me"
    text = _BAD_TASTE.sub(r" , excluding \1 , \2", text)  # "Our last cruise with Royal Caribbean left a bad taste"
    text = _name_others().sub(r"excluding \1 , \2", text)  # "Stenograph competitors??", "Airstream but cheaper?"
    text = _SOONER.sub(r"\1 , excluding \2 , ", text)  # "I'd sooner sell the boat than varnish with Epifanes"
    text = _ADVICE.sub(_advice, text)  # "everyone says 'just get a Widex' - no."
    text = _SWEARS_BY.sub(r"\1 , excluding \2 , \3", text)  # "My dad swears by Henle ..., not happening"
    text = _BEEN_THERE.sub(_been_there, text)  # "Been there, done Weight Watchers, twice."
    text = _ONE_THING.sub(lambda m: f"{m[0]} excluding ", text)  # "One thing I'm not using again ...: ivermectin"
    text = _INITIALS.sub(lambda m: f"{m[1]}{m[2].rstrip('.')} ", text)  # "George R.R. Martin": no sentence end
    text = _ALONE_NEVER.sub("Never again.", text)  # "Western Union. Never. The exchange rates are robbery."
    text = _ONE_STAR.sub(_one_star, text)  # "Toastmasters: one star, would not repeat"
    text = _PAREN_VERDICT.sub(_paren_verdict, text)  # "Crumbwell (great), Levain Lab (stale, smelled off)"
    text = _LOW_SCORE.sub(r"excluding \1 , \2/10", text)  # "Printaro 8/10, Labelnest 2/10"
    text = _BARE_VERDICT.sub(r"excluding \1 , \2", text)  # "Dolphins SC = nope", "Trailio - meh, no"
    text = _THAN_VERDICT.sub(_than_verdict, text)  # "better than the Voltkin starter set which was rubbish"
    text = _PLEASE_NOT.sub(r" , excluding \1 , ", text)  # "Hostel Wawelka please not, my friend found bed bugs"
    text = _FRONTED_REFUSAL.sub(lambda m: f" , excluding {m[1]} , {m[0][len(m[1]):]}", text)  # "Falabem I do not wish"
    text = _EMOJI.sub(" , ", text)  # "my kid hates peas 🙄 easy weeknight dinners?": an emoji ends a clause
    text = _BANG.sub("-", text)  # "burr coffee grinder !Baratza": a search box's "not" typed as "!"
    text = _MINUS.sub(", not ", _copula_s().sub(" is", text))  # each one a clause: "-d3 -highcharts" lists two
    text = _mid_minus(text)
    def restore(m: re.Match) -> str:  # "dont" -> "don't", "ive" -> "i've", "theyre" -> "they're"
        w = m[0]
        cut = 2 if w.lower().endswith(("re", "ve")) else 1
        return f"{w[:-cut]}'{w[-cut:]}"

    return _bare_contractions().sub(restore, text)


@lru_cache(maxsize=2)
def _headers(bullets: bool = False) -> re.Pattern:
    """A header before a colon that lists what is refused ("Deal-breakers: Ryanair", "Not considering: Notion"): the
    header and its colon are read as "excluding" (the header's own "not" would reach the wrong word).  With
    ``bullets``, the header ends its line and a bulleted list follows."""
    alternatives = "|".join(map(re.escape, sorted(_guard_data().get("header_cues", []), key=len, reverse=True)))
    head = r"(?<![\w/-])(?:%s)\s*:" % (alternatives or "(?!)")  # not "Inclusion/exclusion criteria:"
    if bullets:  # each item ended as a sentence ("Already tried: - a booklet . - Servox ."; ``_sentences``), or
        # all of them in one sentence, as a topic file's one line writes them ("tried: - a booklet - Servox (...) We")
        return re.compile(head + r"\s*((?:[-*\u2022]\s+[^.!?]*[.!?]\s*)+)", re.IGNORECASE)
    return re.compile(head + r"\s*(?=\w)([^.!?;\n]*)", re.IGNORECASE)


def _header_bullets(m: re.Match) -> str:
    """A bulleted list under a header: each item that is short or opens with a name is excluded up to its first
    parenthesis or comma ("- Servox (he hates the robot buzz)"); a long description stays as written ("- the speech
    therapy booklet from the hospital", which would make a NOT of many words)."""
    out = []
    for sentence in re.finditer(r"[-*\u2022]\s+([^.!?]*)([.!?])\s*", m[1]):
        items = re.split(r"\s[-*\u2022]\s+", sentence[1])
        for k, item in enumerate(items):
            head, tail = re.match(r"([^(,;]*)(.*)", item).groups()
            words = head.split()
            named = bool(words) and words[0][:1].isupper() and words[0].lower() not in ("the", "a", "an", "my", "our")
            end = sentence[2] if k == len(items) - 1 else "."
            out.append(f"excluding {head.strip()} , {tail} {end} " if words and (len(words) <= 4 or named)
                       else f"{item} {end} ")
    return " . " + "".join(out)


def _header_list(m: re.Match) -> str:
    """A header's list, each short item read as excluded ("Already tried: Footvax, Golden Hoof, trimming every 6
    weeks"); the first long item and what follows stay as written ("Not considering: Notion, because it is slow")."""
    items = re.split(r",(?![^()]*\))", m[1])  # not a comma inside parentheses: "a bootcamp (tried one, hated it)"
    k = 1
    while k < len(items) and 0 < len(re.sub(r"\([^()]*\)", "", items[k]).split()) <= 4:
        k += 1
    listed = (re.sub(r"^(?:and|or)\s+", "", x.strip()) for x in items[:k])  # "..., and school administration"
    return " , " + " , ".join(f"excluding {x}" for x in listed) + "".join("," + x for x in items[k:])


# "a Ferber-free plan", "a Coca-Cola-free party": a name (capitalised, then lower case: not "BPA-free", a property
# asked for) made "-free" after a lower-case word or a comma (not a sentence's first word: "Gluten-free recipes").
_FREE = re.compile(r"(?<=[a-z,] )([A-Z][a-z][\w.+']*(?:-[A-Z][\w.+']*)*)-free\b")


# "One thing I'm not putting through the drench gun again, after ...: ivermectin.": a sentence that opens with "one
# thing" and a negation names what it refuses after its colon.
_ONE_THING = re.compile(r"(?:^|(?<=[.!?]\s))(?:the\s+)?(?:one|only)\s+thing\s+[^.!?:]{0,160}?"
                        r"(?:\bnot\b|n't\b|\bnever\b)[^.!?:]{0,160}:\s*(?=\w)", re.IGNORECASE)


# Someone's veto of a name from a place: "Grandma banned Tupperware parties from the house", "My foreman won't have
# Harbor Freight tools on site" (not "banned in" / "won't have ... access": a fact or the asker's lot).
_VETO = re.compile(r"(?<=\w )(banned|won't have|will not have|wont have)\s+([A-Z][\w'&+.-]*(?:\s+\S+){0,3}?)\s+"
                   r"(from|on site|onsite|on the site|in the house|in my house|in our house|at home)\b")
# A name people know already, asked to be replaced: "alternatives to Phonak hearing aids", "a replacement for Finale",
# "comparable to GAF", "never again Hymer"; not a common noun ("an alternative to pine tar for a hull": the thing and
# its alternatives may both be the topic), nor "without" + a name ("schools without AP", "without CO2 injection").
_NAME = r"[A-Z][\w'&+-]*(?:\.\w[\w'&+-]*)*(?:\s+(?:of\s+|the\s+|&\s+)?[A-Z0-9][\w'&+-]*(?:\.\w[\w'&+-]*)*){0,4}"
_OTHER_THAN_NAME = re.compile(r"\b((?:alternatives?|replacements?)\s+(?:to|for)|(?:comparable|equivalent)\s+to"
                              r"|[Nn]ever\s+again,?)\s+(?:the\s+|a\s+|an\s+)?(%s)" % _NAME)

# A name given up, its replacement asked for: "If not Kdenlive then what?" (a name only: "if not now then when").
_IF_NOT_THEN = re.compile(r"\b[Ii]f\s+not\s+(?:the\s+)?(%s)\s*,?\s*then\s+what\b" % _NAME)

# A name someone turned down, after its subject: "Our architect banned Hibernate Envers", "ops rejected NATS JetStream"
# (a capitalised name that ends there, not "banned books" nor "banned Ring doorbells": the cues read those; nor after
# "has" / "have" / "had", which the cues read too).
_REJECTED_NAME = re.compile(r"(?<=\w )(?<!has )(?<!have )(?<!had )(banned|rejected|blocked|disallowed|forbade)\s+"
                            r"(?:the\s+)?(%s)(?=\s*(?:[,.;:!?()\"]|$|(?:after|because|since|so|last|for)\b))" % _NAME)

# A name someone will not set foot in again ("mum refuses to go to Riverside Medical again") and a name that left a
# bad memory ("after the Quayside Removals disaster last year", "After the SmileDirectClub mess I'm done with ..."):
# capitalised names only (not "refuses to go to school", "after the kitchen disaster").
_SET_FOOT = re.compile(r"\b((?:refuses?|refused|won't|wont|will not|never)\s+(?:to\s+)?(?:go|going|set foot|step "
                       r"foot|go back)\s+(?:to|in|into|inside|back to|near)\s+(?:the\s+)?)(%s)" % _NAME)
# "an overview of the field with the Gospels left out": a participle that leaves its object out (not "with the
# seeds removed", an instruction; not "with outliers excluded", an analysis).
_LEFT_OUT = re.compile(r"\bwith\s+((?:the\s+|any\s+)?\w[^,.;:!?()]{0,40}?)\s+(?:left out|left aside|set aside)\b")
# Someone's refusal of a thing to use ("My husband refuses to use a shock collar", "she refused to try Invisalign"):
# what is refused is left out (not "refuses to eat / wear / try": how to get a child to do it may be the question).
_REFUSES_TO = re.compile(r"\b(refuses|refused|refusing)\s+to\s+(?:use|buy|install|consider|go with|"
                         r"deal with|pay for)\s+(?!(?:into|in|on|with|for|from|to|at|out|up)\b)"
                         r"((?:an?\s+|the\s+|any\s+)?\w[\w'-]*(?:\s+[\w'-]+){0,3}?)"
                         r"(?=\s*(?:[,.;:!?()]|$|\s+(?:and|but|so|because|since|anymore|again|ever)\b))")
# A name the asker is no fan of ("Not a Nook fan, to be honest", "not really a Marvel fan") and one that left a bad
# taste ("Our last cruise with Royal Caribbean left a bad taste"): capitalised names only.
_NO_FAN = re.compile(r"\b[Nn]ot\s+(?:really\s+|much\s+of\s+)?an?\s+(?:big\s+|huge\s+)?(%s)\s+fan\b" % _NAME)
_BAD_TASTE = re.compile(r"(?:\bwith\s+)?\b(%s)\s+(left\s+(?:a\s+|such\s+a\s+)?(?:bad|bitter|sour)\s+taste)" % _NAME)
# A name that keeps coming up and is then turned down ("Kombucha keeps popping up on my feed but honestly it's just
# not for me", "Copper tape keeps being suggested but we already tried it").
_PUSHED_NOT_FOR = re.compile(r"\b([A-Z][\w'&+-]*(?:\s+[A-Za-z][\w'&+-]*){0,3}?)(\s+keeps?\s+(?:popping up|coming up|"
                             r"showing up|getting recommended|being recommended|getting suggested|being suggested)\b"
                             r"[^.!?]{0,80}?\b(?:but|and)\b[^.!?]{0,40}?"
                             r"\b(?:not\s+for\s+(?:me|us)|(?:we|I)(?:'ve|\s+have)?\s+already\s+tried\s+"
                             r"(?:it|that|them))\b)")
_CROSSED_OFF = re.compile(r"\b(cross(?:es|ed|ing)?\s+off)\s+(?:the\s+)?(%s(?:\s+(?:and|or)\s+%s)?)" % (_NAME, _NAME))
_BAD_MEMORY = re.compile(r"\b([Aa]fter\s+(?:the|that|our|my)\s+)(%s)(\s+(?:disaster|fiasco|debacle|mess|nightmare|"
                         r"saga|shambles)\b)" % _NAME)


@lru_cache(maxsize=1)
def _name_others() -> re.Pattern:
    """A name, then what competes with it: "Stenograph competitors??", "Airstream but cheaper?", "Notion
    alternatives" (not "Good alternatives to Spotify": ``competing_adjectives``)."""
    adjectives = sorted(re.escape(w.capitalize()) for w in _guard_data().get("competing_adjectives", ()))
    return re.compile(r"(?!(?:%s)\b)(%s)\s+(competitors|rivals|alternatives|but cheaper)\b"
                      % ("|".join(adjectives) or "(?!)", _NAME))


# "I'd sooner sell the boat than varnish with Epifanes again", "I'd rather do invoices by hand than use Bonsai" (a
# verb before the name: "somewhere rural rather than Edinburgh or Glasgow" is read by the cue "rather than").
_SOONER = re.compile(r"\b((?:I|i|we|We)(?:'d|\s+would)\s+(?:sooner|rather)\b[^.!?]{0,80}?\bthan(?:\s+[a-z]+){1,2})"
                     r"\s+(%s)" % _NAME)
# Advice quoted and turned down after the quote: "everyone says 'just get a Widex' - no.", "'just buy Laguna clay' -
# no thanks", "keep saying 'get a Truma Mover and be done with it'. Not at that price."; or tired of hearing it:
# "Sick of hearing 'just put a Velux in'".  Quoted words are otherwise the asker's subject, never a cue.
_REFUSAL = (r"(?i:no(?=\s*(?:[.,!;\u2014-]|$)|\s+thanks?\b|\s+thank\s+you)|nope\b|never\b"
            r"|not\s+(?:happening|at\s+that|a\s+chance))")
_ADVICE = re.compile(r"(?:((?i:sick|tired) of hearing|fed up with hearing)\s+)?(['\"\u201c])(?i:just\s+)?"
                     r"(?i:get|buy|use|put|do|go with|try|read)\s+(?i:in\s+)?(?i:a\s+|an\s+|the\s+)?(%s)"
                     r"((?:[^'\"\u201d]|'(?=\w))*)"
                     r"['\"\u201d](?(1)|(?=\s*[-\u2014\u2013,.:!?]*\s*%s|[^.!?'\"]{1,60}?\s[-\u2014\u2013,:]\s*%s))"
                     % (_NAME, _REFUSAL, _REFUSAL))

# Someone's favourite turned down: "My dad swears by Henle for everything Chopin, not happening".
_SWEARS_BY = re.compile(r"\b(swears?\s+by|keeps?\s+pushing)\s+(%s)([^.!?]{0,60}?,\s*)(?=%s)" % (_NAME, _REFUSAL))


def _advice(m: re.Match) -> str:
    """The quoted advice's name read as excluded, the rest of the quote kept as words."""
    return f" , excluding {m[3]} , {m[4]} , "


# "Been there, done X": X tried and left ("Been there, done the paper ledger, done Google Forms"); not "done that".
_BEEN_THERE = re.compile(r"\b(been there,?\s+)done\s+(?!that\b|it\b|this\b)([^.!?;\n]*)", re.IGNORECASE)


def _been_there(m: re.Match) -> str:
    """Each "done X" after "been there" read as "excluding X"; what follows the last item stays as written."""
    items = re.split(r",\s*done\s+", m[2])
    last, _, rest = items[-1].partition(",")
    return m[1] + " , ".join(f"excluding {x.strip()}" for x in items[:-1] + [last]) + ("," + rest if rest else "")


# A person's initials between a first name and a surname ("Sarah J. Maas", "George R.R. Martin"); not "in the U.S.
# Then ..." (a lower-case word before it).
_INITIALS = re.compile(r"\b([A-Z][a-z]+ )((?:[A-Z]\.){1,3}) (?=[A-Z][a-z])")
# "Never." alone after a sentence or a dash refuses what came before, as "never again" does.
_ALONE_NEVER = re.compile(r"(?:(?<=[.!?] )|(?<=[\u2014\u2013-] ))Never\.(?=\s|$)")
# Markdown strikethrough of a name ("~~Hagerty~~ doubled my renewal"); not of a lower-case word, often a typo
# corrected in place ("how to stop bees swarming (~~swimming~~ lol autocorrect)").
_STRUCK = re.compile(r"~~\s*([A-Z0-9][^~\n]{0,60}?)\s*~~")
# A cross mark or thumbs-down typed after a name and before no other ("NNA ❌ already spent too much", "Stihl 🚫 he
# refuses"); one before a name ("🚫 McDonald's 🚫 Olive Garden") is spelled out as "no" (``abbreviations``).
_CAPITALISED_RUN = r"[A-Z][\w'&+.-]*(?:\s+[A-Z][\w'&+.-]*){0,3}"  # one to four capitalised words
_MARKED = re.compile(r"(%s)\s*[\U0001F6AB\u274C\u26D4\U0001F44E\u2717\u2718\U0001F5D1\U0001F4A9]+\uFE0F?(?!\s*[A-Z])"
                     % _CAPITALISED_RUN)
# A review's lowest score after a name: "- Toastmasters: one star, would not repeat.", "Hostinger: 0 stars".
_ONE_STAR = re.compile(r"(%s)\s*:\s*((?:one|zero|1|0|no|half a)\s+stars?\b)" % _CAPITALISED_RUN)


# A verdict typed right after a name, in a list of things tried ("Levain Lab (stale, smelled off)", "Labelnest 2/10",
# "Dolphins SC = nope", "Trailio - meh, no") and a comparison's rejected thing ("better than the Voltkin starter set
# which was rubbish"); the verdict words are ``verdict_words`` (looked up on a match only).
_LOW_SCORE = re.compile(r"(%s)\s*:?\s*([0-3](?:\.\d)?)\s*/\s*10\b" % _CAPITALISED_RUN)
_BARE_VERDICT = re.compile(r"(%s)\s*(?:=|-|\u2013|\u2014)\s*(hard pass|nope|nah|no thanks|no way|meh,?\s*no|pass)\b"
                           % _CAPITALISED_RUN)
_THAN_VERDICT = re.compile(r"\b(than\s+(?:the\s+|my\s+|our\s+)?)(%s)([^,.;!?]{0,40}?,?\s*which\s+(?:was|were|is|are)"
                           r"\s+)((?:[\w']+\s+){0,2}[\w']+)" % _CAPITALISED_RUN)
_NUMBER_SIGN = re.compile(r"\b[Nn]o\.\s*(?=\d)")
# "Dozewell 4 (sagged within months)": a score may stand between the name and its verdict
_PAREN_VERDICT = re.compile(r"(%s)(?:\s+\d+(?:\.\d)?)?\s*\(([^()]{1,80})\)" % _CAPITALISED_RUN)
_PLEASE_NOT = re.compile(r"(%s)\s+(?:please\s+not|not\s+please)\b" % _CAPITALISED_RUN)  # "Hostel Wawelka please not"
# A name fronted before the asker's negated wish, as second-language English writes it ("The application Falabem I do
# not wish", "Scooter of Voltaro I not trust", "Keebo company I am not wanting anymore")
_FRONTED_REFUSAL = re.compile(r"([A-Z][\w'&+-]*(?:\s+(?!I\b)[A-Z][\w'&+-]*){0,3})(?:\s+company|\s+brand)?\s+(?:I|we)\s+"
                              r"(?:do\s+not|don't|not|am\s+not|are\s+not)\s+(?:wish|want|wanting|trust|like|need)\b")


def _verdict(text: str) -> bool:
    """Whether ``text`` holds a negative verdict word of ``verdict_words`` not right after a negation ("not bad")."""
    words = re.findall(r"[\w']+", text.lower())
    bad = set(_guard_data().get("verdict_words", ()))
    return any(w in bad and not (k and words[k - 1] in ("not", "never", "isn't", "wasn't"))
               for k, w in enumerate(words))


def _paren_verdict(m: re.Match) -> str:
    return f" , excluding {m[1]} , ({m[2]})" if _verdict(m[2]) else m[0]


def _than_verdict(m: re.Match) -> str:
    return f"{m[1]} , excluding {m[2]} , {m[3]}{m[4]}" if _verdict(m[4]) else m[0]


def _one_star(m: re.Match) -> str:
    """A review's lowest score after a name read as "excluding" it ("Rated: one star" names nothing: ``rating_words``);
    the word list is looked up only on a match, since ``_plain`` also reads each cue and leaf word."""
    return m[0] if m[1].lower() in _guard_data().get("rating_words", ()) else f"excluding {m[1]}, {m[2]}"


@lru_cache(maxsize=1)
def _copula_s() -> re.Pattern:
    """"ramen's off the table", "piano's a hard no": an 's before the rest of an "is ..." trailing cue is "is"."""
    rests = {c[3:] for c in _guard_data()["trailing"] if c.startswith("is ")} | {"off", "out"}
    alternatives = "|".join(map(re.escape, sorted(rests, key=len, reverse=True)))
    return re.compile(r"(?<=\w)'s(?=\s+(?:%s)\b)" % alternatives, re.IGNORECASE)
# Pictographs and dingbats (an emoji typed for "no", as 🚫, is spelled out before: ``abbreviations``).
_EMOJI = re.compile("[\U0001F300-\U0001FAFF\u2600-\u27BF]+[\uFE0F\U0001F3FB-\U0001F3FF]*")
# A suffix typed apart from its word is no operator: "shampoo for curly hair sulfate -free", "-based", "-less".
_SUFFIXES = r"(?:free|based|less|friendly|safe|only|style|like)\b"
# A search engine's exclusion operator closing a query: "pdf parsing libraries -pypdf2 -d3" (a word of two or more
# characters; "ls -l" is an option, "--verbose" no operator, and "how do I use rm -rf" asks about a fact).
_MINUS = re.compile(r"(?<=\S\s)-(?!%s)(?=[A-Za-z][\w.+#]+(?:\s+-[A-Za-z][\w.+#]+)*\s*$)" % _SUFFIXES)
# The operator inside or opening a query ("jaguar -car -football top speed"): a word of three or more characters,
# never in a question about a command line, where "-name" or "-jar" is an option ("find -name not matching").
_MID_MINUS = re.compile(r"(?:(?<=\S\s)|^)((?:-(?!%s)[A-Za-z][\w.+#]{2,}\s+)+)(?=[^\s-])" % _SUFFIXES)
_BANG = re.compile(r"(?<=\s)!(?=[A-Za-z])")
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
        cost_words=words("cost_words"),
        comment_adverbs=words("comment_adverbs"),
        courtesy=words("courtesy_words"),
        reply_nouns=words("reply_nouns"),
        subject_pronouns=words("subject_pronouns"),
        finite_verbs=words("finite_verbs"),
        person_anaphors=words("person_anaphors"),
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
        situation_questions=seqs("situation_questions"),
        failure_gerunds=words("failure_gerunds"),
        agent_nouns=words("agent_nouns"),
        fact_frames=seqs("fact_question_frames"),
        provider_verbs=words("provider_verbs"),
        knowing_verbs=words("knowing_verbs"),
        lack_nouns=words("lack_nouns"),
        opinion_verbs=words("opinion_verbs"),
        household_nouns=words("household_nouns"),
        past_events=words("past_events"),
        excess_words=words("excess_words"),
        documents=words("document_nouns"),
        question_words=words("question_words"),
        ceasing_verbs=words("ceasing_verbs"),
        coping_verbs=words("coping_verbs"),
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
        urging_verbs=words("urging_verbs"),
        helper_verbs=words("helper_verbs"),
        patronage=words("patronage_verbs"),
        means_nouns=words("means_nouns"),
        importance=words("importance_adjectives"),
        reading=words("reading_verbs"),
        tails=words("anaphor_tails"),
        object_anaphors=words("object_anaphors"),
        benefit=words("benefit_words"),
        perfect_auxiliaries=words("perfect_auxiliaries"),
        title_media=words("title_media_words"),
        identity_nouns=words("identity_nouns"),
        commands=words("command_words"),
        perception=words("perception_cue_verbs"),
        observation=words("observation_verbs"),
        working=words("working_words"),
        novelty=words("novelty_words"),
        novelty_leads=words("novelty_leads"),
        experienced=words("experience_verbs"),
        experience_links=words("experience_links"),
        reports=words("report_words"),
        meta_nouns=words("meta_nouns"),
        meta_links=seqs("meta_links"),
        relevance_verdicts=seqs("relevance_verdicts"),
        verdict_leads=words("verdict_leads"),
        meta_verdicts=seqs("meta_verdicts"),
        code_keywords=words("code_keywords"),
        refusals=words("refusal_verbs"),
        indirect=words("indirect_objects"),
        giving=words("giving_verbs"),
        knowledge=seqs("knowledge_cues"),
        memory_verbs=words("memory_verbs"),
        understatements=seqs("understatements"),
        experiences=seqs("experience_cues"),
        message_verbs=words("message_verbs"),
        devices=words("device_nouns"),
        situation_pronouns=words("situation_pronouns"),
        comparison_words=words("comparison_words"),
        quantity_words=words("quantity_words"),
        reason_words=words("reason_words"),
        else_words=words("else_words"),
        onset_verbs=words("onset_verbs"),
        choice_verbs=words("choice_verbs"),
        be_contractions=tuple(data.get("be_contractions", ())),
        description_stops=words("description_subject_stops"),
        taste_leads=words("taste_leads"),
        manner_nouns=words("manner_nouns"),
        receiving=words("receiving_verbs"),
        emotion_verbs=words("emotion_verbs"),
        need_negations=seqs("need_negations"),
        information_nouns=words("information_nouns"),
        response_verbs=seqs("response_verbs"),
        examination_verbs=words("examination_verbs"),
        finding_verbs=words("finding_verbs"),
        requirement_words=words("requirement_words"),
        idle_phrases=seqs("idle_phrases"),
        binomials=seqs("binomials"),
        bare_negations=words("bare_negations"),
        telling_verbs=words("telling_verbs"),
        ceased=words("ceased_words"),
        other_words=words("other_words"),
        complaint_verbs=words("complaint_verbs"),
        constraint_nouns=words("constraint_nouns"),
        replacement_cues=frozenset(seqs("replacement_cues")),
        state_gerunds=words("state_gerunds"),
        cause_nouns=words("cause_nouns"),
        third_person_copulas=words("third_person_copulas"),
        premise_adverbs=words("premise_adverbs"),
        cost_verbs=words("cost_verbs"),
        cheaper=words("cheaper_words"),
        place_prepositions=words("place_prepositions"),
        light_verbs=words("light_verbs"),
        damage_verbs=words("damage_verbs"),
        continuing_negations=words("continuing_negations"),
        place_anaphors=words("place_anaphors"),
        class_anaphors=words("class_anaphors"),
        maker_nouns=words("maker_nouns"),
        travel_verbs=words("travel_verbs"),
        act_verbs=words("act_verbs"),
        act_leads=seqs("act_leads"),
        operation_words=words("operation_words"),
        complement_heads=words("complement_heads"),
        name_ends=words("name_ends"),
        function_verbs=words("function_verbs"),
        someone_words=words("someone_words"),
        prescribing=seqs("prescribing_phrases"),
        named_trailing=frozenset(seqs("named_trailing")),
        slang_trailing=frozenset(seqs("slang_trailing")),
        slang_openers=words("slang_openers"),
        title_links=words("title_links"),
        name_joints=words("name_joints"),
        question_modals=words("question_modals"),
        change_words=words("change_words"),
        permission_verbs=words("permission_verbs"),
        rejections=seqs("rejections"),
    )


def _bare(word: str) -> str:
    """A word of a leaf as the cue lists spell it: lower case, no trailing comma, a straight apostrophe."""
    return _plain(word.lower().strip(",;:"))


def _words(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(_plain(text).lower()) if t[0].isalnum() or t[0] == "_"]


def _match(tokens: list[str], i: int, seqs) -> int:
    """Length of the longest cue in ``seqs`` starting at token ``i`` (0 if none)."""
    for seq in seqs:
        if tuple(tokens[i : i + len(seq)]) == seq:
            return len(seq)
    return 0


def _title_case(written: list[str]) -> bool:
    """True when most words of a question are capitalised ("Best Budget Laptops Not Made By Apple"): capitals name
    nothing there."""
    alpha = [w for w in written if w[:1].isalpha()]
    return sum(w[:1].isupper() for w in alpha) * 2 > len(alpha)


def _sentence_end(tokens: list[str], i: int) -> int:
    """The position of the first sentence end at or after ``i`` (the end of the tokens when there is none)."""
    return next((j for j in range(i, len(tokens)) if tokens[j] in _SENTENCE_END), len(tokens))


def _adverb(word: str, cues: _Cues) -> bool:
    """An -ly adverb ("really", "officially"); not a compound adjective ("online-only banks", "kid-friendly")."""
    return len(word) > 4 and word.endswith(cues.adverb_suffix) and "-" not in word


def _gerund(word: str, cues: _Cues) -> bool:
    return len(word) > 4 and word.endswith("ing") and word not in cues.topic_gerunds


def _rule(tokens: list[str], start: int, end: int, cues: _Cues) -> bool:
    """True when a permission verb (``permission_verbs``) lies in ``tokens[start:end]``: someone's rule ("Our HOA won't
    allow Generac units anymore"), an exclusion however it began, unlike a refusal or failure that began or stopped
    ("My PlayStation 5 won't read discs anymore", "my 8yo doesnt want to go to school anymore")."""
    return any(t in cues.permission_verbs for t in tokens[start:end])


# Single quotes are straight by now (:func:`_plain`); double ones straight or curly.
_QUOTE = re.compile(r"(?<![\w'])'(?=\S)(?:[^']|'(?=\w))*?(?<=\S)'(?!\w)|\"[^\"]+\"|\u201c[^\u201d]+\u201d")


@lru_cache(maxsize=1)
def _speech_before() -> re.Pattern:
    """A reporting phrase (``speech_leads``: "in his words", "said") ending right before a quotation."""
    leads = sorted(_guard_data().get("speech_leads", []), key=len, reverse=True)
    return re.compile(r"\b(?:%s)[,:]?\s*$" % ("|".join(map(re.escape, leads)) or "(?!)"), re.IGNORECASE)


def _quoted_tokens(text: str) -> set[int]:
    """Positions (in the guard's tokens of ``text``) of the words inside quotation marks: a quoted error message or
    title ("I get 'fatal: not a git repository'") is what the asker talks about, so its negations exclude nothing.
    An apostrophe inside a word ("don't") opens no quotation."""
    # someone's words reported ("he said, 'me and Scratch are no longer on speaking terms'") are read as the asker's:
    # a quotation after a reporting phrase that is no title (a lower-case word in it)
    spans = [m.span() for m in _QUOTE.finditer(text)
             if not (_speech_before().search(text[max(0, m.start() - 30) : m.start()])
                     and re.search(r"\s[a-z]", m[0]))]
    if not spans:
        return set()
    return {k for k, m in enumerate(_TOKEN.finditer(text)) if any(a < m.start() < b for a, b in spans)}


def _plural(word: str) -> bool:
    """A plural noun by its ending: "nuts", "onions" (not "glass", "hummus", "analysis")."""
    return len(word) > 3 and word.isalpha() and word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _clause_boundary(token: str, cues: _Cues) -> bool:
    """True for a token that ends a clause: punctuation or a clause word ("but", "though", "so")."""
    return not token[0].isalnum() or token in cues.clause_words


def _clause_start(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> int:
    """Where the clause of token ``i`` starts: after the last :func:`_clause_boundary` before it in its sentence."""
    start = i
    while start > sentence_start and not _clause_boundary(tokens[start - 1], cues):
        start -= 1
    return start


def _names_a_thing(written: list[str], start: int, end: int) -> bool:
    """True when a word of ``written[start:end]`` is capitalised: a name is a thing to leave out, whatever the
    shape around it says ("trees that can't be found in Canada", "I'm not using LegalZoom")."""
    return any(w[:1].isupper() for w in written[start:end])


def _linked_name(words: list[str], cues: _Cues) -> bool:
    """True when ``words`` (as written) read as one name with its lower-case links: the first and last capitalised,
    each other word capitalised or one of ``name_links`` / ``title_links`` ("Wheel of Time", "I Have a Dream")."""
    return bool(words) and words[0][:1].isupper() and words[-1][:1].isupper() \
        and all(w[:1].isupper() or w in cues.name_links or w in cues.title_links for w in words)


def _inside(token: str, cues: _Cues) -> bool:
    return token[0].isalnum() and token not in cues.boundary
