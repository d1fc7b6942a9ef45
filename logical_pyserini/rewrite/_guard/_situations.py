"""When a negation tells the asker's situation, someone else's doing or a state, not a thing to leave out."""

from __future__ import annotations


from ._text import (_COMMA_LIKE, _Cues, _SENTENCE_END, _adverb, _clause_start, _gerund, _inside, _match,
                    _names_a_thing, _plural, _quoted_tokens, _rule, _sentence_end)

_ANY = ("anything", "anyone", "anybody", "anywhere")  # "anything that isn't X"


def _details_nothing(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when "no" at ``i`` details a negated "anything" (or a "nothing") earlier in its sentence, after
    punctuation: "I haven't gotten anything back - no itemized list, no explanation", "Nothing happens when I press
    the power button - no fans, no lights" report what did not happen, as "the ISP says there's no outage" reports
    what someone found; they exclude nothing."""
    if (i >= 2 and tokens[i - 1] == "there's" and tokens[i - 2] in cues.reporting) or (
            i >= 3 and tokens[i - 2] == "there" and tokens[i - 1] in ("is", "are") and tokens[i - 3] in cues.reporting):
        return True  # "the ISP says there's no outage": what someone found, not what to leave out
    k = i + 1
    while k < len(tokens) and tokens[k][:1].isalnum() and k < i + 4:
        k += 1
    if i > sentence_start and tokens[i - 1] == "," and tokens[k : k + 1] == [","] \
            and tokens[k + 1 : k + 2] in (["nobody"], ["no-one"], ["nothing"], ["none"]):
        return True  # "I got a DUI, no accident, nobody hurt": what did not happen, one fact after another
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
    enquired so pls omit"), a comma, or alone ("... last year. Never again."): its object is what came before, as an
    anaphor's would be.  A cue that ends a question after its own subject ("Which Marvel films can I skip?") names no
    object."""
    end = i + n
    if end < len(tokens) and tokens[end] not in _SENTENCE_END:
        return False
    j = i
    while j > sentence_start and tokens[j - 1] in cues.openers and tokens[j - 1] not in cues.consequence:
        j -= 1
    # "We tried a Jeep Cherokee last year. Never again.", "..., plus the price going up twice, never again.": a
    # sentence or closing clause of the cue alone refuses what came before
    return j == sentence_start or tokens[j - 1] in _COMMA_LIKE or tokens[j - 1] in cues.consequence


def _premise(tokens: list[str], scope: tuple[int, int, int, int], scopes: list, cues: _Cues) -> bool:
    """True when ``scope`` ("We already bought top-bar hives") is the premise of a later exclusion of its sentence
    that names another thing ("…, so please no Langstroth hives stuff"): what the asker has is the reason, not what
    to leave out.  Followed by an anaphoric one ("I already tried bokashi, so not those") or by one that names the same
    thing again ("I already tried the Aebersold books, so skip Aebersold") it is the exclusion."""
    cs, _, start, end = scope
    if tokens[cs] not in cues.premise or start < cs:
        return False
    had = {t for t in tokens[start:end] if t not in cues.loose}
    return any(s >= c and _after_premise(tokens, end, c, cues) and not _knows(tokens, c, cues)
               and not {t for t in tokens[s:e] if t not in cues.loose} <= had for c, _, s, e in scopes)


def _after_premise(tokens: list[str], premise_end: int, c: int, cues: _Cues) -> bool:
    """True when the cue at ``c`` comes after a premise ending at ``premise_end``, in its sentence and after a
    consequence word ("We already bought top-bar hives, so ..."): what :func:`_premise` and :func:`_restates` read."""
    return premise_end <= c < _sentence_end(tokens, premise_end) and bool(cues.consequence & set(tokens[premise_end:c]))


def _knows(tokens: list[str], c: int, cues: _Cues) -> bool:
    """True when the cue at ``c`` states what the asker knows ("I know", "I already know")."""
    return bool(_match(tokens, c, cues.knowledge))


def _restates(tokens: list[str], scope: tuple[int, int, int, int], scopes: list, cues: _Cues) -> bool:
    """True when ``scope`` is a knowledge cue that concludes an experience of its sentence: "I already read
    Understanding Exposure twice, so I know the basic triangle theory" leaves out the book, not the theory it taught."""
    c = scope[0]
    return _knows(tokens, c, cues) and any(tokens[pc] in cues.premise and _after_premise(tokens, pe, c, cues)
                                           for pc, _, _, pe in scopes)


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
    if n > 2 and tokens[i] in cues.copulas and tokens[i + 1] in ("that", "it", "this") \
            and (i == 0 or not tokens[i - 1][:1].isalnum() or tokens[i - 1] in ("or", "and")):
        return 0  # "should I see an adviser or is that a waste of money": the verdict is asked, not given
    closes_split = any(_match(tokens, i, cues.split.get(tokens[j], ()))
                       for j in range(max(0, i - cues.max_scope_words - 1), i))
    if n == 1 and i > 0 and (tokens[i - 1] in cues.particle_verbs or closes_split):
        return 0  # "setting aside money", "leaving (Lehman Brothers) aside": a verb's particle ("golf aside" excludes)
    if n == 1 and tokens[i] in ("excluded", "excepted") and i + 1 < len(tokens) and tokens[i + 1].isalpha() \
            and tokens[i + 1] not in cues.prepositions and tokens[i + 1] not in cues.boundary \
            and tokens[i + 1] not in ("or", "entirely", "completely", "altogether", "too", "pls", "thanks") \
            and not _adverb(tokens[i + 1], cues):
        return 0  # "the law of excluded middle": a participle before its noun
    if n and i + n < len(tokens) and tokens[i + n] in cues.trailing_not_before:  # "banned from most beaches"
        return n if i + n + 1 < len(tokens) and tokens[i + n + 1] in cues.personal else 0  # "a hard no from me"
    if n and i + n + 1 < len(tokens) and tokens[i + n] in cues.state_prepositions and tokens[i + n + 1][0].isdigit():
        return 0  # "visitors are not allowed after 8pm": a rule of a place ("forbidden after last time" excludes)
    return n


def _progressive_state(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the negation at ``i`` says how something behaves or compares, whatever follows it: a negated
    progressive of anyone but the asker ("my PAN card name is not matching with Aadhaar", "it's not getting
    better"; "I'm not paying Nike prices" is a choice), "not being" ("not being able to get back to sleep"), a
    comparison ("shows like Succession but not as depressing"; "not so much art" still excludes) or a cause the
    asker rules out while diagnosing ("it's not the wifi, because ..."; "it's not Life of Pi" names a title)."""
    if tokens[i + n - 1] != "not" and not (n == 1 and tokens[i] in cues.copulas and tokens[i].endswith("n't")):
        return False
    k = i + n
    if k >= end:
        return False
    # a spoken "like" between the copula and "not" changes nothing: "they're like not gamers at all"
    s = i - 1 - int(tokens[i] == "not" and i > 1 and tokens[i - 1] == "like"
                    and (tokens[i - 2] in cues.copulas or tokens[i - 2] in cues.third_person_copulas))
    subject = tokens[s] if tokens[i] == "not" and s >= 0 else tokens[i]
    before = tokens[s - 1] if tokens[i] == "not" and s > 0 else (tokens[i - 1] if i > 0 else "")
    if _gerund(tokens[k], cues) and tokens[k] not in cues.preference_verbs and tokens[k] not in cues.content_verbs \
            and ((subject in cues.copulas and before not in cues.personal and before not in cues.relative)
                 or subject in cues.situation_pronouns):
        return True
    if subject in cues.copulas and tokens[k] in cues.determiners and k + 1 < end and tokens[k + 1] in cues.cause_nouns:
        return True  # "dark skies aren't the issue": a cause ruled out
    if tokens[i + n - 1] != "not":
        return False
    if tokens[k] in cues.state_gerunds or (tokens[k] in cues.comparison_words and k + 1 < end
                                           and tokens[k + 1] not in cues.quantity_words):
        return True
    if subject in cues.third_person_copulas and written[k][:1].islower() and tokens[k] not in cues.determiners \
            and tokens[k] not in cues.prepositions and tokens[k] not in cues.preference_nouns:
        return True  # "He's not fussy about clothes": how someone is ("he's not into football" is a taste)
    return subject in cues.situation_pronouns and tokens[k] == "the" and k + 1 < end \
        and (any(t in cues.reason_words for t in tokens[end : end + 2])
             or (i > 1 and tokens[i - 2] in cues.consequence))  # "..., so it's not the supply"


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
    if _progressive_state(tokens, written, i, n, end, cues):
        return True
    if _names_a_thing(written, i + n, end):
        return False  # a name is a thing: "trees that can't be found in Canada", "... doesn't bring Louis Armstrong in"
    def how(t: str) -> bool:  # a particle or an -ly adverb: how the verb goes, no thing
        return t in cues.particles or _adverb(t, cues)

    # "has not returned my calls", "it has never once kept a schedule": a perfect, someone else's event
    perfect = n == 1 and tokens[i] in ("not", "never") and i > 1 and tokens[i - 1] in cues.perfect_auxiliaries \
        and tokens[i - 2] not in cues.personal
    # "the carburetors will not synchronize properly": "not" after a modal negates the verb as an auxiliary does
    modal = n == 1 and tokens[i] == "not" and i > 0 and tokens[i - 1] in ("will", "would", "should", "could", "might")
    auxiliary = _match(tokens, i, cues.auxiliaries) == n or perfect or modal
    if auxiliary and i + n < len(tokens) and tokens[i + n] == "be":
        return True  # "it won't be alone much": a copula after an auxiliary states how something is
    named = [t for t in tokens[i + n : end] if t not in cues.loose]
    k = i + n + int(tokens[i] == "not" and tokens[i + n : i + n + 1] == ["be"])  # "and not be too mean"
    while k < end and (how(tokens[k]) or ((tokens[i] == "not" or tokens[i] in cues.copulas)
                                          and tokens[k] in cues.intensifiers)) \
            and tokens[k] not in cues.particles:
        k += 1  # "not super technical", "aren't crazy crowded": an intensified adjective, how someone is
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
    # (a relative clause that is the subject, "things that kill at lunch aren't funny when I read them back", has
    # its own verb between the relative word and the negation)
    clause = _clause_start(tokens, 0, i, cues)
    in_relative = bool(cues.relative & set(tokens[clause:i])) and not (
        tokens[i] in cues.copulas and any(tokens[k] in cues.relative and k + 2 < i for k in range(clause, i)))
    negated_copula = (tokens[i] == "not" and i > 0 and tokens[i - 1] in cues.copulas) \
        or (tokens[i] in cues.copulas and tokens[i].endswith("n't"))  # "the house isn't quiet when I need it to be"
    if n == 1 and not in_relative and negated_copula:
        v = i + 1
        while v < end and (_adverb(tokens[v], cues) or tokens[v] in cues.intensifiers):
            v += 1
        if v < end and tokens[v] == "from":
            return True  # "my certificate is not from the approved list": where something comes from, a fact
        if (v == end - 1 or (v == end - 2 and tokens[v + 1] in cues.condition)) \
                and tokens[v] not in cues.loose and tokens[v] not in cues.prepositions:
            return True  # "reviewers said the writing is not logical": one word after a copula says how it is
    if negated_copula and n == 1 and end - (i + 1) == 2 and len(tokens[i + 1]) > 4 and tokens[i + 1].endswith("ed") \
            and tokens[i + 2] in cues.particles:
        return True  # "async support that isn't bolted on": a participle and its particle, how something is made
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
        if after < len(tokens) and (tokens[after] in cues.state_prepositions or tokens[after] in cues.possessives
                                    or tokens[after] in cues.place_prepositions):  # "won't grow under the oak"
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
        if tokens[k] in cues.demonstratives:  # "don't want to mess this up": a particle may close it
            return k + 1 == len(tokens) or not _inside(tokens[k + 1], cues) or (
                tokens[k + 1] in cues.particles and (k + 2 == len(tokens) or not _inside(tokens[k + 2], cues)))
        if tokens[k] in cues.indirect and tokens[k - 1] in cues.giving and k + 1 < min(end, len(tokens)) \
                and _inside(tokens[k + 1], cues) and tokens[k + 1] not in cues.loose:
            return False  # "please not to recommend me gestorias": the thing follows the asker
        if tokens[k] in cues.objects and k + 1 < len(tokens) and tokens[k - 1] in cues.determiners \
                and tokens[k + 1] in cues.prepositions:
            return False  # "not the one from YouVersion": a noun phrase that names its thing
        if tokens[k] in ("one", "ones") and cues.determiners & set(tokens[max(start, k - 3) : k]):
            return False  # "not the NYT one": a name before "one", the whole a noun phrase
        return tokens[k] in cues.objects

    return any(pronoun(k) and written[k].islower() and tokens[k - 1][0].isalnum()
               and tokens[k - 1] not in cues.prepositions for k in range(start + 1, min(end + 1, len(tokens))))


def _counts_none(tokens: list[str], i: int, n: int, cues: _Cues) -> bool:
    """True when "not" at ``i`` counts a thing that did not happen: "not one egg in three weeks", "not a single
    reply since Monday" report a count of zero ("not one narrated by the author" still excludes); so does "I can't do
    a single pull-up." (what the asker cannot yet do)."""
    if n == 1 and tokens[i] == "not":
        j = i + 1 + (tokens[i + 1 : i + 3] == ["a", "single"])
    elif n == 1 and tokens[i] in cues.ability_negations and tokens[i + 1 : i + 4] == ["do", "a", "single"]:
        j = i + 3
    else:
        return False
    if j >= len(tokens) - 2 or tokens[j] not in ("one", "single"):
        return False
    noun, after = tokens[j + 1], tokens[j + 2]
    return noun.replace("-", "").isalpha() and not noun.endswith("ed") and noun not in cues.loose \
        and (after in cues.prepositions or after in cues.state_prepositions or not after[0].isalnum())


def _rule_asked_about(tokens: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the cue ``tokens[i:i + n]`` tells someone's rule ("The building doesn't allow bikes inside") and a
    later question of the request names what the rule is about ("where can I park my bike safely?"): the asker
    wants to cope with the rule, so articles about the thing answer ("Our landlord won't allow nails. How can I
    hang a mirror?" still excludes the nails)."""
    if _match(tokens, i, cues.auxiliaries) != n or i + n >= end or tokens[i + n] not in cues.refusals:
        return False
    def stem(t: str) -> str:
        return t[:-1] if len(t) > 3 and t.endswith("s") else t
    named = {stem(t) for t in tokens[i + n + 1 : end] if t[0].isalnum() and t not in cues.loose}
    k = _sentence_end(tokens, i)
    while k < len(tokens):
        e = _sentence_end(tokens, k + 1)
        asked = {stem(t) for t in tokens[k + 1 : e]}
        # "... So how do other people cope with this?": the rule itself is what the asker wants help with
        if e < len(tokens) and tokens[e] == "?" and (named & asked or cues.coping_verbs & asked):
            return True
        k = e
    return False


def _wished_state(tokens: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the wish negation ``tokens[i:i + n]`` ("don't want") is followed by a short noun phrase or none, "to"
    and one of ``linking_verbs`` or "be": "I don't want mealtimes to be a battle", "don't want him to feel left out",
    "they don't want to feel lost" say how things should not turn out, and name nothing to leave out; so does "to"
    and one of ``ceasing_verbs`` ("I don't want to stop the antibiotic early" keeps taking it)."""
    if i + n + 1 < len(tokens) and tokens[i + n] == "to":
        verb = tokens[i + n + 1]
        if verb == "give":  # "I don't want to give up on it" (not "to give my dog bones")
            return i + n + 2 < len(tokens) and tokens[i + n + 2] == "up"
        if verb == "be" and i + n + 2 < len(tokens) and tokens[i + n + 2] in cues.place_prepositions:
            return False  # "She doesn't want to be near Disney crowds": where, so a thing
        return verb == "be" or verb in cues.linking_verbs or verb in cues.ceasing_verbs
    for k in range(i + n + 1, min(end, i + n + 4)):
        if tokens[k] == "to":
            return k + 1 < len(tokens) and (tokens[k + 1] == "be" or tokens[k + 1] in cues.linking_verbs)
        if not tokens[k][0].isalnum():
            return False
    return False


def _negated_relative(tokens: list[str], k: int, cues: _Cues) -> bool:
    """True when ``tokens[k]`` is "anything" / "nothing" / ... before a negated relative clause ("anything that
    isn't")."""
    return k + 2 < len(tokens) and tokens[k] in _ANY + ("nothing",) and tokens[k + 1] in cues.relative \
        and (tokens[k + 2] in cues.negative or tokens[k + 2].endswith("n't"))


def _double_negation(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the cue at ``i`` negates a relative clause of "nothing", or of "anything" after a negation of its
    own clause: "he never reads anything that isn't on a screen", "nothing that isn't vegan" ask for the thing
    only ("anything that isn't Marvel" still excludes)."""
    if i < 2 or not _negated_relative(tokens, i - 2, cues):
        return False
    clause = _clause_start(tokens, sentence_start, i - 2, cues)
    return tokens[i - 2] == "nothing" or any(t in cues.negative or t.endswith("n't") or t in cues.bare_negations
                                             for t in tokens[clause : i - 2])  # "toddler wont eat anything that ..."


def _silenced(tokens: list[str], written: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when a weak cue (or a negative word) at ``i`` excludes nothing: its sentence asks about a fact ("Why do
    cats not like water?") and its clause states no wish ("..., I want to avoid ibuprofen" does), it is capitalised
    but not shouted inside the sentence (a title: "the novel Never Let Me Go"; "NOT crochet" is a cue), it reads "not
    only", it follows a verb of getting by ("survive without light") or "when" / "if" in its clause ("when the
    landlord gives no notice"), or a property relative ("who does not sleep"), or it describes the asker's situation
    (:func:`_states_situation`) or how to do what is asked (:func:`_states_manner`)."""
    start = _clause_start(tokens, sentence_start, i, cues)
    return bool(_asks_fact(tokens, sentence_start, i, cues)
                or _situation_asked(tokens, sentence_start, i, cues)
                or (_asks_property(tokens, sentence_start, i, cues)  # not "Which countries ... without Denmark"
                    and not (i + 1 < len(written) and written[i + 1][:1].isupper()))
                or (i > sentence_start and written[i][:1].isupper() and not written[i].isupper())
                or _opens_title(written, sentence_start, i, cues)
                or (tokens[i] == "not" and i + 1 < len(tokens) and tokens[i + 1] in cues.additive)
                or (i + 1 < len(tokens) and tokens[i + 1] in cues.state_adjectives  # "not safe to take", "isn't legal"
                    and (tokens[i] == "not" or tokens[i] in cues.copulas)
                    and not (written[i + 1][:1].isupper() and not written[i + 1].isupper()))  # "ARENT Perfect by ..."
                # "It's not that I don't like classical music": the negations cancel
                or any(tokens[j : j + 2] == ["not", "that"] for j in range(start, i - 1))
                or _double_negation(tokens, sentence_start, i, cues)
                or _counts_none(tokens, i, 1, cues)  # "not one egg in three weeks"
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
    year", "in 2 weeks"), or a time word after "last", "this", "every", "most" or "each" ("Ryanair last summer",
    "painkillers every day"): when, not part of the excluded thing, so it ends a scope."""
    if tokens[k] in ("last", "this", "every", "most", "each") and k + 1 < len(tokens) \
            and tokens[k + 1] in cues.time_words:
        return True  # "Ryanair last summer", "painkillers every day", "makeup most days"
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
    for, and the articles that answer name it ("visa-free"); or a negated verb with an object ("the school won't
    give meds without a plan"): the thing is required.  Not after a request to the helper ("Can you recommend
    laptops without a touchscreen?", "could anyone suggest ...")."""
    if tokens[i] not in cues.manner:
        return False
    start = _clause_start(tokens, sentence_start, i, cues)
    # "they won't administer an epipen without a written action plan": a negated verb and "without" make the thing
    # a requirement, not an exclusion
    # "Can you fly a drone without a licence?" asks what one may do ("Can you recommend ..." asks the helper)
    return any((tokens[k] in cues.ability_modals and not (k + 1 < i and tokens[k + 1] in cues.addressees and (
                    k + 2 >= i or tokens[k + 2] in cues.helper_verbs or tokens[k + 2] in cues.loose)))
               or (_match(tokens, k, cues.auxiliaries) and k + 2 < i and tokens[k + 1] not in cues.loose)
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
                   or t in cues.agent_nouns or _adverb(t, cues) for t in subject):
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
            or (cues.anaphors - cues.person_anaphors) & set(tokens[end + 1 : _sentence_end(tokens, end + 1)]) \
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
        if tokens[k] in cues.tried_verbs and (k == sentence_start or tokens[k - 1] in _COMMA_LIKE
                                              or tokens[_asker_before(tokens, sentence_start, k, cues)] in cues.personal
                                              # "my brother ... he tried X for six weeks and it did nothing for him"
                                              or tokens[_asker_before(tokens, sentence_start, k, cues)]
                                              in cues.third_persons):
            e = _object_end(tokens, k + 1, j - 1, cues)
            named = [t for t in tokens[k + 1 : e] if t not in cues.loose]
            if k + 1 < e and tokens[k + 1] in cues.possessives and tokens[k + 1] not in cues.personal:
                return None  # "Kaplan's out, bought their book and it was useless": a thing of one named before
            if named and e - k - 1 <= cues.max_scope_words and _asks_else(tokens, k, i, cues, remedy=False):
                return k + 1, e
            return None
    return None


def _asker_before(tokens: list[str], sentence_start: int, k: int, cues: _Cues) -> int:
    """Where the subject of the verb at ``k`` stands, past ``premise_adverbs`` and -ly adverbs ("I've *also* tried
    melatonin")."""
    b = k - 1
    while b > sentence_start and (tokens[b] in cues.premise_adverbs or _adverb(tokens[b], cues)):
        b -= 1
    return b


def _object_end(tokens: list[str], start: int, limit: int, cues: _Cues) -> int:
    """The end of a tried thing that opens at ``start`` (before ``limit``): its words up to a preposition, a time word
    or a clause break ("tried melatonin *from* the chemist", "tried retinol *last* year")."""
    e = start
    while e < limit and _inside(tokens[e], cues) and tokens[e] not in cues.prepositions \
            and tokens[e] not in cues.time_words and tokens[e] not in cues.time_determiners:
        e += 1
    return e


def _there_is(tokens: list[str], v: int) -> bool:
    """True when "there's" is at ``v``, or "there is" / "there was" / ... ends at ``v``."""
    return tokens[v] == "there's" or (v > 0 and tokens[v - 1] == "there" and tokens[v] in ("is", "are", "was", "were"))


def _reports_absence(tokens: list[str], written: list[str], k: int, cues: _Cues) -> bool:
    """True when "no" at ``k`` reports an absence, a state or a property of what is asked for, not a thing to leave
    out: after "there is" ("there's no clog I can see", "there is simply no room"), after "with" ("a room with no
    windows", "a society with no central government"), or before one of ``symptom_nouns`` within two words ("no
    signal on my TV", "makes no sound", "no new growth since spring").  Articles that fit such a need name the
    missing thing, so a NOT of it would sink them.  A name after "with" is still a thing ("apartments with no HOA"),
    not after "there is" ("there's no IB and no AP either": what the asker's school lacks), nor in a machine's
    message ("printer says no paper")."""
    if tokens[k] != "no" or k + 1 >= len(tokens):
        return False
    run = [k]  # the "no"s of a list this one belongs to: "No fever, no vision problems, no nausea"
    w = k - 1
    while w > 2 and tokens[w] in ("and", ","):  # back over "no X and": "with no shed and no water butt", "no X, no Y"
        before = next((v for v in range(w - 1, max(-1, w - 5), -1) if tokens[v] == "no"), None)
        if before is None:
            break
        run.append(before)
        w = before - 1
    after = k + 1
    while after < len(tokens):  # on to the later items of the list
        nxt = next((v for v in range(after, min(len(tokens), after + 5)) if tokens[v] in ("and", ",")), None)
        if nxt is None or nxt + 1 >= len(tokens) or tokens[nxt + 1] != "no" \
                or any(t in _SENTENCE_END for t in tokens[after:nxt]):
            break
        run.append(nxt + 1)
        after = nxt + 2
    if w > 1 and tokens[w] in ("but", "and"):  # "saying there was 'damage to the carpet' but no itemized list"
        for v in range(w - 1, max(0, w - 12), -1):
            if tokens[v] in _SENTENCE_END or tokens[v] in _COMMA_LIKE:
                break
            if _there_is(tokens, v):
                return True
    j = w
    if j > 0 and (tokens[j] in cues.intensifiers or _adverb(tokens[j], cues)):
        j -= 1
    if j >= 0 and _there_is(tokens, j):
        return True
    if j >= 1 and tokens[j] in cues.message_verbs and (cues.devices | cues.documents) & set(tokens[max(0, j - 3) : j]):
        return True  # "printer says no paper", "the invite says no children": a machine's or a document's message
        # ("my doctor says no X" is not)
    shouted = written[k].isupper() and written[k + 1].isupper()  # "NO HOT WATER in the whole house"
    if not (written[k + 1][:1].islower() or shouted):
        return False
    if w >= 0 and tokens[w] == "with":
        return True
    # the symptom noun heads its phrase: "no video" is reported, "no video courses" are left out
    def ends_phrase(q: int) -> bool:
        return q == len(tokens) or not tokens[q][0].isalnum() or _gerund(tokens[q], cues) or tokens[q] in (
            cues.prepositions | cues.clause_words | cues.symptom_followers | cues.time_words | {"and", "or"})

    # "no appetite at night" is reported, "no appetite for horror" is a taste (``preference_nouns``)
    def symptom(no: int) -> bool:
        return any(tokens[p] in cues.symptom_nouns and ends_phrase(p + 1)
                   and not (tokens[p] in cues.preference_nouns and p + 1 < len(tokens)
                            and tokens[p + 1] in ("for", "in"))
                   for p in range(no + 1, min(no + 3, len(tokens))))

    # one symptom makes the whole list a report: "No fever, no vision problems, no nausea"
    return any(symptom(no) for no in run
               if no + 1 < len(written) and (written[no + 1][:1].islower() or shouted))


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
    why = max((j for j in range(clause, i) if tokens[j] == "why"), default=None)
    if why is not None and not cues.wish & set(tokens[why:i]):
        return True  # "I want to teach a lesson on why Antarctica belongs to no country": the fact to explain
    if cues.wish & set(tokens[clause:i]):
        return False
    if cues.fact_clause & set(tokens[clause:i]):  # "What are the common reasons hypertension doesn't respond ..."
        return True
    end = _sentence_end(tokens, i)
    if end < len(tokens) and tokens[end] == "?" and any(_match(tokens, j, cues.fact_frames)
                                                        for j in range(sentence_start, i)):
        return True  # "Hello, in Germany is it allowed that my employer does not pay overtime?"
    opening = next((j + 1 for j in range(i - 1, sentence_start - 1, -1) if tokens[j] == ":"), sentence_start)
    # A clause of a question may ask on its own: "..., and is it true that no dog is hypoallergenic?"
    openings = {sentence_start, opening} | ({clause} if end < len(tokens) and tokens[end] == "?" else set())
    for o in openings:
        o = _past_openers(tokens, o, i, cues)  # "Or is it ...", "and is it true that ..."
        if _match(tokens, o, cues.fact_starts) and not _match(tokens, o, cues.request_starts) \
                and not (tokens[o + 1 : o + 2] == ["there"] and tokens[i - 1] in cues.relative):
            return True  # ("Is there tax software that isn't TurboTax ...?" asks for one)
    last = max((j + 1 for j in range(i, end) if tokens[j] in _COMMA_LIKE), default=None)
    return last is not None and _match(tokens, last, cues.fact_tails) > 0 and end < len(tokens) \
        and tokens[end] == "?" and all(not t[0].isalnum() or t in cues.loose for t in
                                       tokens[last + _match(tokens, last, cues.fact_tails) : end])


def _situation_asked(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when a later question of the request asks about the situation by an anaphor (``situation_questions``:
    "He will not touch a vegetable. Not peas, not carrots. ... Is this normal at this age?", "Boss says I can't take
    annual leave until my probation is over - is that even legal?") and the cue's clause states no wish: the
    negation is what the asker wants explained, and articles that explain it name what it negates."""
    if cues.wish & set(tokens[_clause_start(tokens, sentence_start, i, cues) : i]):
        return False
    for j in range(i + 1, len(tokens)):
        if tokens[j - 1] in _SENTENCE_END or tokens[j - 1] in _COMMA_LIKE:
            o = _past_openers(tokens, j, len(tokens), cues)
            end = _sentence_end(tokens, o)
            if _match(tokens, o, cues.situation_questions) and (end == len(tokens) or tokens[end] == "?"):
                return True  # "..., should I worry" typed without its question mark too
    return False


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
    if i + 1 < len(tokens) and tokens[i + 1] in cues.failure_gerunds:
        return True  # "handles 4K timelines without stuttering", "a sealant that holds without cracking"
    if i > 0 and _gerund(tokens[i - 1], cues) and tokens[i - 1] not in cues.loose \
            and not (i + 1 < len(written) and written[i + 1][:1].isupper()):  # "build caching without Nx or Lerna"
        return True
    if i + 2 < len(tokens) and tokens[i + 1] in ("ever", "even", "once", "really", "actually") \
            and _gerund(tokens[i + 2], cues) \
            and not {tokens[i + 2][:-3], tokens[i + 2][:-3] + "e"} & cues.content_verbs:
        return True  # "moves between a dozen lives without ever losing the thread": how it is done
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


def _conditional(tokens: list[str], start: int, i: int, cues: _Cues) -> bool:
    """True when the clause before ``i`` (from ``start``) states a condition ("when the landlord gives no written
    notice"), not a polite formula ("if possible") nor a wish ("If possible I'd prefer material without X")."""
    return any(tokens[j] in cues.condition and tokens[j + 1] != "possible" for j in range(start, i)) \
        and not cues.wish & set(tokens[start:i])


def _own_thing(tokens: list[str], k: int, cues: _Cues) -> bool:
    """True when a strong cue's scope from ``k`` is the asker's own thing, maybe after a verb ("it don't show my
    application", "I don't want to lose my job"): what the asker fears for, not a topic to leave out."""
    for j in (k, k + 1, k + 2):
        if j < len(tokens) and tokens[j] in cues.possessives and tokens[j] in cues.personal:  # "my", "our"
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
    is a third person ("He ... but won't let go of anything"), a plural noun phrase ("many small restaurants don't
    accept cards"), one with a determiner ("The immigration office doesn't answer emails") or a device ("iphone won't
    charge past 80 percent"), maybe after "that" and before adverbs ("... thrilled that half the hallway lights now
    don't work"), and its verb is no taste ("the kids don't like mushrooms", "won't eat anything spicy" still
    exclude); or its verb is one of ``provider_verbs``, whose subject may be the asker's ("His school ... does not
    offer AP or IB classes")."""
    if _match(tokens, i, cues.auxiliaries) != n or i + n >= end or tokens[i + n] in cues.preference_verbs \
            or tokens[i + n] in cues.ability_verbs or tokens[i + n] in cues.refusals:  # "the kids won't eat X"
        return False
    start = _clause_start(tokens, sentence_start, i, cues)
    # The reported clause's subject: "I read that many small restaurants ...", "My wife isn't thrilled that half the
    # hallway lights now don't work", "the shop told me they don't repair models that old"
    for k in range(i - 1, start, -1):
        if tokens[k] in cues.reporting:
            start = k + 1 + int(k + 1 < i and tokens[k + 1] in cues.indirect)
            break
        if tokens[k] == "that" and k < i - 1 and (
                tokens[k - 1] in cues.reporting or tokens[k - 1] in cues.perception or tokens[k + 1] in cues.determiners
                or tokens[k + 1] in cues.quantifiers or tokens[k + 1] == "half"):
            start = k + 1
            break
    while start < i and tokens[start] in ("and", "but", "so"):  # "..., and the park doesn't let strollers in"
        start += 1
    subject = tokens[start:i]
    # "His school follows the Kenyan curriculum and does not offer AP": what a school, a shop or a unit provides
    # is its own doing, even when it is the asker's ("my school doesn't offer A-levels"; not "I don't have X")
    provides = tokens[i + n] in cues.provider_verbs
    if provides and i > sentence_start and tokens[i - 1] in ("but", "and"):
        subject = []  # an elided subject: the sentence's
    if not subject and i > sentence_start and tokens[i - 1] in ("but", "and"):
        # an elided subject is the sentence's first word: "He cruises ... and crawls ... but won't let go"
        return tokens[sentence_start] in cues.third_persons | {"it", "they"} or (
            provides and tokens[sentence_start] in cues.possessives and tokens[sentence_start] != "my")
    if not subject or len(subject) > 5 or cues.relative & set(subject) or (
            cues.personal & set(subject) and not (provides and subject[0] in cues.possessives and len(subject) > 1)):
        return False
    last = i  # the subject's head, past adverbs: "the hallway lights now don't work"
    while last - 1 > start and (_adverb(tokens[last - 1], cues) or tokens[last - 1] in cues.quantifiers
                                or tokens[last - 1] in ("now", "still", "also", "even", "just")):
        last -= 1
    head = written[last - 1]
    if last - 1 == sentence_start and head[:1].isupper() and head[1:].islower():
        head = head.lower()  # capitalised only because it opens the sentence: "Employer doesn't offer a match"
    if not (head.isalpha() and head.islower() and len(head) > 3 and head not in cues.loose):
        return tokens[last - 1] in cues.third_persons | {"they"}
    # "many small restaurants don't accept cards", "The immigration office doesn't answer emails"
    return _plural(head) or subject[0] in cues.determiners or provides or head in cues.devices  # "iphone won't charge"


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
        if tokens[0] == "neither" and "nor" in tokens:  # "neither here nor there meaning"
            unread.add(tokens.index("nor"))
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
    if tokens[i + n - 1] != "no" or not after or (i > 0 and tokens[i - 1] in cues.courtesy):
        return False  # ("so please no Mitogen answers" asks; "answers" is no verb there)
    if after[0] == "one" or any(t in cues.subject_verbs and written[i + n + k].islower()
                                for k, t in enumerate(after) if k):
        return True  # a lower-case verb: "no Adam Sandler or Will Ferrell" names two actors
    for k in range(1, len(after) - 1):
        if after[k] in ("in", "at"):  # past the determiners and possessives to the place
            rest = [t for t in tokens[i + n + k + 1 : i + n + k + 4]
                    if t not in cues.determiners and t not in cues.possessives]
            return bool(rest) and rest[0] in cues.place_nouns
    return False


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
    caps, small, pronoun, end = 0, False, False, len(written)
    for k, w in enumerate(written[i + 1 :], i + 1):
        if w[:1].isupper():
            caps += 1
            pronoun = pronoun or w.lower() in cues.title_pronouns
        elif w in cues.title_words and caps:
            small = True
        else:
            end = k
            break
    # "Not Another Teen Movie — is it worth watching?": a capitalised run closed by a dash, then talked about as "it"
    talked_about = end < len(written) and written[end] in ("—", "–", "-", ":") \
        and "it" in (w.lower() for w in written[end + 1 : end + 5])
    return caps >= 2 and (small or pronoun or talked_about)


def _after_property_relative(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the weak cue at ``i`` sits in a clause opened by "who" / "where" / "in which": "a toddler who does
    not sleep on planes" asks for that toddler; it excludes nothing."""
    for j in range(i - 1, max(sentence_start, i - 6) - 1, -1):
        if any(tuple(tokens[j - len(seq) + 1 : j + 1]) == seq for seq in cues.property_relatives):
            return True
        if not tokens[j][0].isalnum() or tokens[j] in cues.boundary:
            return False
    return False


_BE = frozenset({"is", "are", "was", "were", "am"})  # "be" alone: ``copulas`` also holds "has", "gets"


def _described(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the weak cue at ``i`` negates a copula whose subject is someone or something of the asker's story,
    so its scope says how that subject is: "She isn't aggressive with people", "the income is not regular every
    month", "It's not sharp", "I'm not entitled to holiday pay", "the garage, which isn't heated".  Not a relative
    clause ("apps that aren't Notion", "somewhere that's not Bali": a property asked for), not a taste ("we're not
    into sports", "not a big fan of ..."), and not a scope that names something capitalised ("I'm not using
    LegalZoom")."""
    if n != 1:
        return False
    if tokens[i] == "not" and i > 0 and tokens[i - 1] in _BE:
        subject = i - 2
    elif tokens[i] == "not" and i > 0 and tokens[i - 1].endswith(cues.be_contractions):
        subject = i - 1  # "it's not", "we're not": the contraction holds the subject
    elif tokens[i] in cues.copulas and tokens[i].endswith("n't"):  # "isn't", as in :func:`_negated_state`
        subject = i - 1
    else:
        return False
    if subject < 0 or not tokens[subject][0].isalnum() or tokens[subject] in cues.description_stops:
        return False
    if tokens[subject] in cues.relative:  # ", which isn't heated" describes the thing before the comma
        return tokens[subject] == "which" and subject > 0 and tokens[subject - 1] == ","
    clause = tokens[_clause_start(tokens, 0, subject, cues) : subject]
    if cues.relative & set(clause) or "where" in clause:
        return False
    v = i + 1
    while v < end - 1 and (_adverb(tokens[v], cues) or tokens[v] in cues.intensifiers or tokens[v] in ("a", "an")):
        v += 1  # the last word stays, adverb-like or not ("starter isn't bubbly")
    if v >= end or tokens[v] in cues.taste_leads or tokens[v] in cues.taste_nouns:
        return False
    return not _names_a_thing(written, i + n, end)


def _wished_away_action(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when "don't want" at ``i`` is followed by "to" and a verb that chooses nothing: "I don't want to make a
    mistake", "really don't want to rip back 40 rows", "don't want to spend hours editing": what the asker wants
    to spare themselves, not a thing the answers leave out.  A verb of taste or choice ("don't want to see any
    Marvel films", "to deal with eBay bidding") and a capitalised object still exclude."""
    if _match(tokens, i, cues.wish_negations) != n or i + n + 1 >= end or tokens[i + n] != "to":
        return False
    verb = tokens[i + n + 1]
    if verb in cues.preference_verbs or verb in cues.choice_verbs:
        return False
    return not _names_a_thing(written, i + n + 2, end)


def _listed_state(tokens: list[str], written: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when a bare "not" opening a clause before an -ing verb follows a negation the request already told: one
    more item of a list of what is and is not going on ("laptop doesnt turn on, no lights, not charging", "why
    won't my succulent grow? not overwatering", "can't sleep after night shifts, not drinking coffee").  Alone
    ("weekend ideas for two, not hiking") it still excludes, and so do a verb of content ("not using eggs") and a
    capitalised object."""
    if n != 1 or tokens[i] != "not" or i == 0 or tokens[i - 1] not in _COMMA_LIKE | _SENTENCE_END \
            or i + 1 >= end:
        return False
    verb = tokens[i + 1]
    if not _gerund(verb, cues) or {verb[:-3], verb[:-3] + "e"} & cues.content_verbs \
            or _names_a_thing(written, i + 1, end):
        return False
    return any(t in ("no", "not", "never", "without") or t.endswith("n't") for t in tokens[max(0, i - 25) : i - 1])


def _went_without(tokens: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when "without" at ``i`` is followed by one of ``manner_nouns`` alone: how something went ("She used to
    nap two hours after lunch without any fuss", "tried three fixes without success"), no thing to leave out."""
    named = [t for t in tokens[i + n : end] if t not in ("any", "a", "an", "much", "the")]
    return tokens[i] == "without" and len(named) == 1 and named[0] in cues.manner_nouns


def _receives_nothing(tokens: list[str], i: int, n: int, cues: _Cues) -> bool:
    """True when the negation at ``i`` says what a place or thing does not receive: "the new place doesn't get direct
    sun", "a patio that gets no direct sun", "the phone doesn't get signal upstairs"; not said of the asker ("we
    don't get ...")."""
    if tokens[i] == "no" and n == 1 and i > 0 and tokens[i - 1] in cues.receiving:
        subject = i - 2
    elif _match(tokens, i, cues.auxiliaries) == n and i + n < len(tokens) and tokens[i + n] in cues.receiving:
        subject = i - 1
    else:
        return False
    return subject >= 0 and tokens[subject][0].isalnum() and tokens[subject] not in cues.personal


def _feels_nothing(tokens: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the scope after the negation at ``i`` is a feeling ("Her pediatrician said not to worry yet", "try
    not to panic"), maybe with a time word: no thing to leave out."""
    named = [t for t in tokens[i + n : end] if t != "to" and t not in cues.time_words and t not in ("yet", "too")]
    return bool(named) and all(t in cues.emotion_verbs or t in cues.particles for t in named) \
        and named[0] in cues.emotion_verbs


def _unneeded(tokens: list[str], i: int, n: int, end: int, cues: _Cues) -> bool:
    """True when the negation at ``i`` says what the asker does not need ("I don't need AWD", "It doesn't need 3rd
    row seats", "we don't need fancy hotels"): a requirement relaxed, and an answer that has it still answers.  Not
    when what is not needed is something to read ("don't need goldfish care info", "the stuff about the oath
    ceremony") or points back ("we don't need that one"), or the sentence goes on to what the asker has read or
    knows already: those leave the answers."""
    k = _match(tokens, i, cues.need_negations)
    if not k and i + n < len(tokens) and tokens[i + n] in ("need", "needs") \
            and _match(tokens, i + n - 1, cues.need_negations) == 2:  # a cue ending in the negation: "it doesn't"
        k = n + 1
    if not k or i + k >= end:
        return False
    scope = tokens[i + k : end]
    stop = next((j for j in range(end, len(tokens)) if tokens[j] in _SENTENCE_END), len(tokens))
    # "Don't need the oath ceremony, I've read plenty on that already": what the asker has read is left out
    known = {"already", "read", "know", "covered", "seen"} & set(tokens[end:stop])
    # "I don't need anything on tomatoes": documents on a topic ("anything with a third row" is a requirement)
    topic = len(scope) > 2 and scope[0] in cues.meta_nouns and scope[1] in ("on", "regarding", "concerning", "covering")
    return not (cues.information_nouns & set(scope) or "about" in scope or topic or cues.anaphors & set(scope)
                or known)


def _idle_negation(tokens: list[str], i: int, n: int, end: int, sentence_start: int, cues: _Cues) -> bool:
    """True for negations that tell the asker's situation in one of a few fixed shapes, each naming no thing to leave
    out: someone's silence ("the HR person never replies to emails"); a rule of a document ("my contract doesn't say
    anything about rota changes"); what two things tried did ("a Hatch and a sticker chart, neither worked"); a
    requirement relaxed ("no wheelchair needed"); an amount ("no tests to speak of"); how long ("can't take
    forever"); a time clause ("after not exercising for a decade"); how someone is ("doesn't want to be picked
    up", "doesn't do well in heat"); a refusal told ("don't want to tell him no"); and what "it", the thing asked
    about, does not do ("it doesn't hurt walking or on stairs"; a name, a taste or what it holds still excludes:
    "it can't be Nike", "it shouldn't include nuts")."""
    k = i + n
    scope = [t for t in tokens[k:end] if t not in cues.loose]
    auxiliary = _match(tokens, i, cues.auxiliaries) == n
    if k < end and _match(tokens, k, cues.response_verbs) and tokens[k - 1] in ("never", "not", "doesn't", "didn't",
                                                                                "hasn't", "won't", "don't"):
        return True
    if tokens[k - 1] in ("doesn't", "didn't") and k + 1 < end and tokens[k] in cues.telling_verbs \
            and tokens[k + 1] in ("anything", "about", "much", "many"):
        return True
    if tokens[i] == "neither" and k < len(tokens) and (
            tokens[k].endswith("ed") or tokens[k] in ("made", "did", "was", "were", "had", "got", "helped")):
        return True
    if scope and scope[-1] in cues.requirement_words:
        return True
    # "he doesn't want to be picked up", "doesn't do well in heat": how someone is, no thing
    be = k + 3 if tokens[k : k + 3] in (["want", "to", "be"], ["wants", "to", "be"]) else (
        k + 2 if tokens[k : k + 2] == ["to", "be"] and _match(tokens, i, cues.wish_negations) == n else 0)
    if tokens[k : k + 2] == ["do", "well"] or (be and be < end and tokens[be].endswith(("ed", "en"))):
        return True  # a passive ("I'd prefer not to be directed to Trainline", a preference, and "doesn't want to
        # be near Disney crowds" still exclude)
    # "I don't want to tell him no without trying": a refusal told to someone
    if tokens[i] == "no" and i > sentence_start + 1 and tokens[i - 1] in cues.objects \
            and tokens[i - 2] in cues.telling_verbs:
        return True
    # "He understands everything but doesn't say many words": "but" joins a second clause, excepting nothing
    if tokens[k - 1] == "but" and k < end and tokens[k].endswith("n't"):
        return True
    # "phone won't charge, not the cable, tried 3 different ones": a cause ruled out after a symptom
    if tokens[i] == "not" and n == 1 and k < end and tokens[k] == "the" and end - k <= 3 and i > sentence_start \
            and tokens[i - 1] == "," and (end == len(tokens) or not tokens[end][:1].isalnum()) \
            and _symptom_before(tokens, sentence_start, i - 1):
        return True
    if any(_match(tokens, j, cues.idle_phrases) for j in range(k, end)):
        return True
    # "whatever I pick can't take forever": a verb and how long ("romcoms that aren't christmas ones" excludes)
    if auxiliary and len(scope) > 1 and all(t in cues.time_words for t in scope[1:]):
        return True
    # "my mum doesn't walk super far anymore": what someone can no longer do ("I don't eat meat anymore", a verb of
    # taste or choice, and "Our HOA won't allow Generac units anymore", a rule, still exclude)
    if auxiliary and k < end and tokens[end - 1] == "anymore" and not _rule(tokens, k, k + 1, cues) \
            and tokens[k] not in cues.preference_verbs and tokens[k] not in cues.choice_verbs:
        return True
    if tokens[i] == "not" and i > sentence_start and tokens[i - 1] in ("after", "since", "before", "from") \
            and k < end and _gerund(tokens[k], cues):
        return True
    if i > sentence_start and tokens[i - 1] in cues.situation_pronouns and tokens[i].endswith("n't") \
            and k < end and tokens[k] not in cues.preference_verbs and tokens[k] not in cues.content_verbs \
            and tokens[k] not in cues.copulas and tokens[k] != "be":
        return True
    return False


def _findings(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when "no" at ``i`` follows a verb of finding ("the urine test found no infection") or, after a comma,
    lists what a check found or an attempt gave: "The vet checked him last month, no UTI, no crystals", "it still
    didn't work, no ear, no oven spring, nothing".  A list of "no X" closed by a bare "nothing", or after a clause of
    examination (``examination_verbs``) or of failure (a negated verb), reports; "dinner ideas, no onions, no
    garlic" asks."""
    if tokens[i] == "no" and i > sentence_start and tokens[i - 1] in cues.finding_verbs:
        return True  # "The vet ran a urine test and found no infection or crystals"
    if tokens[i] == "no" and any(tokens[k] in cues.examination_verbs and tokens[k].endswith("ed")
                                 and tokens[k - 1] in cues.personal for k in range(i + 2, _sentence_end(tokens, i))):
        return True  # "No typos, I checked twice." (an -ed verb of checking after the asker; not "we did")
    if tokens[i] != "no" or i == sentence_start or tokens[i - 1] not in _COMMA_LIKE:
        return False
    j = i
    while j < len(tokens) and tokens[j] not in _SENTENCE_END:
        if tokens[j] == "nothing" and tokens[j - 1] in _COMMA_LIKE and (
                j + 1 == len(tokens) or not tokens[j + 1][:1].isalnum()):
            return True
        j += 1
    before = tokens[sentence_start : i - 1]
    if cues.wish & set(before):
        return False
    return bool(cues.examination_verbs & set(before)) or any(
        t.endswith("n't") and b + 1 < len(before) and before[b + 1] in ("work", "help", "change", "fix")
        for b, t in enumerate(before))


def _symptom_before(tokens: list[str], sentence_start: int, before: int) -> bool:
    """True when the words from ``sentence_start`` to ``before`` tell a symptom: a negated verb ("won't charge",
    "not cooling") or "keeps" + -ing ("keeps disconnecting")."""
    span = tokens[sentence_start:before]
    negated_verb = any((t.endswith("n't") or t == "not") and j + 1 < len(span) and span[j + 1][:1].isalpha()
                       and span[j + 1] not in ("the", "a", "an", "my", "sure", "really") for j, t in enumerate(span))
    return negated_verb or any(t in ("keeps", "keep", "kept") and j + 1 < len(span) and span[j + 1].endswith("ing")
                               for j, t in enumerate(span))
