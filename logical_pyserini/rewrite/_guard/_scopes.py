"""Exclusion scopes: what each cue of a question excludes, and the clauses that say what not to return."""

from __future__ import annotations

import itertools
import re
from functools import lru_cache

from ._text import (_COMMA_LIKE, _Cues, _SENTENCE_END, _TOKEN, _adverb, _clause_boundary, _clause_start, _cues, _gerund,
                    _inside, _linked_name, _match, _plain, _plural, _rule, _sentence_end, _title_case, _words)
from ._situations import (_amount_qualifier, _asker_before, _asks_else, _asks_fact, _clause_state, _conditional,
                          _contrast, _described, _details_nothing, _elided_object, _feels_nothing, _findings,
                          _harms_asker, _idle_negation, _unneeded,
                          _keyword_query, _listed_state, _match_intensified, _match_trailing, _negated_action,
                          _negated_relative, _negated_state, _object_end, _opens_clause, _others_event, _own_thing,
                          _possession_goes_on, _premise, _receives_nothing, _reported, _reports_absence, _restates,
                          _rule_asked_about, _silenced, _situation_asked, _states_fact, _time_phrase, _tried_object,
                          _unread_tokens, _went_without, _wished_away_action, _wished_state)


@lru_cache(maxsize=512)  # the guard reads one question several times (scopes, clauses, the decision)
def _reading(question: str) -> tuple[tuple[str, ...], tuple[str, ...], frozenset[int]]:
    cues = _cues()
    plain = _plain(question)
    written = _TOKEN.findall(plain)
    tokens = [t.lower() for t in written]
    return tuple(written), tuple(tokens), frozenset(_unread_tokens(plain, tokens, cues))


def _read(question: str) -> tuple[list[str], list[str], set[int]]:
    """The question's tokens as written and lower-cased (from :func:`_plain`, so every position agrees) and the
    positions no cue may read (quoted words, a program's message, a title query's first word): read once per
    question for :func:`exclusion_scopes`, :func:`negative_clauses` and the guard, fresh copies for each."""
    written, tokens, quoted = _reading(question)
    return list(written), list(tokens), set(quoted)


def _operator_cues(question: str) -> tuple[list[int], list[int]]:
    """Token positions of the question's disjunction cues and of its exclusion cues (strong or weak)."""
    cues = _cues()
    tokens = _words(question)
    ors = [i for i in range(len(tokens)) if _match(tokens, i, cues.disjunction)]
    exclusions = [i for i in range(len(tokens)) if _match(tokens, i, cues.strong) or _match(tokens, i, cues.weak)]
    return ors, exclusions


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
    written, tokens, quoted = _read(question)
    keywords = _keyword_query(tokens, cues)  # a search-box query: read once, asked at many tokens
    title_case = _title_case(written)
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
        if n and tokens[i + n - 1] == "else" and i > sentence_start and tokens[i - 1] == "or":
            n = 0  # "Is it anxiety only or something else?": one answer of a question, not a replacement
        strong = 0
        if not n:
            n, kind = _match_intensified(tokens, i, cues.strong, cues), "strong"
            strong = n
            if n and i + n < len(tokens) and tokens[i + n] in cues.not_before.get(tuple(tokens[i : i + n]), ()):
                n = 0  # "sans serif fonts"
            if n and i > sentence_start and written[i][:1].isupper() and not written[i].isupper() \
                    and written[i - 1][:1].isupper() and not title_case:
                n = 0  # inside a name: "the Squeeeeek No More kit" (not in "Best Laptops Not Made By Apple")
            if n and _match(tokens, i, cues.contrast) and _asks_fact(tokens, sentence_start, i, cues):
                n = 0  # "Why do cats like fish but not water?": the contrast is the fact asked about
            if n and tokens[i + n - 1] == "not" and i + n < len(tokens) and tokens[i + n] in cues.importance \
                    and (i + n + 1 == len(tokens) or not tokens[i + n + 1][:1].isalnum()):
                n = 0  # "Open source would be great but not essential": how much it matters, no thing
            if n and tokens[i : i + n] == ["instead", "of"] and cues.substitution & set(tokens[max(0, i - 2) : i]):
                n = 0  # "what can I use instead of buttermilk": what is replaced is the topic
            if n and tokens[i : i + 2] == ["moving", "away"] \
                    and {"is", "are", "was", "were"} & set(tokens[max(sentence_start, i - 3) : i]) \
                    and not cues.personal & set(tokens[max(sentence_start, i - 4) : i]):
                n = 0  # "whether the moon is actually moving away from Earth": a motion, not the asker leaving X
            if n and tokens[i].endswith("ing") and i > 0 and tokens[i - 1] in ("by", "why", "how"):
                n = 0  # "answered by skipping Los Angeles", "why leaving gaps was a bold move": an act told, no wish
            if n and tokens[i + n - 1] in ("from", "besides", "than") and tokens[i + n : i + n + 1] == ["being"]:
                n = 0  # "Aside from being a painter, was Marianne North also a botanist?": what someone is
            if n and tuple(tokens[i : i + n]) in cues.replacement_cues:  # "instead of", "rather than"
                g = i + n
                while g < len(tokens) and (tokens[g] in cues.intensifiers or _adverb(tokens[g], cues)
                                           or tokens[g] in ("only", "just", "simply", "merely")):
                    g += 1
                if g < len(tokens) and _gerund(tokens[g], cues) and tokens[g] not in cues.topic_gerunds:
                    n = 0  # "synthesise papers instead of only summarizing each one", "rather than spending the
                    # whole year clearing": how, not what
            if n and _match(tokens, i, cues.wish_negations) and _asks_fact(tokens, sentence_start, i, cues) \
                    and not (i > 0 and tokens[i - 1] in cues.personal):
                n = 0  # "how to tell someone you don't want to be friends": not the asker's wish
            if n and i > 0 and tokens[i - 1] in cues.negators:
                n = 0  # "never been to a wedding", "do not skip leg day": the cue is negated
            if n and tokens[i + n - 1] in ("minus", "over") and i + n < len(tokens) \
                    and (tokens[i + n][:1].isdigit() or tokens[i + n] in _NUMBER_WORDS):
                n = 0  # "when it drops below minus 25 in Winnipeg", "minus twelve", "I'm over 60": a number, no thing
            if n and i > 0 and tokens[i - 1] in cues.question_modals and _match(tokens, i, cues.knowledge) == n:
                n = 0  # "what should I know about booking a roomette?": what the asker asks to learn
            if n and i + n < len(tokens) and tokens[i + n] in cues.negators and written[i + n].islower():
                n = 0  # "tired of never having weekends off": the negations cancel ("other than Never Split ..." not)
            if n and _match(tokens, i, cues.contrast) and _conditional(
                    tokens, _clause_start(tokens, sentence_start, i, cues), i, cues):
                n = 0  # "tips for surviving a long flight when you hate flying": a condition, not a taste
            if n and _match(tokens, i, cues.wish_negations) and _time_passing(tokens, i + n, cues):
                n = 0  # "I also don't want another year to go by": time wasted, no thing
            if n and _match(tokens, i, cues.wish_negations) and _told_wish(tokens, sentence_start, i, cues):
                n = 0  # "how to tell my parents i dont want to go to university": what is to be told
            if n and _match(tokens, i, cues.exceptive) == n and any(
                    t in cues.negative_only or t.endswith("n't")
                    for t in tokens[_clause_start(tokens, sentence_start, i, cues) : i]):
                n = 0  # "we don't speak any language besides English": a negation and an exception say "only"
        if not n and i > 0 and tokens[i - 1] in _COMMA_LIKE:  # "..., ignoring X" (not "the cost of ignoring X")
            n, kind = _match(tokens, i, cues.comma), "strong"
        if not n and i == sentence_start and "," in tokens[i + 1 : i + 2 + cues.max_scope_words]:
            n, kind = _match(tokens, i, cues.comma), "strong"  # "Setting aside the Gunpowder Plot, what were ..."
        opens = not n and _opens_clause(tokens, sentence_start, i, cues)
        if opens:  # "Ignore the JNC 8 report" (not "apps to ignore")
            n, kind = _match(tokens, i, cues.imperative), "strong"
        if not n and (opens or (i > 0 and keywords)):  # "SUVs under 30k bar Nissan" too
            m = _match(tokens, i, cues.imperative_names)
            if m and i + m < len(written) and written[i + m][:1].isupper():  # ", bar Geico" (not "bar snacks")
                n, kind = m, "strong"
        if not n and opens and i > sentence_start:  # "..., but scratch bali" (not "Scratch cooking for beginners")
            n, kind = _match(tokens, i, cues.midclause), "strong"
        m = 0 if n else _match(tokens, i, cues.experiences)
        # "I had a horrible experience with Hostinger. ...", not "... with their customer service" (whose?)
        if m and i + m < len(tokens) and tokens[i + m] not in cues.possessives \
                and _asks_else(tokens, sentence_start, i, cues, remedy=False):
            n, kind = m, "strong"
        # An anaphor after an exclusion of its own sentence points to that one ("barns are so overdone, so none
        # of those"), not to the names around it; an empty scope ("already tried" alone) is no exclusion.
        names = not any(s >= sentence_start and e > s for _, _, s, e in scopes)
        # a one-word strong cue that is also a split one ("leaving") encloses its scope when the closing word comes
        if (not n or (n == 1 and kind == "strong")) and tokens[i] in cues.split and i + 1 < len(tokens) \
                and tokens[i + 1] not in cues.prepositions \
                and not (tokens[i] in cues.onset_verbs and _gerund(tokens[i + 1], cues)):  # "loaves keep coming out"
            # "leave pesticides out of it": the scope lies inside the cue ("the stitch count without ripping out" is
            # no "count X out")
            closes = cues.split[tokens[i]]
            # "leave Leonardo da Vinci and Michelangelo aside", "watched AOT, Death Note, Demon Slayer already"
            close = next((j for j in range(i + 2, min(len(tokens), i + 2 + 2 * cues.max_scope_words))
                          if _match(tokens, j, closes)
                          or not (_inside(tokens[j], cues) or tokens[j] in ("and", "or")
                                  or (tokens[j] == "," and _names_only(written, i + 1, j)))
                          or (j >= i + 2 + cues.max_scope_words and "," not in tokens[i + 1 : j])), None)
            if close is not None and _match(tokens, close, closes):
                back = None
                if all(t in cues.loose for t in tokens[i + 1 : close]) and cues.anaphors & set(tokens[i + 1 : close]):
                    # "we've crossed it off", "so leave that one out": the names before it
                    back = _antecedent(tokens, written, sentence_start, i, names, cues)
                scopes.append((i, close + 1, *back) if back else (i, i + 1, i + 1, close))
                i = close + _match(tokens, close, closes)
                continue
        complained = None if n or any(c >= sentence_start for c, _, _, _ in scopes) \
            else _complained_subject(tokens, sentence_start, i, cues)
        if complained:  # "ikea stuff falls apart in our house so other brands pls"
            scopes.append((i, i + 1, *complained))
            i += 1
            continue
        done = None if n or any(c >= sentence_start for c, _, _, _ in scopes) \
            else _experienced_names(tokens, written, sentence_start, i, cues)
        if done and any(s < done[1] and done[0] < e for _, _, s, e in scopes):
            done = None  # already excluded: "Last time we did Disney ..., so never again. What else is there?"
        if done:  # "we did Lisbon last year and loved it, so somewhere new this time"
            scopes.append((i, i + 1, *done))
            i += 1
            continue
        rejected = None if n else _rejected(tokens, written, i, cues)
        if rejected:  # "UPPAbaby? no thanks", "someone recommended Aussie Home Loans, nope"
            m = _match(tokens, i, cues.rejections)
            scopes.append((i, i + m, *rejected))
            i += m
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
        if not n and not strong:  # a strong cue ruled out here ("I also don't want another year to go by") stays out
            n, kind = _match(tokens, i, cues.weak), "weak"
            if n and not _contrast(tokens, written, i, i + n, cues):
                kind = "strong"  # "I did keto ..., so no keto please": a conclusion, not a contrast
            if n and kind == "weak" and _asked_no(tokens, i, i + n, cues):
                kind = "strong"  # "... but my wife said no Cascadia pls", "..., so please no Mitogen answers": asked
            if n and _match(tokens, i + n, cues.strong):
                n = 0  # "do not skip leg day": the negation cancels the cue
            if n and tokens[i] == "without" and i + 1 < len(tokens) and tokens[i + 1] in ("spending", "paying") \
                    and any(t in cues.cost_words or t[:1].isdigit() for t in tokens[i + 2 : i + 5]):
                n = 0  # "without spending silly money", "without paying a fortune": how much, no thing
            if n and _weak_names_nothing(tokens, written, sentence_start, i, n, cues):
                n = 0  # "it wasn't that catastrophic", "no employees until now", "WHERE NOT EXISTS"
            m = _match(tokens, i + n, cues.understatements) if n and tokens[i] == "not" else 0
            if m and (i + n + m == len(tokens) or not tokens[i + n + m][0].isalnum()
                      or tokens[i + n + m] in ("lol", "haha", "lmao", "tbh")):
                n = 0  # "I've put on maybe 5 kilos, not a huge amount.", "which is not the point lol": no thing
            if n and i + n < len(tokens) and tokens[i + n] in cues.not_before.get(tuple(tokens[i : i + n]), ()) \
                    and not (written[i + n][:1].isupper() and not written[i + n].isupper() and i > sentence_start):
                n = 0  # "no matter how I cook it" (a title after it is a name: "Please no Wonder, ...")
            if n and _match(tokens, i, cues.auxiliaries) == n and i + n < len(written) and written[i + n][:1].isupper():
                n = 0  # a title: "Don't Stop Believin' chords" (a verb is capitalised only in one)
            # "Our landlord won't allow nails": someone's rule, even in the asker's own situation
            # (a thing, not an activity: "my building doesn't allow charging batteries inside" is the asker's lot)
            rule = _match(tokens, i, cues.auxiliaries) == n and i + n + 1 < len(tokens) \
                and tokens[i + n] in cues.refusals and not _gerund(tokens[i + n + 1], cues)
            # "so we're not renewing with them": a custom refused to what was named before, not the asker's situation
            patron = i + n < len(tokens) and tokens[i + n] in cues.patronage \
                and bool(_verb_anaphor(tokens, written, i + n, cues))
            if n and not rule and not patron and _silenced(tokens, written, sentence_start, i, cues):
                n = 0
            if n and _match(tokens, i, cues.auxiliaries) == n \
                    and any(t in cues.possessives or t in ("he", "she", "they")
                            for t in tokens[max(sentence_start, i - 4) : i]) \
                    and i + n < len(tokens) and not _rule(tokens, i + n, i + n + 1, cues) \
                    and _changed(tokens, i + n, cues):
                n = 0  # "My PlayStation 5 won't read discs anymore": a problem that began (not "won't allow X anymore")
            if n and tokens[i] in cues.continuing_negations and not any(c >= sentence_start for c, _, _, _ in scopes) \
                    and any(t in cues.negators or t.endswith("n't") for t in tokens[sentence_start:i]):
                n = 0  # "I have not changed the variety nor the compost supplier": it goes on with a state
        if n and i > sentence_start and tokens[i - 1] in cues.relative and _match(tokens, i, cues.relative_needs):
            n = 0  # "houseplants that don't need direct sunlight" asks for that property
        if n and _amount_qualifier(tokens, i, cues):
            n = 0  # "budget around 3000 EUR excluding flights": what an amount counts, not what to leave out
        if n and kind in ("weak", "strong") and _states_of_subject(tokens, sentence_start, i, cues):
            n = 0  # "Mercury and Venus have no moons", "Ethiopia, which was never colonised": a fact about the subject
        if n and _act_asked(tokens, written, sentence_start, i, n, cues):
            n = 0  # "when to exclude outliers", "with and without the excluded cases": the act is the topic
        if n and i > 0 and tokens[i - 1] == "(" and scopes and scopes[-1][3] == i - 1:
            n = 0  # "no tempeh (hate the texture)": the reason for the exclusion before it
        if not n:
            i += 1
            continue
        if kind == "trailing" and tokens[i] in cues.personal and (
                i == sentence_start or not _inside(tokens[i - 1], cues)
                or (i + n < len(tokens) and tokens[i + n] in cues.copulas)):
            # "marble we've ruled out because ...": the object comes first; with nothing before the asker the cue
            # reads forward ("We've ruled out Purina"), and before a copula it is a relative clause ("The options
            # we've ruled out are cost and time")
            i += 1
            continue
        if kind == "trailing":
            start = i
            # The subject stops at a reporting verb: "my doctor said X is not an option" excludes X (and at an
            # opinion: "so I think Munich is not for me").
            while start > sentence_start and start > i - cues.max_scope_words \
                    and tokens[start - 1] not in cues.reporting and tokens[start - 1] not in cues.opinion_verbs \
                    and (_inside(tokens[start - 1], cues)
                         or _and_between_names(written, start, start - 1, cues, back=True)
                         or _comma_names_back(written, sentence_start, start - 1, i, cues)
                         or _and_in_list_back(tokens, sentence_start, start - 1, i, cues)):
                start -= 1
            if start - 2 >= sentence_start and tokens[start - 1] in ("that", "which") \
                    and tokens[start - 2] in cues.meta_nouns:
                start -= 2  # "Documents that only discuss rosuvastatin ...": the relative names the documents
            stop = i
            while stop > start and _adverb(tokens[stop - 1], cues) and written[stop - 1].islower():
                stop -= 1  # "Ibuprofen is obviously off the table", "it clearly didn't work for me" (not "Preply")
            while start < stop and _adverb(tokens[start], cues) and written[start].islower():
                start += 1
            verdict = any(tuple(tokens[i + n - len(v) : i + n]) == v for v in cues.relevance_verdicts)
            if verdict:  # "Material on the Bergen Kontor should be considered non-relevant": a judge's verdict
                while stop > start and tokens[stop - 1] in cues.verdict_leads:
                    stop -= 1
            meta = _meta_subject(tokens, start, stop, cues)
            if meta is None and tuple(tokens[i : i + n]) in cues.meta_verdicts \
                    and _meta_lead(tokens, start, cues) == start:
                i += n  # "ibuprofen won't help" tells of a remedy; "Answers that just say Bessel won't help" excludes
                continue
            if verdict and meta is None and start < stop and tokens[start] in cues.determiners \
                    and all(w.islower() for w in written[start + 1 : stop]):
                i += n  # "The publication date is not relevant": a criterion relaxed, no topic left out
                continue
            start = meta if meta is not None else start  # "Documents about Silicon Valley Bank ...": the bank
            if start == 0 and i >= 3 and keywords:
                # a run of keywords has no subject to read: its last word ("mortgage lenders santander is a no-go"),
                # with the word before when the last one is named earlier too ("crime drama series true crime excluded")
                last = i - int(tokens[i - 1] in cues.copulas)  # "used suvs under 15k ford is off the table"
                start, stop = last - 1 - int(tokens[last - 1] in tokens[: last - 1]), last
            if start == i and i > 1 and (i == sentence_start and tokens[i - 1] in _SENTENCE_END
                                         or tokens[i - 1] in _COMMA_LIKE):  # "Courchevel - absolutely not."
                # "AirAsia? never again.", "Crunchyroll, been there done that": a cue alone after one to three names
                start, stop = _fragment_names(written, _fragment_start(tokens, i), i) or (start, stop)
            if tokens[i] == "and" and start < stop and tokens[start] in cues.possessives:
                i += n  # "My brother and I broke up the band": the asker's people, no thing
                continue
            named_cue = tuple(tokens[i : i + n]) in cues.named_trailing
            # "Everyone recommends spray foam insulation but that's way over our budget": a lone anaphor points back
            # (not "not sure if it's too hot": a condition)
            lone_anaphor = named_cue and start == stop == i and i - 1 > sentence_start \
                and tokens[i - 1] in ("that", "it", "this") \
                and not {"if", "whether", "when", "unless"} & set(tokens[max(sentence_start, i - 4) : i - 1])
            if lone_anaphor:
                start = i - 1
            if named_cue and not lone_anaphor and not (
                    start < stop and _names_only(written, start, stop)
                    and not all(t in cues.loose for t in tokens[start:stop])):
                start = _names_ending(tokens, written, sentence_start, stop, cues)
                if start is None and tuple(tokens[i : i + n]) in cues.slang_trailing and stop == i and i > 0 \
                        and written[i - 1].isalpha() and written[i - 1].islower() \
                        and (i - 1 == sentence_start or tokens[i - 2] in cues.slang_openers) \
                        and not _common_word(written, i - 1, cues):  # (a determiner, "the food", is common)
                    start = i - 1  # "ngl hamstudy was mid for me": slang rates a thing, named in lower case
                if start is None:
                    i += n  # "Casper was way too soft" names what failed; "the water was way too cold" or "it was
                    continue  # way too cold" tells how something was
            back = None
            if start == stop == i and i > sentence_start and tokens[i - 1] in cues.personal and i + n < len(written) \
                    and written[i + n][:1].isupper() and not written[i + n].isupper():
                # "I won't fly Ryanair again": after the asker the cue reads forward, to the name after it
                e = i + n
                while e < len(written) and written[e][:1].isupper():
                    e += 1
                scopes.append((i, i + n, i + n, e))
                i += n
                continue
            if all(t in cues.loose or _adverb(t, cues)
                   or (t in cues.class_anaphors
                       and cues.demonstratives & set(tokens[max(sentence_start, start - 1) : stop]))
                   for t in tokens[start:stop]):  # "so that one is off the table", "Honestly that place is filthy"
                p = start
                while p > sentence_start and (tokens[p - 1] in cues.loose or tokens[p - 1] in cues.boundary):
                    p -= 1
                if cues.anaphors & set(tokens[p:i]):  # "I've finished Couch to 5K so that one's out"
                    back = _antecedent(tokens, written, sentence_start, p, names, cues)
                    # "I used Etsy for two years. After the fee changes ..., they and I parted ways": the cue's own
                    # subject is the anaphor
                    # (or "that stuff is off the table" after "My cousin keeps pushing Herbalife at every dinner")
                    words = [t for t in tokens[p:i] if t not in cues.copulas]
                    own = (tokens[i] == "and" and len(words) == 1 and words[0] in cues.anaphors) or (
                        len(words) == 2 and words[0] in cues.demonstratives and words[1] in cues.loose)
                    if not back and names and (own or _points_further(tokens, sentence_start, p, i, cues)):
                        # "My brother-in-law keeps pushing his Celestron NexStar on us ... That one is off the table"
                        back = _earlier_names(tokens, written, sentence_start, cues)
                elif start == stop and start > sentence_start and tokens[start - 1] in cues.consequence and names:
                    # "Last time we did Disney the queues nearly broke us, so never again": the names before it
                    back = _named_object(written, sentence_start, start - 1, cues)
                elif start == stop and names and (start == sentence_start or tokens[start - 1] in _COMMA_LIKE):
                    # "We tried a Jeep Cherokee last year. Never again.", "We gave Starlink a fair shot ... Between
                    # the trees and the dropouts, never again.": the sentence's names, else those before it
                    back = _opening_names(tokens, written, sentence_start, start) or _named_object(
                        written, sentence_start, start, cues) or _earlier_names(tokens, written, sentence_start, cues)
            if not back and cues.place_anaphors & set(tokens[start:stop]):
                i += n  # "steer clear of Storrs Hall - friend's wedding there was a disaster": the place named before
                continue
            if not back and lone_anaphor:
                i += n  # the anaphor points to nothing readable (or to what is already excluded)
                continue
            scopes.append((i, i + n, *back) if back else (i, i + n, start, stop))
        else:
            # The word limit holds per excluded item: "excluding A as well as B" keeps B whole; a wish after a comma
            # ends the list ("so over Joe Rogan and Call Her Daddy, want something smart, history or science").
            end = item = i + n
            while end < len(tokens) and end < item + cues.max_scope_words \
                    and not _match(tokens, end, cues.stops) and not _time_phrase(tokens, end, cues) \
                    and not (end > i + n and tokens[end - 1] == "," and tokens[end] in cues.wish) \
                    and not _whence(tokens, i + n, end) and not _new_clause(tokens, i + n, end, cues, written) and (
                    _inside(tokens[end], cues) or _relative_after_filler(tokens, i + n, end, cues)
                    # a title that holds a boundary word: "excluding I Have a Dream", "The Girl Who Played with Fire"
                    or (tokens[end][:1].isalpha() and written[end][:1].isupper()
                        and (end == i + n or written[end - 1][:1].isupper()) and _title_goes_on(written, end + 1, cues)
                        and not written[end + 1].isupper())  # (not in a text typed in capitals: "I REFUSE TO")
                    # a regnal numeral: "without mentioning Henry VIII or Elizabeth I." (not "no Ryanair I hate them")
                    or (written[end] == "I" and end > i + n and written[end - 1][:1].isupper()
                        and (end + 1 == len(tokens) or tokens[end + 1] in _SENTENCE_END
                             or tokens[end + 1] in ("and", "or")
                             or (tokens[end + 1] in _COMMA_LIKE and end + 2 < len(written)
                                 and written[end + 2][:1].isupper())))
                    # "not a fan of those wire frames": a demonstrative before a noun phrase is a determiner
                    # ("anything but that breed" points back)
                    or (end == i + n and tokens[end] in cues.demonstratives and end + 2 < len(tokens)
                        and all(_inside(t, cues) and t not in cues.loose for t in tokens[end + 1 : end + 3]))
                    or _and_between_names(written, i + n, end, cues) or _and_in_list(tokens, item, end, cues)
                    or _comma_list(tokens, item, end, cues)):
                if _names_listed(written, i + n, end, cues) and written[end].islower() \
                        and tokens[end] not in cues.determiners:
                    break  # "excluding Germany and France with the lowest cost of living": the names end it
                if tokens[end] in cues.name_ends and written[end].islower() and _named_head(written, i + n, end, cues) \
                        and not _title_goes_on(written, end + 1, cues):
                    break  # "has vetoed IKEA for anything in the nursery", "killed the HubSpot idea at Tuesday's
                    # meeting": a name (filler aside), then a preposition that says where or why
                step = _match(tokens, end, cues.lists) or int(tokens[end] in ("and", ","))  # "Tokyo and Seoul"
                end += step or 1
                item = end if step else item
            while end > i + n + 1 and (tokens[end - 1] in cues.comment_adverbs or tokens[end - 1] in cues.reply_nouns) \
                    and written[end - 1].islower():
                end -= 1  # "already read Piranesi obviously and ...", "please no Mitogen answers": no part of the name
            if i == 0 and end == len(tokens) and end - n > 2 and keywords:
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
            if kind == "strong" and i > 0 and tokens[i - 1] in ("who", "whose") \
                    and not _match(tokens, i, cues.contrast) \
                    and not (i + n < len(written) and written[i + n][:1].isupper()):
                # "owners who already have one", "dentists who avoid amalgam": who is asked for, as after a weak cue
                # ("players who aren't LeBron" and "my dad who hates gadgets", a taste, still exclude)
                i += n
                continue
            if tokens[i] == "nothing" and i > 0 and tokens[i - 1] in cues.knowing_verbs:
                i += n  # "I know nothing about it": what the asker knows, whatever "it" stands for
                continue
            fronted = _fragment_names(written, sentence_start, i) if end == i + n and kind == "strong" \
                and i - 1 > sentence_start and tokens[i - 1] in cues.personal else None
            if fronted:  # "Google Photos I refuse to use after their policy change": the object comes first
                scopes.append((i, i + n, *fronted))
                i += n
                continue
            pointing = kind == "anaphoric" or (kind == "strong" and _elided_object(tokens, sentence_start, i, n, cues))
            # "Everyone says just buy a Hobie but no, not spending 3 grand": a bare "but no" refuses what came before
            # (a name: "I tried restarting it but no, it still won't connect" refuses nothing)
            pointing = pointing or (_bare_no(tokens, sentence_start, i, n, cues) and i + n < len(tokens)
                                    and (tokens[i + n] in _COMMA_LIKE or tokens[i + n] in _SENTENCE_END)
                                    and _named_object(written, sentence_start, i, cues) is not None)
            back = _anaphoric_subject(tokens, written, sentence_start, i, n, pointing, cues, names)
            # (not a wish: "I don't want to ruin it", "don't want to give up on it" tell of the asker's own thing; nor
            # what someone cannot do: "the teachers can't get them on him either")
            verb = 0 if back or pointing or kind not in ("weak", "strong") or _match(tokens, i, cues.wish_negations) \
                or tokens[i] in cues.ability_negations else _verb_anaphor(tokens, written, i + n, cues)
            if verb:  # "we're not renewing with them", "corporate isn't renewing it": what the anaphor stands for
                back = _anaphoric_subject(tokens, written, sentence_start, i, verb - i, True, cues, names)
                if back and back[0] == 0:
                    back = None  # the question's opening words are its topic: "Cookbooks for students; don't plan to
                    # buy it", "Sci-fi box sets; we never watch them twice"
            if not back and kind == "anaphoric" and tokens[i + n - 1] in cues.else_words:
                # "Something else fuzzy", "somewhere else warm", "What other places would work?": what follows is
                # what is asked for
                i += n
                continue
            if back:  # the anaphors count as the cue's: they leave the positive text with it
                scopes.append((i, back[2], back[0], back[1]))
            elif not _excludes_nothing(tokens, written, sentence_start, i, n, end, kind, cues):
                # After an auxiliary the first word is the verb, not the thing: "won't eat anything with cilantro"
                # and so is a verb of taste after "not": "we're not considering anything from Kia"
                verb = int(kind == "weak" and (_match(tokens, i, cues.auxiliaries) == n
                                               or (i + n < len(tokens) and tokens[i + n] in cues.preference_verbs))
                           and i + n < end - 1 and tokens[i + n] not in cues.loose)
                # "I'd rather not go Sony again", "rather not read about lions": a bare infinitive follows, and it
                # takes its preposition or "back" along
                if not verb and tokens[i + n - 2 : i + n] == ["rather", "not"] and i + n < end - 1:
                    verb = 1 + int(i + n + 2 < end and (tokens[i + n + 1] == "back"
                                                        or tokens[i + n + 1] in cues.prepositions))
                # "I don't want to see any Marvel films": the infinitive's verb of taste leaves with the cue too
                infinitive = i + n + 2 < end and tokens[i + n] == "to"
                if not verb and infinitive and tokens[i + n + 1] in cues.preference_verbs:
                    verb = 2
                # "I don't want to deal with eBay bidding": a verb of choice leaves too, with its preposition
                elif not verb and infinitive and tokens[i + n + 1] in cues.choice_verbs:
                    verb = 2 + int(i + n + 3 < end and tokens[i + n + 2] in cues.prepositions)
                # "no interest in romance", "no patience for long intros": the taste leaves with the cue
                if not verb and i + n + 2 < end and tokens[i + n] in cues.preference_nouns \
                        and tokens[i + n + 1] in cues.prepositions:
                    verb = 2
                # "please no answers using pandas": the kind of answer leaves with the cue, its link too
                # "prefer not to receive further material concerning X": the receiving goes with them
                lead = 2 if tokens[i + n : i + n + 1] == ["to"] and i + n + 1 < end \
                    and tokens[i + n + 1] in cues.reading else 0
                lead += int(i + n + lead < end
                            and tokens[i + n + lead] in ("further", "more", "any", "additional", "the"))
                if not verb and i + n + lead + 1 < end and tokens[i + n + lead] in cues.meta_nouns:
                    link = _match(tokens, i + n + lead + 1, cues.meta_links)
                    verb = lead + 1 + link if link and i + n + lead + 1 + link < end else 0
                # "told us not to lean on Josephus": a negated infinitive's verb and its preposition leave too
                if not verb and tokens[i + n - 1] == "not" and i + n + 2 < end and tokens[i + n] == "to" \
                        and written[i + n + 1].islower() and tokens[i + n + 1] not in cues.loose:
                    verb = 2 + int(tokens[i + n + 2] in cues.prepositions)
                scopes.append((i, i + n + verb, i + n + verb, end))
        i += n
    return [scope for scope in scopes
            if not _premise(tokens, scope, scopes, cues) and not _restates(tokens, scope, scopes, cues)]


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
    written, tokens, quoted = _read(question)
    spans, start, sentence_start = [], 0, 0
    for j in range(len(tokens) + 1):
        if j == len(tokens) or _clause_boundary(tokens[j], cues):
            if start < j:
                spans.append((start, j, sentence_start))
            if j < len(tokens) and tokens[j] in _SENTENCE_END:
                sentence_start = j + 1
            start = j + 1
    clauses = []
    for k, (start, end, sentence_start) in enumerate(spans):
        if not any(tokens[j] in cues.negative and j not in quoted
                   and not (tokens[j] in ("out", "off") and j > 0 and tokens[j - 1] in cues.particle_verbs)
                   # "nothing works": the subject of a statement; "nobody seems sick": "sick" / "tired" only with
                   # "of" ("sick of pasta")
                   and not (tokens[j] == "nothing" and j + 1 < end and tokens[j + 1] in cues.subject_verbs)
                   and not (tokens[j] in ("sick", "tired") and (j + 1 == len(tokens) or tokens[j + 1] != "of"))
                   and not _silenced(tokens, written, sentence_start, j, cues)
                   and not _clause_state(tokens, written, j, end, cues) for j in range(start, end)):
            continue
        bare = all(tokens[j] in cues.negative or tokens[j] in cues.loose for j in range(start, end))
        if bare and k and spans[k - 1][2] == sentence_start:
            start = spans[k - 1][0]
        clauses.append((start, end))
    return clauses


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
    nxt = at + 1 + int(at + 2 < len(written) and written[at + 1] == "also")  # "Piranesi and also The Starless Sea"
    nxt += int(nxt + 1 < len(written) and written[nxt].lower() in cues.determiners)
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
    # (a courtesy word ends it too: "minus the tofu and mushrooms pls")
    return 0 < k - j <= 3 and (k == len(tokens) or not tokens[k][0].isalnum() or tokens[k] in cues.relative
                               or tokens[k] in ("please", "pls", "plz", "thanks", "thx")) \
        and tokens[j] not in (
        cues.prepositions | cues.personal | cues.ignore) \
        and tokens[j + 1 : j + 2] not in (["something"], ["anything"], ["somewhere"], ["someone"], ["somebody"])
    # ("a break from Prodigy and find something else": a verb with an indefinite object opens the next wish)


def _comma_list(tokens: list[str], item: int, at: int, cues: _Cues) -> bool:
    """A comma at ``at`` inside a scope's list of short items closed by "or" / "and": "without mushrooms, olives or
    anchovies", "not brighton, bath or oxford, somewhere less obvious" (one to three words per item, the list ends
    at punctuation or the end; not "no sugar, how do I make it sweet or salty")."""
    if tokens[at] != "," or not 0 < at - item <= 3:
        return False
    def run(j: int) -> int:  # the end of one to three item words from j, or -1
        k = j
        while k < len(tokens) and _inside(tokens[k], cues) and tokens[k] not in ("and", "or") \
                and tokens[k] not in cues.personal and tokens[k] not in cues.prepositions:
            k += 1
        return k if 0 < k - j <= 3 else -1
    j = at + 1
    while True:
        k = run(j)
        if k < 0 or k == len(tokens):
            return False
        if tokens[k] == ",":
            j = k + 1
            continue
        if tokens[k] in ("and", "or"):
            last = run(k + 1)
            return last > 0 and (last == len(tokens) or not _inside(tokens[last], cues))  # "... and milk please"
        return False


def _comma_names_back(written: list[str], sentence_start: int, at: int, cue: int, cues: _Cues) -> bool:
    """A comma at ``at`` in a list of names closed by "and" / "or" before a trailing cue at ``cue``: "but Paris, Rome
    and Barcelona are too crowded" lists three.  The name before the comma must open its item (after punctuation, a
    clause word or the sentence start, or inside a longer name): "city breaks in Europe, Paris and Rome are out"
    does not take "Europe"."""
    if written[at] != "," or at - 1 < sentence_start or not written[at - 1][:1].isupper():
        return False
    k = at - 1
    while k > sentence_start and written[k - 1][:1].isupper():
        k -= 1  # "New York, Boston and Chicago"
    if k > sentence_start and written[k - 1][0].isalnum() and written[k - 1].lower() not in cues.clause_words:
        return False
    rest = [w for w in written[at + 1 : cue] if w != ","]
    joins = [w for w in rest if w.lower() in ("and", "or")]
    return bool(joins) and all(w[:1].isupper() or w in joins for w in rest)


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
    # "so steering clear of that brand", "I won't touch that brand": a class noun after a demonstrative points back
    # as "that" does; "nobody wants it back", "done with it completely": closing adverbs belong to the cue
    while end < len(tokens) and (tokens[end] in cues.loose or tokens[end] in cues.tails or (
            tokens[end] in cues.class_anaphors and cues.demonstratives & set(tokens[max(i, i + n - 1) : end]))):
        end += 1
    # "I'm sick of hearing about it every Sunday dinner": a closing "every" + time word says when, not what
    if end + 1 < len(tokens) and tokens[end] == "every" and tokens[end + 1] in cues.time_words:
        end += 2
        while end < len(tokens) and end < i + n + 8 and tokens[end][:1].isalnum() and tokens[end] not in cues.boundary:
            end += 1
    # "Not that one though, I want a second option": a closing "though" belongs to the cue
    if end + 1 < len(tokens) and tokens[end] in ("though", "tho") and (
            tokens[end + 1] in _SENTENCE_END or tokens[end + 1] in _COMMA_LIKE):
        end += 1
    # up to the sentence's end or its clause's: "... Thailand twice so please leave it out, we want somewhere new"
    if end < len(tokens) and tokens[end] not in _SENTENCE_END and tokens[end] not in _COMMA_LIKE and tokens[end] != ")":
        return None
    if not (pointing or cues.anaphors & set(tokens[i + n : end])):
        return None
    # "hikes near Denver (Hanging Lake's permits are gone, so scratch that one)": inside a parenthesis, the words
    # after it
    opened = next((k + 1 for k in range(i - 1, sentence_start - 1, -1) if tokens[k] in ("(", ")")), None)
    subject = None
    if opened is not None and tokens[opened - 1] == "(":
        subject = _antecedent(tokens, written, opened, i, names, cues)
    subject = subject or _antecedent(tokens, written, sentence_start, i, names, cues)
    if not subject and names and _points_further(tokens, sentence_start, i, end, cues):
        # a sentence of the cue alone, or one that opens with an anaphor, points further back: "I've been using
        # Shopify ... Anything except that one.", "His neurologist put him on Aricept ... That burned us last year, so
        # it's done" (not "Cafés in Rome. The service is slow, so not that one.", nor "We had a terrible time with
        # aquafaba last Easter, ..., so I do not want to hear about it again")
        subject = _earlier_names(tokens, written, sentence_start, cues)
    if subject and cues.maker_nouns & set(tokens[i:end]) and not {"and", "or", ","} & set(tokens[slice(*subject)]):
        subject = _make_of(tokens, written, subject, cues) or subject  # a list keeps its names: "a Roomba 692 and a
        # Eufy 11S ..., so I'm done with those two brands"
    return (*subject, end) if subject else None


def _make_of(tokens: list[str], written: list[str], subject: tuple[int, int], cues: _Cues) -> tuple[int, int] | None:
    """The make of the last product named by its make and model in the sentence of ``subject``, up to its end, for
    an anaphor whose class is a maker ("My dad had a Nissan Rogue with a CVT that died ..., so I won't touch that
    brand" leaves out Nissan, not the CVT; "... but I had a Fiat 500 that broke down ..." Fiat): a capitalised word
    after a determiner or a possessive, then a capitalised word or a number; None when there is no such product."""
    begin = subject[0]
    while begin > 0 and tokens[begin - 1] not in _SENTENCE_END:
        begin -= 1
    for k in range(subject[1] - 2, begin, -1):
        if (tokens[k - 1] in cues.determiners or tokens[k - 1] in cues.possessives) and written[k][:1].isupper() \
                and (written[k + 1][:1].isupper() or written[k + 1][:1].isdigit()) \
                and written[k].lower() not in cues.personal:
            return k, k + 1
    return None


def _named_head(written: list[str], start: int, end: int, cues: _Cues) -> bool:
    """True when ``written[start:end]`` is a name, determiners and filler aside: "IKEA", "the HubSpot idea" (not
    QUEST's "Novels based", a category and a participle)."""
    words = [w for w in written[start:end] if w.lower() not in cues.determiners and w.lower() not in cues.loose]
    return bool(words) and all(w[:1].isupper() or w[:1].isdigit() for w in words) and words[0][:1].isupper()


def _title_goes_on(written: list[str], k: int, cues: _Cues) -> bool:
    """True when a capitalised word (no day or month) follows at ``k``, past a determiner: the preposition before
    it is inside a title ("Lessons in Chemistry", "Attack on Titan", "Wow in the World")."""
    while k < len(written) and written[k].lower() in cues.determiners:
        k += 1
    return k < len(written) and written[k][:1].isupper() \
        and re.sub(r"'s$", "", written[k].lower()) not in cues.time_words


def _changed(tokens: list[str], start: int, cues: _Cues) -> bool:
    """True when the sentence from ``start`` tells a refusal that began or depends on something (one of
    ``change_words``): "My 7-year-old won't touch vegetables unless they're hidden in a Bolognese", "My PlayStation 5
    won't read discs anymore" tell a problem to solve, not a thing to leave out ("my son won't touch fish" is one, and
    so is "Our HOA won't allow Generac units anymore": ``permission_verbs``, someone's rule)."""
    k = start
    while k < len(tokens) and tokens[k] not in _SENTENCE_END:
        # a taste may just have begun ("my son won't touch broccoli anymore, dinner ideas?" excludes it)
        if tokens[k] in cues.change_words and (tokens[start] not in cues.refusals or tokens[k] == "unless"):
            return True
        k += 1
    return False


def _bare_no(tokens: list[str], sentence_start: int, i: int, n: int, cues: _Cues) -> bool:
    """True when the cue at ``i`` is a bare "no" that answers what came before: "but no" ("Everyone says just buy a
    Hobie but no, ..."), or a lone "no" after "and" or "but", commas and adverbs between ("My uncle tried to gift me
    his old Mr. Beer kit and, respectfully, no.")."""
    if tokens[i : i + n] == ["but", "no"]:
        return True
    if tokens[i : i + n] != ["no"]:
        return False
    j = i
    while j > sentence_start and (tokens[j - 1] in _COMMA_LIKE or _adverb(tokens[j - 1], cues)):
        j -= 1
    return j < i and j > sentence_start and tokens[j - 1] in ("and", "but")



def _points_further(tokens: list[str], sentence_start: int, i: int, end: int, cues: _Cues) -> bool:
    """True when an anaphoric exclusion at ``i`` (its anaphors up to ``end``) whose sentence names nothing points to
    the sentences before it: a sentence of the cue alone ("Not going back to that."), a short one ("I'm done with
    that brand."), one that opens with an anaphor ("That burned us last year, so it's done", "Honestly that place is
    filthy") or with a thing the asker did to an anaphor ("We did that on our honeymoon, so skip it", "I tried it for
    a month ..., so not them"), or a class noun after the anaphor ("that brand").  Not a longer sentence, which may
    name its thing in lower case ("We had a terrible time with aquafaba last Easter, ..., so I do not want to hear
    about it again", "My cousin took her landlord to small claims court ..., so I'm not going down that road")."""
    before = [t for t in tokens[sentence_start:i] if t not in cues.loose and t not in cues.openers]
    first = next((t for t in tokens[sentence_start:i] if not _adverb(t, cues)), "")
    tried = any(tokens[k] in cues.experienced and tokens[k + 1] in cues.object_anaphors
                for k in range(sentence_start, min(i - 1, sentence_start + 3)))  # "We did that on our honeymoon"
    # "... Jamie Oliver's books on my bench. Love her, but the man's meals take me an hour, and I'm done with him.": a
    # person's pronoun ending the cue points to a person named before, however long its sentence
    person = end > i and tokens[end - 1] in ("him", "her")
    return len(before) <= 2 or first in cues.anaphors or tried or bool(cues.class_anaphors & set(tokens[i:end])) \
        or person



def _verb_anaphor(tokens: list[str], written: list[str], start: int, cues: _Cues) -> int:
    """Where the anaphor starts when a cue's scope from ``start`` is a short verb phrase done to it up to the end of
    its clause: "not renewing with them", "corporate isn't renewing it", "so I won't risk it" (one to four lower-case
    words, then "it" / "that" / "them" / ..., maybe a class noun, then filler); else 0."""
    k = start
    while k < len(tokens) and k < start + 4 and tokens[k][:1].isalnum() and written[k].islower() \
            and tokens[k] not in cues.object_anaphors and tokens[k] not in cues.boundary \
            and tokens[k] not in cues.determiners and tokens[k] not in cues.quantifiers \
            and tokens[k] not in ("anything", "something", "everything"):
        k += 1  # a determiner opens a noun phrase: "without any meat in them" names its thing
    if k == start or k >= len(tokens) or tokens[k] not in cues.object_anaphors or (
            k + 1 < len(tokens) and (tokens[k + 1] in cues.time_words or tokens[k + 1] == "time")):
        return 0  # "done with the coast this year": a time, no anaphor
    e = k + 1
    while e < len(tokens) and (tokens[e] in cues.loose or tokens[e] in cues.tails or tokens[e] in cues.class_anaphors):
        e += 1
    return k if e == len(tokens) or tokens[e] in _SENTENCE_END or tokens[e] in _COMMA_LIKE else 0


def _opening_names(tokens: list[str], written: list[str], sentence_start: int, i: int) -> tuple[int, int] | None:
    """One to three names that open the sentence before a comma or a dash, ahead of ``i``: "Pronovias — been there,
    cried, never again"."""
    k = next((k for k in range(sentence_start + 1, min(i, sentence_start + 4)) if tokens[k] in _COMMA_LIKE), None)
    return (sentence_start, k) if k is not None and _names_only(written, sentence_start, k) else None


def _earlier_names(tokens: list[str], written: list[str], sentence_start: int, cues: _Cues) -> tuple[int, int] | None:
    """What an anaphor in a sentence that names nothing points to in the three sentences before it: their last
    names (:func:`_named_object`), what someone urged on the asker (:func:`_urged_thing`), or a fragment of names
    ("Purina? Scratch that, she said no")."""
    ends = [j for j in range(sentence_start - 1, -1, -1) if tokens[j] in _SENTENCE_END][:4]
    for stop, begin in zip(ends, ends[1:] + [-1]):
        subject = (_urged_thing(tokens, begin + 1, stop, cues) or _visited_place(tokens, written, begin + 1, stop, cues)
                   or _prescribed(tokens, begin + 1, stop, cues) or _opening_name(written, begin + 1, stop, cues)
                   or _named_object(written, begin + 1, stop, cues) or _fragment_names(written, begin + 1, stop + 1))
        if subject:
            return subject
    return None


def _antecedent(tokens: list[str], written: list[str], sentence_start: int, before: int, names: bool,
                cues: _Cues) -> tuple[int, int] | None:
    """What an anaphor before ``before`` points to: the sentence's named subject (:func:`_named_subject`), else, when
    ``names`` (no exclusion of the sentence came first), the last names before it (:func:`_named_object`)."""
    return _named_subject(tokens, written, sentence_start, before, cues) or (
        (_named_object(written, sentence_start, before, cues) or _tried_thing(tokens, sentence_start, before, cues)
         or _urged_thing(tokens, sentence_start, before, cues))
        if names else None)


def _tried_thing(tokens: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """What the asker tried earlier in the sentence, for an anaphor with no name to point to: "I've also tried
    melatonin from the chemist and it did nothing, so not that either", "My GP had me on zopiclone for a while ...,
    so that's out" (one of ``tried_verbs`` after the asker, or after someone who put the asker "on" it): the words
    after it up to a preposition, a time word or a clause break."""
    for k in range(sentence_start, before):
        if tokens[k] not in cues.tried_verbs:
            continue
        b = _asker_before(tokens, sentence_start, k, cues)
        start = k + 1
        if start + 1 < before and tokens[start] in cues.objects and tokens[start + 1] == "on":
            start += 2  # "My GP had me on zopiclone"
        elif not (k == sentence_start or tokens[b] in cues.personal) or (
                b > sentence_start and tokens[b - 1][:1].isalnum() and tokens[b - 1] not in cues.boundary):
            continue  # "the logitech one i had broke in a month": a relative clause, its object before it
        while start + 1 < before and (tokens[start] in cues.intensifiers or tokens[start] in cues.quantity_words):
            start += 1  # "I've eaten so much quinoa this year that ... never seeing it again"
        e = _object_end(tokens, start, before, cues)
        named = [t for t in tokens[start:e] if t not in cues.loose]
        if named and e - start <= cues.max_scope_words and not cues.anaphors & set(named):
            return start, e
    return None


def _opening_name(written: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """The name a sentence opens with, its topic, when it is plainly one: "the" and capitalised words, or two or more
    capitalised words ("The Camino Francés we walked in 2018 ..., even bedbugs in Burgos. ... that one is not for us
    anymore" points to the Camino, not to Burgos)."""
    k = sentence_start + int(written[sentence_start].lower() == "the") if sentence_start < before else before
    e = k
    while e < before and (written[e][:1].isupper() or (e > k and written[e][:1].isdigit())) \
            and written[e].lower() not in cues.personal:
        e += 1
    return (k, e) if e < before and e - k >= 1 + int(k == sentence_start) and written[e][:1].islower() else None


def _prescribed(tokens: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """What the asker's doctor gave the asker, in a sentence before an anaphor that names nothing: "Last spring my GP
    prescribed zopiclone, and while I did sleep, I spent every morning foggy ... So, something else." (one of
    ``agent_nouns`` after a possessive, then one of ``prescribing_phrases``, "prescribed" / "gave me" / "put me on",
    then one or two lower-case words up to a clause break)."""
    for k in range(sentence_start + 1, before - 1):
        if tokens[k] not in cues.agent_nouns or tokens[k - 1] not in cues.possessives:
            continue
        start = k + 1 + (_match(tokens, k + 1, cues.prescribing) if k + 1 < before else 0)
        if start == k + 1:
            continue
        e = start
        while e < before and e < start + 2 and tokens[e][:1].isalpha() and tokens[e] not in cues.boundary \
                and tokens[e] not in cues.prepositions and tokens[e] not in cues.loose:
            e += 1
        if e > start:
            return start, e
    return None


def _visited_place(tokens: list[str], written: list[str], sentence_start: int, before: int,
                   cues: _Cues) -> tuple[int, int] | None:
    """Where the asker went, in a sentence before an anaphor that names nothing: "I did two weeks in Antigua years
    ago ..., but it was so full of English-speaking tourists ... Not repeating that mistake." (one of
    ``experience_verbs`` or "spent" / "went" after the asker, then "in" / "to" / "at" and a name within four words)."""
    for k in range(sentence_start, before):
        if not (tokens[k] in cues.experienced or tokens[k] in ("spent", "went")) or not (
                k > sentence_start and tokens[k - 1] in cues.personal):
            continue
        for j in range(k + 1, min(before - 1, k + 5)):
            if tokens[j] in ("in", "to", "at") and written[j + 1][:1].isupper() \
                    and written[j + 1].lower() not in cues.personal:
                e = j + 1
                while e < before and written[e][:1].isupper():
                    e += 1
                return j + 1, e
    return None


def _urged_thing(tokens: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """What someone else urges on the asker earlier in the sentence, for an anaphor with no name to point to: "A
    coworker keeps pushing me to see his chiropractor, but ... I'd rather not go there", "My sister swears by her
    acupuncturist. I'd rather not go there" (one of ``urging_verbs`` not said by the asker): its object after "me to
    VERB" or "by", past a possessive or a determiner, up to a preposition, a time word or a clause break."""
    for k in range(sentence_start, before):
        if tokens[k] not in cues.urging_verbs or (k > sentence_start and tokens[k - 1] in cues.personal):
            continue
        start = k + 1
        while start < before and start < k + 3 and (tokens[start] in cues.intensifiers or tokens[start] == "hard"):
            start += 1  # "pushed very hard for an adjustable-rate mortgage"
        if tokens[start : start + 2] in (["me", "to"], ["us", "to"]):
            start += 3  # "pushing me to see"
        elif tokens[start : start + 2] in (["me", "for"], ["us", "for"]):
            start += 2  # "a contractor quoted us for spray foam insulation"
        elif tokens[start : start + 1] in (["by"], ["for"]):
            start += 1  # "swears by", "pushed for"
        if start < before and (tokens[start] in cues.possessives or tokens[start] in cues.determiners):
            start += 1
        e = _object_end(tokens, start, before, cues)
        named = [t for t in tokens[start:e] if t not in cues.loose]
        if named and e - start <= 4 and not cues.anaphors & set(named) and not cues.personal & set(named):
            return start, e
    return None


def _whence(tokens: list[str], start: int, k: int) -> bool:
    """True when a place phrase of the asker's own opens at ``k``, after at least two words of a scope that starts at
    ``start``: "already own a TP-Link Deco set *from our old flat*" says where the thing came from, not what it is."""
    return k > start + 1 and tokens[k] == "from" and k + 1 < len(tokens) and tokens[k + 1] in ("our", "my")


def _excludes_nothing(tokens: list[str], written: list[str], sentence_start: int, i: int, n: int, end: int,
                      kind: str, cues: _Cues) -> bool:
    """True when the cue at ``i`` (``n`` tokens, of ``kind``) and its forward scope up to ``end`` name no thing to
    leave out: a verb done to something named elsewhere, a fact, a state, a symptom, a rule or doubt asked about,
    what the asker fears for, a direction; each shape below says which."""
    # a subject pronoun that opens the next clause of a run-on text is no object: "w/o niacinamide it makes me ..."
    act_end = end - 1 if end < len(tokens) and tokens[end] in cues.subject_pronouns \
        and _new_clause(tokens, i + n, end, cues) else end
    return bool(((kind == "weak" or _match(tokens, i, cues.wish_negations) == n)  # "don't want to upset him"
         and _negated_action(tokens, written, i + n, act_end, cues))
        or (tokens[i] == "no" and _details_nothing(tokens, sentence_start, i, cues))
        or (kind in ("weak", "strong") and _states_fact(tokens, written, i, n, end, cues))
        or (kind == "strong" and _own_thing(tokens, i + n, cues))
        or (kind == "strong" and _reported(tokens, i, n, cues))
        or (kind == "weak" and _others_event(tokens, written, sentence_start, i, n, end, cues))
        # "he just doesn't want to be alone": the weak "doesn't" opens the wish negation too
        or ((w := _match(tokens, i, cues.wish_negations)) >= n and _wished_state(tokens, i, w, end, cues))
        # "dog refuses his kibble but gobbles treats, should I worry": the refusal is asked about
        or (_match(tokens, i, cues.contrast) == n and _situation_asked(tokens, sentence_start, i, cues))
        # "I never know whether to flip back or stay nocturnal": a doubt, not an exclusion; "landlord doesn't know
        # about my cat", "newcomers don't know anything beyond Monopoly": what someone knows
        or (i + n + 1 < end and tokens[i + n] in cues.knowing_verbs
            and (tokens[i + n + 1] in cues.question_words or tokens[i + n + 1] in ("about", "anything")))
        # "I can't remember drug names", "I don't understand the material": the asker's memory or grasp
        or (i + n < end and tokens[i + n] in cues.memory_verbs)
        # "toddler won't nap without being held", "you can't buy without 20% down": the verb has no object, and
        # "without" is read as a cue of its own
        or (_match(tokens, i, cues.auxiliaries) == n and i + n + 1 < len(tokens) and tokens[i + n + 1] == "without"
            and tokens[i + n] not in cues.loose)
        # "I know GI stasis is serious in rabbits": what the asker knows is a statement, no thing to leave out
        or (kind == "strong" and tokens[i + n - 1] in ("know", "understand")
            and any(tokens[k] in cues.copulas for k in range(i + n + 1, min(end, i + n + 5))))
        # "never finished college", "never had heart issues": the asker's history ("never liked Coldplay" excludes)
        or (tokens[i] == "never" and n == 1 and i + 1 < end and tokens[i + 1] not in cues.preference_verbs
            and (tokens[i + 1] in cues.past_events or (tokens[i + 1].endswith("ed") and len(tokens[i + 1]) > 4)))
        # "I'm 35, no kids, I barely drink", "We're both in our late 20s, no kids yet": a self-description
        or (tokens[i + n - 1] == "no" and i + n < len(tokens) and tokens[i + n] in cues.household_nouns
            and (tokens[i + n + 1 : i + n + 2] == ["yet"] or (
                i > sentence_start and tokens[i - 1] in _COMMA_LIKE
                and any(t[:1].isdigit() for t in tokens[sentence_start:i]))))
        # "No car. Can I get around Crete by bus?", "No kids, no pets.": a sentence of what the asker lacks
        or (tokens[i + n - 1] == "no" and i + n + 1 < len(tokens)
            and all(t == "no" or t == "," or t in cues.means_nouns or t in cues.household_nouns
                    for t in tokens[sentence_start:i])
            and (tokens[i + n] in cues.means_nouns or tokens[i + n] in cues.household_nouns)
            and (tokens[i + n + 1] in _SENTENCE_END or tokens[i + n + 1] in _COMMA_LIKE))
        # "I know nothing about strings": what the asker knows
        or (tokens[i] == "nothing" and i > 0 and tokens[i - 1] in cues.knowing_verbs)
        # "no gym experience really", "no prior knowledge": what the asker lacks
        or (tokens[i + n - 1] in ("no", "without") and bool(cues.lack_nouns & set(tokens[i + n : min(end, i + n + 4)])))
        # "doesn't sound like a dead battery": how a thing seems, no thing to leave out
        or (_match(tokens, i, cues.auxiliaries) == n and i + n + 1 < end and tokens[i + n] in cues.linking_verbs
            and tokens[i + n + 1] in ("like", "as"))
        # "can walk a fair amount but not all day": how long, no thing
        or (tokens[i + n - 1] == "not" and tokens[i + n : i + n + 1] == ["all"] and i + n + 1 < end
            and tokens[i + n + 1] in cues.time_words)
        # "It is not a Triumph, so the British bike books are of limited use": what the asker's thing is
        or (tokens[i] == "not" and n == 1 and i + 1 < end and tokens[i + 1] in ("a", "an")
            and (tokens[sentence_start : i] in (["it", "is"], ["it's"], ["this", "is"], ["mine", "is"], ["it", "was"])))
        # "the old beekeepers there don't like to share": how others behave, one verb after "to"
        or (kind == "weak" and i + n + 3 == end and tokens[i + n] in cues.preference_verbs
            and tokens[i + n + 1] == "to" and i > sentence_start and tokens[i - 1] not in cues.personal)
        # "guides on visiting wine regions without a car": the means the asker lacks, how to go about it
        or (tokens[i + n - 1] == "without" and end - (i + n) <= 2 and tokens[end - 1] in cues.means_nouns)
        # "we don't want to do anything too drastic": a degree, no thing
        or any(tokens[k] in cues.novelty_leads and tokens[k + 1] in cues.excess_words
               for k in range(i + n, min(end, i + n + 4) - 1))
        # "Neither me nor her dad swam competitively": the people of the story, not a thing
        or (tokens[i] == "nor" and any(tokens[j] == "neither" and j + 1 < i and tokens[j + 1] in cues.personal
                                       for j in range(sentence_start, i)))
        or _rule_asked_about(tokens, i, n, end, cues)
        # "Can't afford therapy right now, are there free ... resources?": a cheaper way to the same
        # thing is asked for ("can't afford Disney, cheaper parks?" still excludes the name)
        or (cues.cost_verbs & set(tokens[i : i + n + 1]) and i + n < len(written)
            and written[i + n][:1].islower() and bool(cues.cheaper & set(tokens)))
        # "The walls are plasterboard, not brick": a description corrected, no thing to leave out
        or _corrected_description(tokens, sentence_start, i, n, cues)
        # "the unit won't connect to our home Wi-Fi", "my Blue Yeti won't show up in Audacity": what a thing fails to
        # do, a symptom (the asker's own "I won't connect to public wifi" is a habit, and still excludes)
        or (_match(tokens, i, cues.auxiliaries) == n and i + n < end and tokens[i + n] in cues.function_verbs
            and not (i > sentence_start and tokens[i - 1] in cues.personal))
        # "sterile technique for someone without a flow hood": who the asker is
        or (tokens[i + n - 1] == "without" and i > sentence_start and tokens[i - 1] in cues.someone_words)
        # "the app helps me relax, just not stay asleep": a state it fails to bring, no thing
        or (_match(tokens, i, cues.contrast) == n and i + n < end and tokens[i + n] in cues.linking_verbs
            and written[i + n].islower())  # ("but not Fall Out Boy" names a band)
        # "I would not want to lose the original glass anyway": a loss feared, the thing kept
        or (i + n + 2 < end and tokens[i + n] in cues.wish and tokens[i + n + 1] == "to"
            and (tokens[i + n + 2] in cues.ceasing_verbs or tokens[i + n + 2] in cues.damage_verbs))
        # "she won't give up nights out with her friends", "I will NOT give up taking orders by phone", "I won't quit
        # Mendeley": a negated giving up keeps the thing
        or (tokens[i + n - 1] == "give" and tokens[i + n : i + n + 1] == ["up"])
        or (tokens[i + n : i + n + 2] == ["give", "up"])
        or (_match(tokens, i, cues.auxiliaries) == n and i + n < end and tokens[i + n] in cues.ceasing_verbs)
        # "tracking down parts without getting ripped off on eBay", "without being scammed": a state to avoid,
        # how to go about it
        or (tokens[i + n - 1] == "without" and i + n < end and tokens[i + n] in cues.state_gerunds
            and i + n + 1 < end and tokens[i + n + 1].endswith(("ed", "en")) and written[i + n + 1].islower())
        # "I don't want to drive in Germany anyway": the way of getting about is refused, not the place
        or (_match(tokens, i, cues.wish_negations) == n and tokens[i + n : i + n + 1] == ["to"]
            and i + n + 1 < end and tokens[i + n + 1] in cues.travel_verbs)
        # "i honestly dont want to go": a light verb alone names no thing; "I don't want to break the
        # counter": what the asker fears to damage, not what the answers leave out
        or (_match(tokens, i, cues.wish_negations) == n and end > i + n
            and ((tokens[end - 1] in cues.light_verbs and all(t == "to" for t in tokens[i + n : end - 1]))
                 or (tokens[i + n] == "to" and i + n + 1 < end and tokens[i + n + 1] in cues.damage_verbs)))
        # "the machine keeps skipping stitches", "sewing machine skipping stitches": a symptom
        or (tokens[i].endswith("ing") and i > 0 and (tokens[i - 1] in cues.devices
                                                  or tokens[i - 1] in cues.onset_verbs))
        # "python script runs fine locally but not in docker": where the problem shows, a condition of the question
        or (i + n < end and tokens[i + n - 1] == "not" and tokens[i + n] in cues.prepositions
            and "but" in tokens[max(sentence_start, i - 1) : i + n]
            and any(tokens[j] in cues.working and j > sentence_start and tokens[j - 1] not in cues.copulas
                    for j in range(sentence_start, i)))  # ("Any airline is fine, but not with Ryanair" excludes)
        # "not overwatering as far as I can tell": a hedge marks what the asker observed
        or any(tokens[j : j + 3] == ["as", "far", "as"] and j + 3 < len(tokens) and tokens[j + 3] in cues.personal
               for j in range(i + n, min(len(tokens), end + 1)))
        # "Outlook no longer syncing calendar with iPhone": a change of state, whose "scope" would start at "longer"
        or (tokens[i + n - 1] == "no" and i + n < len(tokens) and tokens[i + n] in cues.ceased)
        # "I don't see any bugs on them", "didn't notice anything odd": what the asker observed, no thing to leave out
        or (i + n + 1 < len(tokens) and tokens[i + n] in cues.observation and tokens[i + n + 1] in ("any", "anything"))
        # "he's not tall enough yet": how someone is
        or (i + n + 1 < len(tokens) and tokens[i + n + 1] == "enough")
        # "he can't cope with standing in long queues": a difficulty the question is about
        or (i + n + 2 < end and tokens[i + n] in cues.coping_verbs
            and _gerund(tokens[i + n + 1 + int(tokens[i + n + 1] == "with")], cues))
        # "I don't want anything that isn't vegan": the negations cancel, vegan is asked for
        or (i + n + 2 < end and _negated_relative(tokens, i + n, cues))
        # (a shouted "NOT" too: "they're like NOT gamers at all" says how the in-laws are)
        or ((kind == "weak" or _match(tokens, i, cues.contrast) == n or written[i : i + n] == ["NOT"])
            and _negated_state(tokens, written, i, n, end, cues))
        or (kind == "weak" and (_described(tokens, written, i, n, end, cues)
                                or _listed_state(tokens, written, i, n, end, cues)))
        or _wished_away_action(tokens, written, i, n, end, cues)
        or _went_without(tokens, i, n, end, cues)
        or _receives_nothing(tokens, i, n, cues)
        or _feels_nothing(tokens, i, n, end, cues)
        or _unneeded(tokens, i, n, end, cues)
        or _idle_negation(tokens, i, n, end, sentence_start, cues)
        or _findings(tokens, sentence_start, i, cues)
        # "knee pain walking down stairs but not up": a direction, no thing
        or (end > i + n and all(t in cues.particles or t in cues.prepositions
                                for t in tokens[i + n : end]))
        # "Not going back there": a movement pointing back, no thing ("no swimming" is one)
        or (end > i + n + 1 and _gerund(tokens[i + n], cues) and all(
            t in cues.particles or t in cues.prepositions or t in cues.loose
            for t in tokens[i + n + 1 : end]))
        # "phone says no SIM card detected": a message the asker reports
        or (tokens[i + n - 1] == "no" and cues.status & set(tokens[i + n + 1 : end]))
        or _possession_goes_on(tokens, sentence_start, i, n, cues)
        # "flowering but no fruit forming": an absence reported (a weak "no" is silenced before)
        or (n > 1 and _reports_absence(tokens, written, i + n - 1, cues)))


def _complained_subject(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> tuple[int, int] | None:
    """The subject of a complaint that "so" at ``i`` turns into a request for something else: "ryanair lost my
    business after the bag charge so show me other airlines", "king edward got blight last year so another variety",
    "comcast customer service is a joke so what else is there".  The subject opens its clause, one to three words
    before a verb (a copula, an auxiliary, one of ``complaint_verbs`` or an -ed word), and is no determiner, pronoun
    or one of ``constraint_nouns`` ("money is tight so other options" tells a limit); one of ``else_words`` or
    ``other_words`` follows "so" within five words."""
    if tokens[i] not in cues.consequence or i - sentence_start < 3 \
            or not any(t in cues.else_words or t in cues.other_words for t in tokens[i + 1 : i + 6]) \
            or any(_match(tokens, j, cues.anaphoric) for j in range(i + 1, min(i + 6, len(tokens)))):
        return None  # "so we'd like somewhere else": the anaphoric cue finds what it points to
    cs, depth = sentence_start, 0  # the clause's start; a bracket's commas ("(2 kids + a dog)") are the bracket's
    for j in range(sentence_start, i):
        depth += (tokens[j] == "(") - (tokens[j] == ")")
        if depth == 0 and tokens[j] in _COMMA_LIKE:
            cs = j + 1
    v = next((j for j in range(cs + 1, i)
              if tokens[j] in cues.copulas or _match(tokens, j, cues.auxiliaries) or tokens[j] in cues.complaint_verbs
              or (len(tokens[j]) > 4 and tokens[j].endswith("ed"))), None)
    if v is None:
        return None
    start = max(cs, v - 3)  # a run of keywords before it: "internet providers zip 19104 comcast customer service is"
    subject = tokens[start:v]
    if start > sentence_start and (tokens[start - 1] in cues.determiners or tokens[start - 1] in cues.possessives
                                   or tokens[start - 1] in cues.personal or tokens[start - 1][:1].isalpha()
                                   and start > cs and not any(c.isdigit() for c in tokens[start - 1])):
        return None  # "my old laptop battery died": the subject's determiner stands before the three words
    if subject[0] in cues.determiners or subject[0] in cues.personal or subject[0] in cues.anaphors \
            or subject[0] in cues.interrogatives or subject[0] in cues.boundary or subject[0] in cues.possessives \
            or any(t in cues.constraint_nouns or not t[:1].isalpha() for t in subject) \
            or all(t in cues.loose for t in subject):
        return None
    return start, v


def _experienced_names(tokens: list[str], written: list[str], sentence_start: int, i: int,
                       cues: _Cues) -> tuple[int, int] | None:
    """The names of what the asker has done, seen or owns, when ``i`` asks for something new: "we did Lisbon last year
    and loved it, so somewhere new this time", "we own Catan, Ticket to Ride and Carcassonne, want new ones", "tried
    Tidy Cats, the whole flat stank. want different suggestions" (the sentence before counts too).  The names are
    capitalised words (with "and", commas and small words between them) right after one of ``experience_verbs``
    whose subject is the asker (or none: "tried X"); lower-case things ("we did the update") are left alone."""
    if tokens[i] not in cues.novelty or i == 0 or not (
            tokens[i - 1] in cues.novelty_leads or cues.wish & set(tokens[max(sentence_start, i - 3) : i])):
        return None
    ends = [j for j in range(sentence_start - 1, -1, -1) if tokens[j] in _SENTENCE_END]
    begin = ends[1] + 1 if len(ends) > 1 else 0  # this sentence and the one before
    for k in range(i - 1, begin - 1, -1):
        if tokens[k] not in cues.experienced:
            continue
        first = sentence_start if k >= sentence_start else next(
            (j + 1 for j in range(k - 1, -1, -1) if tokens[j] in _SENTENCE_END), 0)
        b = _asker_before(tokens, first, k, cues)
        if not (k == first or tokens[b] in cues.personal or (b > first and tokens[b - 1] in cues.personal)):
            continue  # someone else's: "my friend stayed at the Hilton"
        start = k + 1 + int(k + 1 < len(tokens) and tokens[k + 1] in cues.experience_links)
        if tokens[k] == "been" and start < len(tokens) and _gerund(tokens[start], cues):
            return None  # "I've been GMing for six years": an activity, not a thing had
        e = start
        while e < len(written) and (written[e][:1].isupper() or (
                e > start and e + 1 < len(written) and written[e + 1][:1].isupper()
                and (tokens[e] in ("and", ",", "&", "of", "to", "the") or tokens[e] in cues.stopwords))):
            e += 1
        if e > start and e - start <= 2 * cues.max_scope_words:
            return start, e
        return None
    return None


def _told_wish(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the wish at ``i`` is what the asker asks how to tell someone ("how to tell my parents i dont want to
    go to university"), or someone else's wish that stopped ("my 8yo doesnt want to go to school anymore"): a
    situation asked about, not a thing to leave out."""
    before = tokens[max(sentence_start, i - 6) : i]
    if any(t in cues.telling_verbs for t in before) and _asks_fact(tokens, sentence_start, i, cues):
        return True
    end = _sentence_end(tokens, i)
    return i > sentence_start and tokens[i - 1] not in cues.personal and tokens[i - 1] not in cues.possessives \
        and any(t in cues.ceased for t in tokens[i:end]) \
        and not _rule(tokens, i, i + 3, cues)


def _corrected_description(tokens: list[str], sentence_start: int, i: int, n: int, cues: _Cues) -> bool:
    """True when "not" at ``i`` follows a comma after a sentence that describes something: a determiner, one or two
    words and a copula open it ("The walls are plasterboard, not brick"; "museums in Paris, not art museums" and "I
    want a hotel, not a hostel" ask), or one of ``situation_pronouns`` does ("It's got 8GB RAM and I think still the
    original hard drive, not an SSD"), or the asker saying who they are ("I'm an accountant, not an engineer")."""
    if tokens[i + n - 1] != "not" or i < 2 or tokens[i - 1] != ",":
        return False
    head = tokens[sentence_start : i - 1]
    identity = head[:1] == ["i'm"] or head[:2] == ["i", "am"]  # "I'm an accountant, not an engineer": who asks
    if identity and len(head) <= 5 and head[1 + (head[0] == "i")] in ("a", "an") and tokens[i + n : i + n + 1] \
            in (["a"], ["an"]):
        return True
    if len(head) < 4 or head[0] in cues.personal or any(t in _COMMA_LIKE for t in head):
        return False
    return head[0] in cues.situation_pronouns or (
        head[0] in cues.determiners and any(t in cues.copulas and not t.endswith("n't") for t in head[2:4]))


def _names_ending(tokens: list[str], written: list[str], start: int, stop: int, cues: _Cues) -> int | None:
    """Where the names that end a subject begin, one or two lower-case words after them allowed ("I'm in New Zealand
    and Bagpipes Galore stopped shipping here", "also Nutrena is mid", "TWI courses are not required", "now that Wool
    and Cotton closed down"), or None when they do not follow the subject's start, a comma or one of ``name_joints``
    ("My Dell battery is mid": the asker's own thing; "the water was way too cold")."""
    def begin(k: int) -> int:
        while k > start:
            if written[k - 1][:1].isupper() and tokens[k - 1] not in cues.possessives \
                    and tokens[k - 1] not in cues.personal and tokens[k - 1] not in cues.determiners \
                    and tokens[k - 1] not in cues.anaphors:  # not "The water", "It"
                k -= 1
                continue
            j = k - 1  # lower-case words inside a title: "Storey's Guide to Raising Dairy Goats", "Gone with the Wind"
            while j > start and (tokens[j] in cues.name_links or tokens[j] in cues.title_links):
                j -= 1
            if j == k - 1 or not written[j][:1].isupper() or tokens[j] in cues.personal:
                return k
            k = j + 1
        return k

    def after_joint(k: int) -> bool:
        return k == start or tokens[k - 1] in cues.name_joints or (tokens[k - 1] in cues.determiners and k - 1 == start)

    def noun(k: int) -> bool:
        return k - start >= 2 and written[k - 1].isalpha() and written[k - 1].islower() \
            and tokens[k - 1] not in cues.personal and tokens[k - 1] not in cues.anaphors \
            and tokens[k - 1] not in cues.objects and tokens[k - 1] not in cues.loose

    end = stop - int(noun(stop))
    end -= int(end < stop and noun(end) and written[end - 2][:1].isupper())  # "Olympic gas kilns over my dead body"
    k = begin(end)
    if k == end or (k == start and end - k == 1 and _common_word(written, k, cues)):
        return None  # "Maybe they were too small": no name
    # a name with "and" in it opens after a joining word ("now that Wool and Cotton"), a list's last name after "and"
    if k - 1 > start and tokens[k - 1] == "and" and written[k - 2][:1].isupper() and after_joint(begin(k - 1)):
        return begin(k - 1)
    return k if after_joint(k) else None


def _meta_subject(tokens: list[str], start: int, stop: int, cues: _Cues) -> int | None:
    """Where the thing starts in a subject that names the documents about it ("Documents about X", "Items that focus
    on X", "Reports on X", "any studies on X"), or None when the subject is no such phrase."""
    k = start
    while k < stop and tokens[k] in cues.determiners:
        k += 1
    if k >= stop or tokens[k] not in cues.meta_nouns:
        return None
    link = _match(tokens, k + 1, cues.meta_links)
    return k + 1 + link if link and k + 1 + link < stop else None


def _meta_lead(tokens: list[str], start: int, cues: _Cues) -> int:
    """Where the words naming the documents end before a scope at ``start`` begin ("any documents about" before
    "Silicon Valley Bank"): they leave the positive text with the exclusion.  ``start`` when there are none."""
    for link in cues.meta_links:
        k = start - len(link)
        if k > 0 and tuple(tokens[k:start]) == link and tokens[k - 1] in cues.meta_nouns:
            k -= 1
            while k > 0 and tokens[k - 1] in cues.determiners:
                k -= 1
            return k
    return start


def _weak_names_nothing(tokens: list[str], written: list[str], sentence_start: int, i: int, n: int,
                        cues: _Cues) -> bool:
    """True when the weak cue at ``i`` (``n`` tokens) is one of a few fixed shapes that refuse no thing: a degree, an
    event wished away, how soon, the asker's means or situation, what things tried did, a topic's title, "whether
    or not", "need not", a gate's or a query language's word."""
    k = i + n
    if k + 1 < len(tokens) and tokens[k] in ("that", "so", "too", "very") \
            and (tokens[k + 1] in cues.state_adjectives or tokens[k + 1].endswith(_ADJECTIVE_SUFFIXES)) \
            and (k + 2 == len(tokens) or not tokens[k + 2][:1].isalpha() or tokens[k + 2] in ("but", "and")):
        return True  # "newer papers argue it wasn't that catastrophic": a degree, no thing
    if tokens[i] == "not" and i > 0 and tokens[i - 1] == "to" and k < len(tokens) \
            and tokens[k].isalpha() and tokens[k] not in cues.content_verbs:
        return True  # "I just want it to not lose my stuff": an event wished away ("to not include ads" excludes)
    if tokens[i] in ("not", "no") and tokens[k : k + 2] == ["in", "a"] and k + 3 < len(tokens) \
            and {tokens[k + 2], tokens[k + 3]} & {"rush", "hurry"}:
        return True  # "Not in a huge rush but I'd like it live by March": how soon, no thing
    if tokens[i] == "no" and any(tokens[j : j + 2] in (["until", "now"], ["so", "far"], ["as", "yet"])
                                 for j in range(k + 1, min(k + 4, len(tokens)))):
        return True  # "single-member LLC, no employees until now": the asker's situation
    if tokens[k : k + 2] == ["afford", "to"]:
        return True  # "can't afford to stop working for a year": the asker's means, no thing
    if tokens[i : i + 2] == ["none", "of"] and k + 1 < len(tokens) and tokens[k] in cues.anaphors \
            and (tokens[k + 1].endswith("ed") or tokens[k + 1] in _REPORTED_VERBS
                 or (tokens[k + 1].isalpha() and tokens[k + 1] not in cues.loose and tokens[k + 1] not in cues.ignore
                     and tokens[k + 1] not in cues.prepositions and tokens[k + 1] not in cues.boundary
                     and tokens[k + 1] not in ("either", "though", "thx"))):
        return True  # "tried a few apps and none of them stuck", "none of them withhold any tax": what they do
    if tokens[i] == "not" and i > 0 and tokens[i - 1] == "for" and k < len(tokens) and _gerund(tokens[k], cues):
        return True  # "penalised in Spain for not registering sooner": a reason, no thing
    if tokens[sentence_start : sentence_start + 2] == ["title", ":"]:
        return True  # "Title: Vitamin D supplementation without fracture benefit": a topic's title is the need
    if tokens[i] == "not" and (tokens[max(0, i - 2) : i] == ["whether", "or"]
                               or (i > 0 and tokens[i - 1] == "need")):
        return True  # "whether or not calcium was given", "a document need not be a trial report": no thing refused
    if written[i].isupper() and len(written[i]) > 2 and (
            tokens[i] == "nor" or (i + 1 < len(tokens) and written[i + 1].isupper()
                                   and tokens[i + 1] in cues.code_keywords)):
        return True  # "XOR vs NOR gate", "WHERE NOT EXISTS": a gate's or a query language's word
    return False


def _time_passing(tokens: list[str], at: int, cues: _Cues) -> bool:
    """True when a wish's object at ``at`` is a stretch of time that is to pass ("another year to go by", "the whole
    summer to be wasted"): up to three words, one of them a time word, then "to" and a verb."""
    to = next((j for j in range(at, min(at + 4, len(tokens))) if tokens[j] == "to"), None)
    return to is not None and to > at and to + 1 < len(tokens) and tokens[to + 1].isalpha() \
        and any(re.sub(r"s$", "", t) in cues.time_words for t in tokens[at:to])


def _asked_no(tokens: list[str], cue: int, end: int, cues: _Cues) -> bool:
    """True when the cue "no" at ``cue`` (ending at ``end``) is asked with a courtesy word before it or one to three
    words after it ("so please no Mitogen answers", "my wife said no Cascadia pls"): a request, even after a contrast.
    The scopes and the guard's decision both read a cue's contrast; this keeps their exception one."""
    if tokens[cue] != "no":
        return False
    if cue > 0 and tokens[cue - 1] in cues.courtesy:
        return True
    j = end
    while j < len(tokens) and j < end + 3 and _inside(tokens[j], cues) and tokens[j] not in cues.courtesy:
        j += 1
    return end < j < len(tokens) and tokens[j] in cues.courtesy


def _new_clause(tokens: list[str], start: int, at: int, cues: _Cues, written: list[str] | None = None) -> bool:
    """True when the word at ``at``, after a scope's first words, opens a clause of its own in a run-on text:
    "my" / "our" before a verb within four words ("games like minecraft but not brawl stars my little brother wont
    stop playing it", "no nuts my son is allergic", "skip the hoka arahi my last pair gave me shin splints"; not
    "excluding my sister's favourite band"); lower-case "the" and one or two nouns before a copula, an auxiliary or
    a verb with an object pronoun ("not da michele the queue is crazy", "no ginger beer the mom to be hates it"; not
    "not set in the 1930s that are about poverty", "The Rest Is History"); a subject pronoun before a finite verb
    ("w/o niacinamide it makes me flare up"; not "cry it out", "not make it worse", "without anything it would
    need")."""
    if at <= start or at + 1 >= len(tokens):
        return False
    nxt = tokens[at + 1]
    if tokens[at] in cues.subject_pronouns:
        return _inside(tokens[at - 1], cues) and tokens[at - 1] not in cues.prepositions \
            and tokens[at - 1] not in cues.relative and _finite(nxt, cues)
    if tokens[at] == "the":
        if written is not None and written[at + 1][:1].isupper():
            return False
        for j in range(at + 2, min(at + 5, len(tokens))):
            if not _inside(tokens[j - 1], cues) or tokens[j - 1] in cues.relative \
                    or (tokens[j - 1] in cues.prepositions and tokens[j - 1 : j + 1] != ["to", "be"]) \
                    or tokens[j - 1] in cues.personal or tokens[j - 1] in cues.subject_pronouns:  # ("mom to be")
                return False
            if tokens[j] in cues.copulas or _match(tokens, j, cues.auxiliaries) \
                    or (j + 1 < len(tokens) and tokens[j + 1] in cues.objects and tokens[j].endswith("s")
                        and not tokens[j].endswith("ss")):
                return True
        return False
    return tokens[at] in ("my", "our") and any(
        tokens[j] in cues.copulas or _match(tokens, j, cues.auxiliaries) or tokens[j] in ("wont", "cant", "dont")
        or (j + 1 < len(tokens) and tokens[j + 1] in ("me", "us"))
        for j in range(at + 1, min(at + 5, len(tokens))))


def _finite(token: str, cues: _Cues) -> bool:
    """True when ``token``, after a subject pronoun, reads as its finite verb: "it makes", "she hates", "it tasted",
    "i never", "it is" (not "it out", "it worse", "it to")."""
    return token in cues.copulas or token in cues.finite_verbs or (
        token[:1].isalpha() and token not in cues.boundary and token not in cues.particles
        and ((token.endswith("s") and not token.endswith("ss") and len(token) > 3) or token.endswith("ed")))


def _split_close(tokens: list[str], cue: int, end: int, cues: _Cues) -> int:
    """Where the closing words of a split cue end ("keeping Robert Boyle *out of the answer*"): they leave the
    positive text with the cue and its scope.  ``end`` when the scope at ``end`` closes no split cue."""
    return end + _match(tokens, end, cues.split.get(tokens[cue], ())) if cue < end else end


def _names_only(written: list[str], start: int, end: int) -> bool:
    """True when ``written[start:end]`` is a list of names: each word capitalised or holding a capital ("AOT, Death
    Note"), joined by commas, "and" or "or"."""
    words = [w for w in written[start:end] if w not in (",", "and", "or")]
    return bool(words) and all(w[:1].isupper() or any(c.isupper() for c in w[1:]) for w in words)


def _rejected(tokens: list[str], written: list[str], i: int, cues: _Cues) -> tuple[int, int] | None:
    """The names a rejection at ``i`` turns down: one of ``rejections`` standing alone right after a question mark
    or a comma, after the names that end the fragment before it ("stroller recs, UPPAbaby? no thanks, way too
    heavy", "someone recommended Aussie Home Loans, nope"; not "is it worth it? nope, the fee ...", no name)."""
    m = _match(tokens, i, cues.rejections)
    if not m or i < 2 or tokens[i - 1] not in ("?", ",", ":") or (
            tokens[i] != "been" and i + m < len(tokens) and tokens[i + m][:1].isalnum()):
        return None  # a rejection stands alone ("nope,"; not "pass the salt", "no way to know"), but "been there
        # like 6 times" goes on
    ps = _fragment_start(tokens, i)
    if i - 1 - ps == 1 and re.fullmatch(r"[a-z][\w.+#-]*", written[ps]) and tokens[ps] not in cues.loose \
            and tokens[ps] not in cues.sentence_starts and not _adverb(tokens[ps], cues):
        return ps, ps + 1  # a name typed in lower case alone before its rejection: "... for coding. logitech? pass."
    return _fragment_names(written, ps, i) or _named_object(written, ps, i - 1, cues)


def _fragment_start(tokens: list[str], i: int) -> int:
    """Where the fragment before the punctuation mark at ``i - 1`` starts: after the sentence end or comma before it."""
    return max((j + 1 for j in range(i - 1) if tokens[j] in _SENTENCE_END or tokens[j] in _COMMA_LIKE), default=0)


def _fragment_names(written: list[str], ps: int, i: int) -> tuple[int, int] | None:
    """The fragment from ``ps`` (:func:`_fragment_start`) to the punctuation mark at ``i - 1`` when it is one to three
    names ("AirAsia? never again.", "UPPAbaby? no thanks", "Crunchyroll, been there done that"), else None."""
    if 0 < i - 1 - ps <= 3 and _names_only(written, ps, i - 1):
        return ps, i - 1
    if 2 < i - 1 - ps <= 5 and _linked_name(written[ps : i - 1], _cues()):
        return ps, i - 1  # one title with its links: "Wheel of Time? No thanks"
    return None


def _named_object(written: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """The last names before ``before`` in the sentence, a list of them joined by "and" / "or" included, for an
    anaphor whose sentence opens with no named subject: "we did the Vatican last trip so give it a miss",
    "Everyone writes about the Golden Circle and the Blue Lagoon, but we want to skip both".  A sentence's first
    word is no name (its capital says nothing), nor is "I"."""
    first = sentence_start + 1
    aside = _asides(written, sentence_start, before)

    def name(k: int) -> bool:  # "Borrowdale", "5K"; not a holiday ("aquafaba last Easter, ... hear about it")
        word = written[k] if k >= first and k not in aside else ""
        model = word[:1].isdigit() and k - 1 >= first and written[k - 1][:1].isupper()  # "a Roomba 692"
        numbered = word.isdigit() and k + 1 < len(written) and written[k + 1][:1].isupper()  # "7 Wonders Duel"
        return (word[:1].isupper() or (word[:1].isdigit() and any(c.isupper() for c in word)) or model or numbered) \
            and word.lower() not in cues.personal and word.lower() not in cues.time_words \
            and not (word.isupper() and word.lower() in cues.intensifiers)  # "kinesio tape worked SO well"

    end = before
    while end > first and not name(end - 1):
        end -= 1
    if end <= first:
        return _first_word_name(written, sentence_start, before, cues)
    start, listed = end - 1, False
    while True:
        if name(start - 1):
            start -= 1
            continue
        if start - 2 >= first and written[start - 1] in cues.name_links and name(start - 2):  # "Couch to 5K"
            start -= 2
            continue
        k = start - 1 - int(start - 1 >= first and written[start - 1].lower() in cues.determiners)  # "and the Y"
        if k >= first and written[k].lower() in ("and", "or") and (
                name(k - 1) or (k - 1 == sentence_start and _first_word_name(written, sentence_start, before, cues))):
            start = k - 1  # "Razer and Logitech both broke on me ...": a list may open the sentence
            listed = True
            continue
        if listed and start - 2 >= first and written[start - 1] == "," and name(start - 2):
            start -= 2  # "We own Patchwork, Jaipur and 7 Wonders Duel so not those": commas before the "and"
            continue
        if start > sentence_start and written[start - 1].lower() in cues.personal \
                and written[start - 1].lower() not in cues.objects:  # "handed me The Professor Is In" names it
            # the asker's own ("so my GP has told me to stay clear of it"): who speaks, not what is left out
            return _named_object(written, sentence_start, start - 1, cues)
        return start, end


def _asides(written: list[str], sentence_start: int, before: int) -> set[int]:
    """Positions before ``before`` inside an aside whose names an anaphor after it does not point to: a parenthesis
    ("... (calls drop in the kitchen, and I've lived on Wi-Fi calling), so I'm switching away from them") or a
    relative clause set off by a comma ("..., which cost us hours during CD deadlines. Not going back to that.",
    "after the migration fiasco, where deadlines failed to sync to Outlook, the partners won't hear of it again")."""
    inside, opened = set(), None
    for k in range(sentence_start, before):
        w = written[k].lower()
        if w == "(" or (w in ("which", "where") and k > sentence_start and written[k - 1] == ","):
            opened = k
        elif opened is not None and (w == ")" or (w == "," and written[opened] != "(")):
            inside.update(range(opened, k))
            opened = None
    if opened is not None and written[opened] != "(":  # the anaphor inside a parenthesis may point within it
        inside.update(range(opened, before))
    return inside


def _first_word_name(written: list[str], sentence_start: int, before: int, cues: _Cues) -> tuple[int, int] | None:
    """The sentence's first word as the one name an anaphor can point to, when no other word of the sentence is a
    name: capitalised, no function word, and the word after it written lower-case ("Java feels super verbose to me
    and I tried it in college and hated it", "Geico raised our rate twice so they're off the table"; not "Seen
    Schitt's Creek already", nor "Honestly I hated it", nor "Between the fee and the apps it costs ...", nor "Two
    years ago ibuprofen gave me ...", nor a word the question writes in lower case elsewhere: "Coverage in my
    building has been awful ..., so I'm switching away from them. ... how do I check real coverage?")."""
    k = sentence_start
    # a question typed all in lower case capitalises no name: "... from abroad? nordvpn kept getting blocked so i'm
    # done with them" (a complaint after it, so not "hey", "yo", "moving")
    lower = not any(c.isupper() for w in written for c in w)
    if k + 1 >= before or not written[k + 1][:1].islower() or not (
            written[k][:1].isupper() or (lower and written[k + 1] in cues.complaint_verbs)):  # "nordvpn kept ..."
        return None
    return None if _common_word(written, k, cues) else (k, k + 1)


def _common_word(written: list[str], k: int, cues: _Cues) -> bool:
    """True when the capitalised word at ``k`` (a sentence's first) is a common word, not a name: one the question
    also writes in lower case, a function word, an adverb, a cue ("Maybe they were too small in autumn, maybe the
    cold")."""
    low = re.sub(r"'s$", "", written[k].lower())  # "Logitech's broke after a week"
    return not low.isalpha() or low in written[:k] + written[k + 1 :] or low in cues.loose or low in cues.personal \
        or low in cues.sentence_starts \
        or low in cues.interrogatives or low in cues.clause_words or low in cues.boundary \
        or low in cues.determiners or low in cues.prepositions or low.endswith(cues.adverb_suffix) \
        or low in cues.time_determiners \
        or low in cues.wish or low in cues.preference_verbs or bool(_match([low], 0, cues.weak)) \
        or bool(_match([low], 0, cues.strong))


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
    # "Our Roomba was overpriced garbage": the possessive opens the sentence, the name is the thing
    opens = int(len(subject) > 1 and (subject[0].lower() in cues.possessives or subject[0].lower() in cues.determiners))
    return sentence_start + opens, copula


def _scoped_tokens(question: str) -> tuple[list[str], list[tuple[int, int, int, int]], set[int]]:
    """The question's tokens as written, its :func:`exclusion_scopes` and the token positions inside them."""
    scopes = exclusion_scopes(question)
    return _read(question)[0], scopes, {j for _, _, s, e in scopes for j in range(s, e)}


_QUALITY_SUFFIXES = ("ive", "ous", "ful", "able", "ible", "less", "ish", "ated", "ical")  # "complex and expensive"
_NUMBER_WORDS = frozenset(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                           "twelve", "fifteen", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty",
                           "ninety", "hundred"))
# past forms that follow "none of them" in a report of things tried ("none of them stuck / worked / lasted")
_REPORTED_VERBS = frozenset(("stuck", "fit", "did", "were", "was", "had", "made", "got", "went", "came", "held", "kept",
                             "felt", "ran", "seemed", "work", "works", "help", "helps", "last", "lasts", "fits"))
_ADJECTIVE_SUFFIXES = _QUALITY_SUFFIXES + ("ic", "al", "ant", "ent", "ary")  # "not that catastrophic", "so crucial"


def _joins_things(lower: list[str], j: int, end: int, cues: _Cues) -> bool:
    """True when "and" at ``j`` joins two things, not two numbers or qualities: "Cancun and Tulum", "onion and
    garlic"; not "kids 8 and 11", "too complex and expensive" (a number or an adjective after it)."""
    after = lower[j + 1] if j + 1 < end else ""
    return bool(after) and not (after[:1].isdigit() or after in cues.state_adjectives
                                or after.endswith(_QUALITY_SUFFIXES))


def _items(lower: list[str], start: int, end: int, cues: _Cues) -> list[list[str]]:
    """The scope's tokens split into excluded items at "or" / "as well as" / "and" ("Cancun and Tulum are off the
    table": blind authors always label the two apart, and each NOT leaf then demotes the documents that name either),
    and in a list with commas (:func:`_comma_list`: "without mushrooms, olives and anchovies") at the commas too; a
    fixed pair ("mac and cheese", ``binomials``) stays one item."""
    items, current, j = [], [], start
    commas = "," in lower[start:end]
    while j < end:
        binomial = _match(lower, j, cues.binomials)
        if binomial and j + binomial <= end:  # "without mac and cheese": one thing
            current.extend(lower[j : j + binomial])
            j += binomial
            continue
        n = _match(lower, j, cues.lists) or int((lower[j] == "and" and _joins_things(lower, j, end, cues))
                                                or (commas and lower[j] in (",", "and")))
        if n and j + n <= end:
            items.append(current)
            current, j = [], j + n
            continue
        current.append(lower[j])
        j += 1
    items.append(current)
    # a particle alone is no thing ("Cry it out didn't work for us" leaves "out" once "it" points back)
    return [i for i in items if i and not all(w in cues.particles for w in i)]


def _act_asked(tokens: list[str], written: list[str], sentence_start: int, i: int, n: int, cues: _Cues) -> bool:
    """True when the cue at ``i`` names the act of leaving out as the topic, or a requirement, not a thing to leave
    out: the act asked about ("when to exclude outliers", "alternatives to excluding points", "reading material on
    filtering out bot traffic"), an operation's
    filter ("SQL query excluding rows where ...", "Excel formula to sum a column excluding hidden rows"; not before a
    name: "a query builder excluding Knex"), a comparison ("results with and without the excluded cases"), and
    "without" after a negation in its clause ("a candidate cannot be screened without written consent": a must)."""
    if tokens[i] in cues.act_verbs and any(i >= len(lead) and tuple(tokens[i - len(lead) : i]) == lead
                                           for lead in cues.act_leads):
        return True
    if tokens[i] in cues.act_verbs and i > 0 and tokens[i - 1] in cues.determiners:
        return True  # "the excluded cases": a participle naming a kind, no cue
    if tokens[i] in cues.act_verbs and i + n < len(written) and not written[i + n][:1].isupper() \
            and cues.operation_words & set(tokens[max(sentence_start, i - 5) : i]):
        return True
    if tokens[i] != "without":
        return False
    if i >= 2 and tokens[i - 2 : i] == ["with", "and"]:
        return True
    # a verb negated ("cannot", "won't let me ... without"), not a coordinated exclusion ("not X and without Y")
    start = _clause_start(tokens, sentence_start, i, cues)
    return any(t in cues.ability_negations or t == "never" or t.endswith("n't") for t in tokens[start:i]) \
        and not any(t in ("and", "or", "nor") for t in tokens[start:i])


def _states_of_subject(tokens: list[str], sentence_start: int, i: int, cues: _Cues) -> bool:
    """True when the negation at ``i`` states a fact about a third-person subject: "no" after a possession verb
    ("Mercury and Venus have no moons"; not in a relative clause, a property asked for: "recipes that have no dairy";
    not the asker's own: "I have no interest in ...") or "never" after a form of "be" ("Ethiopia, which was never
    colonised"), or before it after "this" / "it" / "that" ("in python this never was a problem")."""
    if i == sentence_start:
        return False
    start = _clause_start(tokens, sentence_start, i, cues)
    # a relative clause asks for a property; "the fact that ...", "I heard that ..." state one
    relative = any(tokens[j] in cues.relative and not (j > 0 and tokens[j - 1] in cues.complement_heads)
                   for j in range(start, i))
    if tokens[i] == "no" and tokens[i - 1] in cues.possession:
        return not (relative or set(tokens[max(start, i - 4) : i - 1]) & cues.personal)  # the verb's subject
    if tokens[i] == "never" and i + 1 < len(tokens) and tokens[i + 1] in ("is", "was", "has") \
            and tokens[i - 1] in ("this", "it", "that"):
        return True  # "in python this never was a problem": what a thing is like
    return tokens[i] == "never" and tokens[i - 1] in ("is", "are", "was", "were", "been")
