"""Deterministic generator of the bundled logical-retrieval demo dataset.

The corpus is a small synthetic encyclopedia of four entity kinds (museums,
films, novels, restaurants).  Every document is drawn from a set of
*attributes* -- its kind, one city, one to three kind-specific types
(collection, genre, theme or cuisine) and up to two features -- and rendered
into text.  Relevance is computed from the attribute sets with exact set
semantics, never from the text, so the text can disagree with the ground
truth the way real articles do (see ``Noise``):

* about 13% of (document, attribute) pairs are written only with a
  paraphrase that shares no word with the query term ("fish and shellfish"
  for *seafood*, "the Dutch capital" for *Amsterdam*): a BM25 leaf misses
  those relevant documents, and a ``NOT`` leaf lets those documents through;
* about 8% of the documents contain one contrastive or negated sentence
  about an attribute they do *not* have ("It has never held a Michelin
  star.", "It was later adapted into a film."): a ``NOT`` leaf penalises them
  although they qualify, a positive leaf matches them although they do not;
* document length (a fifth are padded with 8-24 neutral sentences) and term
  repetition (one to three mentions) vary, so that BM25 score scales differ
  between leaves and documents.

The kind is always written literally, once.  Apart from the recorded noise a
query term's words occur exactly in the documents having the attribute
(``_audit``); ``noise_records`` exposes the per-document record.

Queries combine attribute terms with ``AND`` / ``OR`` / ``NOT`` following the
QUEST templates plus three multi-negation templates.  For every query the
generator also makes sure the corpus holds *near misses*: documents that
satisfy every condition but one.  For a negated term those documents have the
excluded attribute, which plain BM25 over the query text rewards and logical
retrieval penalises.

Run ``python scripts/make_demo_data.py [--output DIR]`` to regenerate (default: the
bundled ``logical_pyserini/data/demo``).  The script lives outside the package:
an installed ``logical_pyserini`` only carries the generated files.
"""

from __future__ import annotations

import argparse
import json
import random
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Union

# ---------------------------------------------------------------------------
# Vocabulary and templates are data (``demo_data/vocabulary.json``, whose
# ``_about`` key documents each entry, and ``demo_data/templates.jsonl``).
# Every query term (kind, city, type and feature values) must be a word used
# nowhere else in the corpus, apart from the recorded noise; ``_audit``
# enforces this.  JSON lists become tuples so the loaded values are immutable.
# ---------------------------------------------------------------------------

DATA_DIR = Path(__file__).resolve().parent / "demo_data"
# Where the package ships the generated files.
DEMO_DIR = Path(__file__).resolve().parents[1] / "logical_pyserini" / "data" / "demo"


def _frozen(value):
    """JSON lists -> tuples (recursively), so template shapes and tuples of phrases compare as before."""
    if isinstance(value, list):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, dict):
        return {k: _frozen(v) for k, v in value.items()}
    return value


_VOCABULARY = _frozen(json.loads((DATA_DIR / "vocabulary.json").read_text(encoding="utf-8")))
KINDS: tuple[str, ...] = _VOCABULARY["kinds"]
CITIES: tuple[str, ...] = _VOCABULARY["cities"]
ATTRIBUTE_ORDER: tuple[str, ...] = _VOCABULARY["attribute_order"]
NEGATED_PREFIX: dict[str, str] = _VOCABULARY["negated_prefix"]
KIND_SPECS: dict[str, dict] = _VOCABULARY["kind_specs"]
CITY_PARAPHRASES: dict[str, tuple[str, ...]] = _VOCABULARY["city_paraphrases"]
NOISE_SPECS: dict[str, dict] = _VOCABULARY["noise_specs"]
NEUTRAL_SENTENCES: tuple[str, ...] = _VOCABULARY["neutral_sentences"]
CONTRAST_WEIGHTS: dict[str, float] = _VOCABULARY["contrast_weights"]
TITLE_ADJECTIVES: tuple[str, ...] = _VOCABULARY["title_adjectives"]
TITLE_NOUNS: tuple[str, ...] = _VOCABULARY["title_nouns"]
FIRST_NAMES: tuple[str, ...] = _VOCABULARY["first_names"]
NAME_SYLLABLES: tuple[str, ...] = _VOCABULARY["name_syllables"]

# Noise.  Real encyclopedia text does not line up with a query vocabulary, so
# documents are rendered with three kinds of mismatch (rates below):
#
# * paraphrases -- an attribute the entity has is written only with words
#   that share nothing with its query term ("art" -> "paintings and
#   sculpture", "Paris" -> "the French capital");
# * contrastive mentions -- a sentence names an attribute the entity does
#   *not* have ("Despite the name, it serves no seafood dishes.", "It has
#   never held a Michelin star.", "It was later adapted into a film.");
# * score-scale variety -- long documents padded with neutral sentences, and
#   attributes mentioned one to three times.
#
# The kind is always written literally (once, in the intro): every encyclopedia
# article says what it is about.  ``_audit`` checks that a query term's words
# occur in a document exactly when the attribute is mentioned literally or
# contrastively, so each kind of noise happens only where it is recorded.

# ---------------------------------------------------------------------------
# Query templates.  A shape is a nested tuple ("and" | "or" | "not", ...) over
# slot letters; every query is ``kind AND shape``.  Phrasings are format
# strings over the fields built by ``_nl_fields``.
# ---------------------------------------------------------------------------

Node = Union[str, tuple]


@dataclass(frozen=True)
class Template:
    """A query template: its name, logical shape and English phrasings."""

    name: str
    shape: Node
    phrasings: tuple[str, ...]


TEMPLATES: tuple[Template, ...] = tuple(
    Template(row["name"], row["shape"], row["phrasings"])
    for line in (DATA_DIR / "templates.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()
    for row in [_frozen(json.loads(line))]
)

# Sizes.  Queries are accepted when the base corpus gives them MIN..MAX_BASE
# relevant documents; injected near misses can add a few, hence MAX_FINAL.
DOCS_PER_KIND = 500
QUERIES_PER_KIND_AND_TEMPLATE = 4
MIN_RELEVANT = 3
MAX_RELEVANT_BASE = 40
MIN_NATURAL_HARD_NEGATIVES = 3
MAX_RELEVANT_FINAL = 60
NEAR_MISSES_NEGATED = 8  # docs having an excluded attribute: the BM25 trap (unless paraphrased)
NEAR_MISSES_POSITIVE = 3  # docs lacking one required term
MAX_ATTEMPTS = 5000
# Zipf exponent of attribute values: a steep skew gives both very common
# values (many hard negatives when negated) and rare ones (small OR queries).
ZIPF_EXPONENT = 1.0
# Share of attributes mentioned twice, and of documents that mention one
# attribute three times (see ``_render``).
REPEAT_RATE = 0.3
FOCUS_RATE = 0.3
# Noise (see ``Noise`` above).  PARAPHRASE_RATE is per (document, attribute)
# pair over city, type and feature attributes: the attribute is then written
# only with paraphrases.  CONTRAST_RATE is per document: it gets one sentence
# naming an attribute it does not have.  LONG_DOC_RATE of the documents get
# LONG_DOC_EXTRA neutral sentences.  The realised rates of the bundled data
# lie within the *_BOUNDS (checked by the tests).
PARAPHRASE_RATE = 0.13
PARAPHRASE_BOUNDS = (0.10, 0.15)
CONTRAST_RATE = 0.08
CONTRAST_BOUNDS = (0.05, 0.10)
LONG_DOC_RATE = 0.2
LONG_DOC_EXTRA = (8, 24)

# ---------------------------------------------------------------------------
# Documents
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Entity:
    """Attributes of one document; the text is rendered from them."""

    kind: str
    city: str
    types: tuple[str, ...]
    features: tuple[str, ...]

    @cached_property
    def atoms(self) -> frozenset[str]:
        """Atom ids (``attribute:value``) that are true for this entity."""
        return frozenset(
            [f"kind:{self.kind}", f"city:{self.city}"]
            + [f"type:{t}" for t in self.types]
            + [f"feature:{f}" for f in self.features]
        )


def _term(atom: str) -> str:
    """Query term for an atom id: the value after ``attribute:``."""
    return atom.split(":", 1)[1]


def _zipf(n: int, exponent: float) -> list[float]:
    """Skewed weights so that values range from common to rare."""
    return [1.0 / (rank + 1) ** exponent for rank in range(n)]


def _city_order(kind: str) -> tuple[str, ...]:
    """Cities in descending popularity for ``kind`` (a rotation of CITIES)."""
    shift = 4 * KINDS.index(kind)
    return CITIES[shift:] + CITIES[:shift]


def _atoms_of(kind: str) -> dict[str, list[str]]:
    """Atom ids a query about ``kind`` may use, by attribute, in fixed order."""
    spec = KIND_SPECS[kind]
    return {
        "city": [f"city:{c}" for c in _city_order(kind)],
        "type": [f"type:{t}" for t in spec["types"]],
        "feature": [f"feature:{f}" for f in spec["features"]],
    }


def _pick(rng: random.Random, values: list[str], weights: list[float], k: int, exclude: set[str]) -> list[str]:
    """Draw ``k`` distinct values by weight, skipping ``exclude``."""
    pool = [(v, w) for v, w in zip(values, weights) if v not in exclude]
    chosen: list[str] = []
    for _ in range(min(k, len(pool))):
        value = rng.choices([v for v, _ in pool], weights=[w for _, w in pool])[0]
        chosen.append(value)
        pool = [(v, w) for v, w in pool if v != value]
    return chosen


def _make_entity(kind: str, rng: random.Random, must: frozenset[str] = frozenset(),
                 must_not: frozenset[str] = frozenset()) -> Entity:
    """Sample an entity of ``kind``, forcing atoms in ``must`` / ``must_not``.

    Types are multi-valued (1-3) and features optional (0-2) so that
    conjunctions and near misses occur naturally; the city is single-valued.
    ``kind:`` atoms in ``must`` are implied by ``kind`` and ignored.
    """
    spec = KIND_SPECS[kind]
    wanted: dict[str, list[str]] = {}
    for atom in sorted(must):
        attribute, value = atom.split(":", 1)
        wanted.setdefault(attribute, []).append(value)
    banned = {_term(a) for a in must_not}

    cities = list(_city_order(kind))
    city = wanted["city"][0] if "city" in wanted else _pick(rng, cities, _zipf(len(cities), ZIPF_EXPONENT), 1, banned)[0]

    def draw(attribute: str, counts: tuple[int, ...], count_weights: tuple[float, ...]) -> tuple[str, ...]:
        values = list(spec[attribute + "s"])
        forced = wanted.get(attribute, [])
        n = max(rng.choices(counts, weights=count_weights)[0], len(forced))
        extra = _pick(rng, values, _zipf(len(values), ZIPF_EXPONENT), n - len(forced), banned | set(forced))
        return tuple(sorted(forced + extra))

    types = draw("type", (1, 2, 3), (0.6, 0.33, 0.07))
    features = draw("feature", (0, 1, 2), (0.35, 0.45, 0.2))
    return Entity(kind, city, types, features)


def _vocabulary() -> list[str]:
    """Every atom id any query can use, sorted."""
    atoms = {f"kind:{k}" for k in KINDS}
    for kind in KINDS:
        atoms.update(a for values in _atoms_of(kind).values() for a in values)
    return sorted(atoms)


@lru_cache(maxsize=None)
def _reserved_words() -> frozenset[str]:
    """Normalised words of all query terms."""
    return frozenset(_norm(w) for atom in _vocabulary() for w in _term(atom).lower().split())


def _pseudo_name(rng: random.Random) -> str:
    """A made-up capitalised name; syllables can spell a query word ("no" +
    "vel" = "Novel"), so such draws are rejected."""
    reserved = _reserved_words()
    while True:
        name = "".join(rng.choice(NAME_SYLLABLES) for _ in range(rng.choice((2, 3))))
        if _norm(name) not in reserved:
            return name.capitalize()


def _person(rng: random.Random) -> str:
    """A made-up person name."""
    return f"{rng.choice(FIRST_NAMES)} {_pseudo_name(rng)}"


def _title(kind: str, rng: random.Random, used: set[str]) -> str:
    """A title unique within the corpus."""
    while True:
        name = _pseudo_name(rng)
        title = rng.choice(KIND_SPECS[kind]["titles"]).format(
            name=name, adj=rng.choice(TITLE_ADJECTIVES), noun=rng.choice(TITLE_NOUNS))
        if title not in used:
            used.add(title)
            return title


@dataclass(frozen=True)
class Rendered:
    """A rendered document and a record of how its attributes were written.

    ``literal``: atoms the entity has, written with their query term (the kind
    always is).  ``paraphrased``: atoms the entity has, written only with
    paraphrases.  ``contrasted``: atoms the entity does *not* have, named in
    a contrastive or negated sentence.  ``long``: padded with neutral text.
    """

    title: str
    contents: str
    literal: frozenset[str]
    paraphrased: frozenset[str]
    contrasted: frozenset[str]
    long: bool


def _contrast(entity: Entity, rng: random.Random) -> tuple[str, str]:
    """One sentence naming an atom the entity lacks, and that atom.

    Values are Zipf-weighted like the attributes themselves: articles
    contrast with the common categories ("unlike the art collections
    nearby"), which are also the ones queries tend to exclude.
    """
    spec, noise = KIND_SPECS[entity.kind], NOISE_SPECS[entity.kind]
    categories = list(CONTRAST_WEIGHTS)
    category = rng.choices(categories, weights=[CONTRAST_WEIGHTS[c] for c in categories])[0]
    if category == "kind":
        other, sentence = rng.choice(noise["cross"])
        return sentence, f"kind:{other}"
    if category == "city":
        ranked, own, templates = list(_city_order(entity.kind)), {entity.city}, noise["contrast_city"]
    elif category == "type":
        ranked, own, templates = list(spec["types"]), set(entity.types), noise["contrast_type"]
    else:
        ranked, own = list(spec["features"]), set(entity.features)
    weights = _zipf(len(ranked), ZIPF_EXPONENT)
    pool = [(value, weight) for value, weight in zip(ranked, weights) if value not in own]
    value = rng.choices([v for v, _ in pool], weights=[w for _, w in pool])[0]
    if category == "feature":
        return rng.choice(noise["negated"][value]), f"feature:{value}"
    sentence = rng.choice(templates).replace("{other}" if category == "city" else "{term}", value)
    return sentence, f"{category}:{value}"


def _render(entity: Entity, rng: random.Random, used_titles: set[str], frequency: dict[str, int]) -> Rendered:
    """Title and contents for an entity, with the noise described in ``Noise``.

    Each attribute is written with one or two of its sentence variants, and
    some documents dwell on their rarest attribute (all three variants;
    ``frequency`` counts documents per atom).  Term frequencies therefore
    vary, which is what lets plain BM25 rank a document that repeats one rare
    query term above one that matches every term once.  An attribute is
    paraphrased with probability ``PARAPHRASE_RATE``, a document gets a
    contrastive sentence with probability ``CONTRAST_RATE`` and neutral
    padding with probability ``LONG_DOC_RATE``.
    """
    spec, noise = KIND_SPECS[entity.kind], NOISE_SPECS[entity.kind]
    title = _title(entity.kind, rng, used_titles)
    slots = {"title": title, "city": entity.city, "person": _person(rng), "person2": _person(rng),
             "year": rng.randint(1890, 2020), "number": rng.randint(40, 400)}
    ranked = [f"city:{entity.city}"] + [f"type:{t}" for t in entity.types] + [f"feature:{f}" for f in entity.features]
    paraphrased = {atom for atom in ranked if rng.random() < PARAPHRASE_RATE}

    def sentences(atom: str) -> tuple[str, ...]:
        attribute, value = atom.split(":", 1)
        if attribute == "city":
            if atom not in paraphrased:
                return spec["city"]
            return tuple(s.replace("{city}", rng.choice(CITY_PARAPHRASES[value])) for s in spec["city"])
        if atom in paraphrased:
            return noise["paraphrases"][value]
        return spec[attribute + "s"][value]["sentences"]

    variants = [sentences(atom) for atom in ranked]
    mentions = [2 if rng.random() < REPEAT_RATE else 1 for _ in variants]
    if rng.random() < FOCUS_RATE:
        # Dwell on the rarest attribute: its term has the highest IDF, so the
        # document becomes a strong distractor for every query that needs it
        # together with something this document lacks.
        mentions[min(range(len(ranked)), key=lambda i: (frequency[ranked[i]], i))] = 3
    body = [s for group, n in zip(variants, mentions) for s in rng.sample(group, min(n, len(group)))]
    filler = rng.sample(spec["filler"], rng.randint(1, 3))
    body += filler
    contrasted: set[str] = set()
    if rng.random() < CONTRAST_RATE:
        sentence, atom = _contrast(entity, rng)
        body.append(sentence)
        contrasted.add(atom)
    long = rng.random() < LONG_DOC_RATE
    if long:
        # Distractor padding: lowers every term's BM25 weight in this document
        # and spreads the score scale of each leaf.
        pool = [s for s in spec["filler"] if s not in filler] + list(noise["neutral"]) + list(NEUTRAL_SENTENCES)
        body += rng.sample(pool, rng.randint(*LONG_DOC_EXTRA))
    rng.shuffle(body)
    text = f"{title}. " + " ".join(s.format(**slots) for s in [rng.choice(spec["intro"])] + body)
    literal = frozenset([f"kind:{entity.kind}"] + [a for a in ranked if a not in paraphrased])
    return Rendered(title, text, literal, frozenset(paraphrased), frozenset(contrasted), long)


# ---------------------------------------------------------------------------
# Logic over atoms: evaluation, witnesses, query strings, slot filling, English
# ---------------------------------------------------------------------------


def _holds(node: Node, atoms: frozenset[str], forced: dict[str, bool] | None = None) -> bool:
    """Exact Boolean value of ``node`` for a document with ``atoms``."""
    if isinstance(node, str):
        return forced[node] if forced and node in forced else node in atoms
    op = node[0]
    if op == "not":
        return not _holds(node[1], atoms, forced)
    # Plain loops: this is the generator's inner loop.
    wanted = op == "or"
    for arg in node[1:]:
        if _holds(arg, atoms, forced) is wanted:
            return wanted
    return not wanted


def _leaves(node: Node, positive: bool = True) -> list[tuple[str, bool]]:
    """(atom, polarity) for every leaf, in query order."""
    if isinstance(node, str):
        return [(node, positive)]
    op, *args = node
    if op == "not":
        return _leaves(args[0], not positive)
    return [leaf for arg in args for leaf in _leaves(arg, positive)]


def _witness(node: Node, want: bool, rng: random.Random,
             forced: dict[str, bool]) -> tuple[set[str], set[str]]:
    """Atoms a document must / must not have for ``node`` to equal ``want``."""
    if isinstance(node, str):
        if node in forced:
            return set(), set()
        return ({node}, set()) if want else (set(), {node})
    op, *args = node
    if op == "not":
        return _witness(args[0], not want, rng, forced)
    # AND wanted true / OR wanted false: every child constrained; otherwise one.
    every = (op == "and") == want
    chosen = args if every else [rng.choice(args)]
    must: set[str] = set()
    must_not: set[str] = set()
    for arg in chosen:
        m, n = _witness(arg, want, rng, forced)
        must |= m
        must_not |= n
    return must, must_not


def _query_string(node: Node, top: bool = True) -> str:
    """Render in the query language: quoted terms, NOT > AND > OR."""
    if isinstance(node, str):
        return f'"{_term(node)}"'
    op, *args = node
    if op == "not":
        return "NOT " + _query_string(args[0], top=False)
    text = f" {op.upper()} ".join(_query_string(arg, top=False) for arg in args)
    # OR below AND / NOT needs parentheses; AND never does (it binds tighter).
    return f"({text})" if op == "or" and not top else text


def _substitute(shape: Node, slots: dict[str, str]) -> Node:
    """Replace slot letters in a template shape by atom ids."""
    if isinstance(shape, str):
        return slots[shape]
    return (shape[0],) + tuple(_substitute(arg, slots) for arg in shape[1:])


def _slot_roles(shape: Node, negated: bool = False, group: str = "") -> list[tuple[str, bool, str]]:
    """(slot, negated, or-group) for each slot; positive OR siblings share a group."""
    if isinstance(shape, str):
        return [(shape, negated, group)]
    op, *args = shape
    if op == "not":
        return _slot_roles(args[0], True, "")
    child_group = "".join(_leaf_slots(shape)) if op == "or" and not negated else group
    return [role for arg in args for role in _slot_roles(arg, negated, child_group)]


def _leaf_slots(shape: Node) -> list[str]:
    """Slot letters of a shape in order."""
    return [shape] if isinstance(shape, str) else [s for arg in shape[1:] for s in _leaf_slots(arg)]


def _sample_slots(kind: str, shape: Node, rng: random.Random) -> dict[str, str] | None:
    """Fill slots with distinct atoms of ``kind``; None if the draw is unusable.

    Positive OR groups take values of one attribute ("Rome or Venice"); negated
    slots take types or features (excluding a city is trivial); at most one
    positive city, since a document has exactly one.
    """
    atoms = _atoms_of(kind)
    roles = _slot_roles(shape)
    slots: dict[str, str] = {}
    group_attribute: dict[str, str] = {}
    for slot, negated, group in roles:
        if negated:
            # Excluding a common value ("not art museums") is the natural
            # question, and common values bring many hard negatives for free.
            attribute = rng.choice(("type", "feature"))
            values = atoms[attribute]
            slots[slot] = rng.choices(values, weights=_zipf(len(values), ZIPF_EXPONENT))[0]
            continue
        if group:
            attribute = group_attribute.setdefault(group, rng.choice(("city", "type", "type", "feature")))
        else:
            attribute = rng.choice(("city", "type", "feature"))
        slots[slot] = rng.choice(atoms[attribute])
    if len(set(slots.values())) < len(slots):
        return None
    # Each positive conjunct that pins a city: an ungrouped city slot or a
    # whole OR group of cities.  Two of them can never hold together.
    ungrouped = sum(1 for slot, negated, group in roles if not negated and not group
                    and slots[slot].startswith("city:"))
    if ungrouped + sum(1 for a in group_attribute.values() if a == "city") > 1:
        return None
    # Put positive conjuncts in type, city, feature order so that questions
    # read "Art museums in Paris with a garden".
    free = [slot for slot, negated, group in roles if not negated and not group]
    ordered = sorted((slots[s] for s in free), key=lambda a: ATTRIBUTE_ORDER.index(a.split(":", 1)[0]))
    slots.update(zip(free, ordered))
    return slots


def _nl_fields(kind: str, shape: Node, slots: dict[str, str]) -> dict[str, str]:
    """Phrase fragments for the natural-language templates.

    ``X_mod`` / ``X_neg`` post-modify the kind ("in Paris", "without a
    garden"); ``X_np`` is a plural noun phrase ("art museums", "sequels",
    "museums with a garden"); ``X_head`` is one that names the kind, so it
    can open a question; ``POS`` describes all ungrouped positive slots
    ("art museums in Paris with a garden"); ``OR_mod`` / ``OR_np`` merge the
    positive OR group ("in Paris or Amsterdam").
    """
    spec = KIND_SPECS[kind]
    kp = spec["plural"]

    def mod(atom: str) -> tuple[str, str]:
        attribute, value = atom.split(":", 1)
        return (spec["city_prefix"], value) if attribute == "city" else spec[attribute + "s"][value]["mod"]

    def noun(atom: str) -> str | None:
        attribute, value = atom.split(":", 1)
        return None if attribute == "city" else spec[attribute + "s"][value].get("noun")

    fields = {"Kp": kp}
    for slot, atom in slots.items():
        prefix, value = mod(atom)
        fields[f"{slot}_mod"] = f"{prefix} {value}"
        fields[f"{slot}_neg"] = f"{NEGATED_PREFIX[prefix]} {value}"
        # A head must name the kind: type nouns do ("war novels", "musicals"),
        # feature nouns only sometimes ("award-winning novels", not "sequels").
        named = noun(atom) if atom.startswith("type:") or kp in (noun(atom) or "") else None
        fields[f"{slot}_head"] = named or f"{kp} {prefix} {value}"
        fields[f"{slot}_np"] = noun(atom) or f"{kp} {prefix} {value}"

    roles = _slot_roles(shape)
    positive = [slots[s] for s, negated, group in roles if not negated and not group]
    if positive:
        head, rest = (noun(positive[0]), positive[1:]) if positive[0].startswith("type:") else (kp, positive)
        fields["POS"] = head
        for phrase in _merge_mods([mod(a) for a in rest], "and"):
            # "set in Rome that won an award and that are sequels"
            joiner = " and " if phrase.startswith("that ") and "that " in fields["POS"] else " "
            fields["POS"] += joiner + phrase
    group = [slots[s] for s, negated, g in roles if g and not negated]
    if group:
        fields["OR_mod"] = " or ".join(_merge_mods([mod(a) for a in group], "or"))
        fields["OR_np"] = _or_list([noun(a) or f"{kp} {' '.join(mod(a))}" for a in group])
    return fields


def _merge_mods(mods: list[tuple[str, str]], conjunction: str) -> list[str]:
    """Share a repeated prefix: [("in","Rome"), ("in","Venice")] -> ["in Rome or Venice"]."""
    merged: list[tuple[str, list[str]]] = []
    for prefix, value in mods:
        if merged and merged[-1][0] == prefix:
            merged[-1][1].append(value)
        else:
            merged.append((prefix, [value]))
    return [f"{prefix} {_or_list(values, conjunction)}" for prefix, values in merged]


def _or_list(items: list[str], conjunction: str = "or") -> str:
    """English list: "a or b", "a, b or c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + f" {conjunction} " + items[-1]


# ---------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Query:
    """A generated query before qids are assigned."""

    template: str
    kind: str
    tree: Node
    natural: str


def _sample_queries(entities: list[Entity], rng: random.Random) -> list[Query]:
    """Draw ``QUERIES_PER_KIND_AND_TEMPLATE`` queries per template and kind.

    A draw is kept when it is new, has ``MIN_RELEVANT..MAX_RELEVANT_BASE``
    relevant base documents and, for each negated term, at least
    ``MIN_NATURAL_HARD_NEGATIVES`` base documents that fail only because they
    have that term.
    """
    queries: list[Query] = []
    seen: set[str] = set()
    # The kind leaf is ANDed into every query, so only entities of that kind
    # can be relevant or near misses; restricting to them changes nothing.
    by_kind = {kind: [e for e in entities if e.kind == kind] for kind in KINDS}
    for template in TEMPLATES:
        for kind in KINDS:
            pool = by_kind[kind]
            accepted = 0
            for _ in range(MAX_ATTEMPTS):
                if accepted == QUERIES_PER_KIND_AND_TEMPLATE:
                    break
                slots = _sample_slots(kind, template.shape, rng)
                if slots is None:
                    continue
                tree = ("and", f"kind:{kind}", _substitute(template.shape, slots))
                key = _canonical(tree)
                n_relevant = sum(_holds(tree, e.atoms) for e in pool)
                if key in seen or not MIN_RELEVANT <= n_relevant <= MAX_RELEVANT_BASE:
                    continue
                # Only a top-up of hard negatives is injected later; a query
                # must already have some, or injection would dominate the corpus.
                if any(sum(_is_near_miss(tree, e.atoms, leaf, False) for e in pool) < MIN_NATURAL_HARD_NEGATIVES
                       for leaf, positive in _leaves(tree) if not positive):
                    continue
                seen.add(key)
                fields = _nl_fields(kind, template.shape, slots)
                text = rng.choice(template.phrasings).format(**fields)
                queries.append(Query(template.name, kind, _flatten(tree), text[0].upper() + text[1:]))
                accepted += 1
            else:
                raise RuntimeError(f"could not draw queries for {template.name!r} / {kind}")
    return queries


def _flatten(node: Node) -> Node:
    """Merge nested ANDs so that ``kind AND (a AND b)`` prints without parentheses."""
    if isinstance(node, str):
        return node
    op, *args = node
    flat: list[Node] = []
    for arg in map(_flatten, args):
        flat.extend(arg[1:] if op == "and" and not isinstance(arg, str) and arg[0] == "and" else [arg])
    return (op, *flat)


def _canonical(node: Node) -> str:
    """Order-independent key, so "Rome OR Venice" and "Venice OR Rome" are one query."""
    if isinstance(node, str):
        return node
    op, *args = _flatten(node)
    return f"{op}(" + ",".join(sorted(_canonical(a) for a in args)) + ")"


def _is_near_miss(tree: Node, atoms: frozenset[str], leaf: str, positive: bool) -> bool:
    """False as a whole, but true once ``leaf`` takes the value the query asks for."""
    return not _holds(tree, atoms) and _holds(tree, atoms, {leaf: positive})


def _add_near_misses(queries: list[Query], base: list[Entity], rng: random.Random) -> list[Entity]:
    """Base entities plus extra ones so that every leaf has enough near misses.

    A near miss for a leaf is a document for which the query is false but
    would be true if that one leaf had the value the query asks for.  For a
    negated leaf it *contains* the excluded term: the document plain BM25
    ranks first.  The kind leaf is skipped (its near misses would be other
    kinds).  An extra entity is rejected when it would push any query past
    ``MAX_RELEVANT_FINAL`` relevant documents.
    """
    entities = list(base)
    by_kind = {kind: [e for e in entities if e.kind == kind] for kind in KINDS}
    n_relevant = [sum(_holds(q.tree, e.atoms) for e in by_kind[q.kind]) for q in queries]
    for query in queries:
        for leaf, positive in _leaves(query.tree):
            if leaf.startswith("kind:"):
                continue
            target = NEAR_MISSES_POSITIVE if positive else NEAR_MISSES_NEGATED
            have = sum(_is_near_miss(query.tree, e.atoms, leaf, positive) for e in by_kind[query.kind])
            for _ in range(target - have):
                entity = _draw_near_miss(query, leaf, positive, rng, n_relevant, queries)
                hits = [_holds(q.tree, entity.atoms) for q in queries]
                n_relevant = [n + h for n, h in zip(n_relevant, hits)]
                entities.append(entity)
                by_kind[entity.kind].append(entity)
    return entities


def _draw_near_miss(query: Query, leaf: str, positive: bool, rng: random.Random,
                    n_relevant: list[int], queries: list[Query]) -> Entity:
    """Sample one near-miss entity for ``leaf`` of ``query`` (see ``_add_near_misses``)."""
    for _ in range(MAX_ATTEMPTS):
        must, must_not = _witness(query.tree, True, rng, {leaf: positive})
        (must_not if positive else must).add(leaf)
        if must & must_not or sum(a.startswith("city:") for a in must) > 1:
            continue
        entity = _make_entity(query.kind, rng, frozenset(must), frozenset(must_not))
        overflow = any(n >= MAX_RELEVANT_FINAL and _holds(q.tree, entity.atoms)
                       for q, n in zip(queries, n_relevant))
        if _is_near_miss(query.tree, entity.atoms, leaf, positive) and not overflow:
            return entity
    raise RuntimeError(f"no near miss for {leaf} in {query.natural!r}")


_TOKEN = re.compile(r"[a-z0-9]+")


def _norm(token: str) -> str:
    """Crude plural folding, enough to catch 'comedies' for 'comedy'."""
    if token.endswith("ies"):
        return token[:-3] + "y"
    if token.endswith("s") and not token.endswith("ss"):
        return token[:-1]
    return token


def _tokens(text: str) -> list[str]:
    """Lower-cased, plural-folded word tokens."""
    return [_norm(t) for t in _TOKEN.findall(text.lower())]


def _audit(entities: list[Entity], rendered: list[Rendered]) -> None:
    """Fail if a document's text disagrees with its record of noise.

    A query term's words must occur in a document exactly when its atom is
    written literally or named contrastively; otherwise a BM25 leaf would
    match (or miss) by accident rather than by documented noise.  The own
    kind word must occur exactly once (see ``KIND_SPECS``).
    """
    vocabulary = _vocabulary()
    words = {a: {_norm(w) for w in _term(a).lower().split()} for a in vocabulary}
    for entity, doc in zip(entities, rendered):
        token_list = _tokens(doc.contents)
        if token_list.count(entity.kind) != 1:
            raise ValueError(f"kind word {entity.kind!r} not exactly once in: {doc.contents}")
        if doc.contrasted & entity.atoms or doc.literal | doc.paraphrased != entity.atoms:
            raise ValueError(f"inconsistent noise record for: {doc.contents}")
        tokens = set(token_list)
        for atom in vocabulary:
            mentioned = atom in doc.literal or atom in doc.contrasted
            if mentioned and not words[atom] <= tokens:
                raise ValueError(f"{atom} missing from: {doc.contents}")
            if not mentioned and words[atom] & tokens:
                raise ValueError(f"{atom} leaks into: {doc.contents}")


@dataclass(frozen=True)
class Dataset:
    """Everything ``generate`` writes, plus the hidden ground truth.

    ``entities``, ``docs`` and ``rendered`` are aligned (one entry per
    document); ``queries`` are in qid order.
    """

    entities: list[Entity]
    docs: list[dict[str, str]]
    rendered: list[Rendered]
    queries: list[Query]


def build(seed: int = 13) -> Dataset:
    """Build the dataset in memory (``generate`` writes it out).

    Raises ``ValueError`` if a document's text disagrees with its attributes
    and noise record (see ``_audit``).
    """
    rng = random.Random(seed)
    base = [_make_entity(kind, rng) for kind in KINDS for _ in range(DOCS_PER_KIND)]
    queries = _sample_queries(base, rng)
    entities = _add_near_misses(queries, base, rng)
    # Shuffle so that injected near misses are not recognisable by their ids.
    rng.shuffle(entities)
    frequency = Counter(atom for entity in entities for atom in entity.atoms)
    used_titles: set[str] = set()
    docs, rendered = [], []
    for i, entity in enumerate(entities, start=1):
        doc = _render(entity, rng, used_titles, frequency)
        rendered.append(doc)
        docs.append({"id": f"demo-{i:05d}", "title": doc.title, "contents": doc.contents})
    _audit(entities, rendered)
    return Dataset(entities, docs, rendered, queries)


def noise_records(data: Dataset | None = None) -> list[dict]:
    """Per document: its true attributes and how they were written.

    Returns one dict per document of ``data`` (default: ``build()``), in
    corpus order: ``id``, ``atoms`` (the ground truth the qrels are computed
    from), ``literal``, ``paraphrased``, ``contrasted`` (sorted lists of
    ``attribute:value`` ids, see ``Rendered``) and ``long``.  Useful for
    error analysis: a relevant document that a leaf missed has the leaf's
    atom in ``paraphrased``.
    """
    data = data or build()
    return [{"id": d["id"], "atoms": sorted(e.atoms), "literal": sorted(r.literal),
             "paraphrased": sorted(r.paraphrased), "contrasted": sorted(r.contrasted), "long": r.long}
            for d, e, r in zip(data.docs, data.entities, data.rendered)]


def noise_summary(data: Dataset) -> dict[str, int]:
    """Counts behind the documented noise rates.

    ``attribute_mentions`` counts (document, attribute) pairs over city, type
    and feature attributes, ``paraphrased_mentions`` those written only with
    paraphrases; ``contrastive_documents`` and ``long_documents`` count
    documents.
    """
    return {
        "attribute_mentions": sum(len(e.atoms) - 1 for e in data.entities),
        "paraphrased_mentions": sum(len(r.paraphrased) for r in data.rendered),
        "contrastive_documents": sum(bool(r.contrasted) for r in data.rendered),
        "long_documents": sum(r.long for r in data.rendered),
    }


def write(data: Dataset, out_dir: Path) -> dict[str, int]:
    """Write ``data`` as the five demo files into ``out_dir``; see ``generate``."""
    docs, entities, queries = data.docs, data.entities, data.queries
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    logical, natural, qrels, metadata = [], [], [], []
    for n, query in enumerate(queries, start=1):
        qid = f"q{n:03d}"
        relevant = [d["id"] for d, e in zip(docs, entities) if _holds(query.tree, e.atoms)]
        if not 1 <= len(relevant) <= MAX_RELEVANT_FINAL:
            raise RuntimeError(f"{qid} has {len(relevant)} relevant documents")
        text = _query_string(query.tree)
        logical.append(f"{qid}\t{text}\n")
        natural.append(f"{qid}\t{query.natural}\n")
        qrels += [f"{qid} 0 {docid} 1\n" for docid in relevant]
        operators = [op for op in ("AND", "OR", "NOT") if re.search(rf"\b{op}\b", text)]
        metadata.append(json.dumps({"qid": qid, "template": query.template,
                                    "negations": len(re.findall(r"\bNOT\b", text)),
                                    "operators": operators, "n_relevant": len(relevant)}) + "\n")

    files = {
        "corpus.jsonl": [json.dumps(d) + "\n" for d in docs],
        "topics.logical.tsv": logical,
        "topics.natural.tsv": natural,
        "qrels.txt": qrels,
        "metadata.jsonl": metadata,
    }
    for name, lines in files.items():
        # newline="\n" keeps the bytes identical on every platform.
        with open(out_dir / name, "w", encoding="utf-8", newline="\n") as handle:
            handle.writelines(lines)
    n_base = DOCS_PER_KIND * len(KINDS)
    return {"documents": len(docs), "base_documents": n_base, "near_miss_documents": len(docs) - n_base,
            "queries": len(queries), "qrels": len(qrels), **noise_summary(data)}


def generate(out_dir: Path, seed: int = 13) -> dict[str, int]:
    """Generate the demo dataset into ``out_dir``.

    Parameters
    ----------
    out_dir : Path
        Directory to write ``corpus.jsonl``, ``topics.logical.tsv``,
        ``topics.natural.tsv``, ``qrels.txt`` and ``metadata.jsonl`` into
        (created if missing; existing files are overwritten).
    seed : int, optional
        Seed of the single ``random.Random`` that drives every choice; the
        same seed always yields byte-identical files.

    Returns
    -------
    dict of str to int
        ``documents``, ``base_documents``, ``near_miss_documents``,
        ``queries``, ``qrels`` (number of relevant query-document pairs) and
        the counts of ``noise_summary``.

    Raises
    ------
    RuntimeError
        If a template cannot be filled or a query ends up with a relevance
        count outside ``1..MAX_RELEVANT_FINAL``.
    ValueError
        If a document's text contradicts its attributes and noise record
        (see ``_audit``).
    """
    return write(build(seed), out_dir)


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point: ``python scripts/make_demo_data.py``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=DEMO_DIR, help="output directory (default: bundled demo/)")
    parser.add_argument("--seed", type=int, default=13, help="random seed (default: 13)")
    args = parser.parse_args(argv)
    counts = generate(args.output, seed=args.seed)
    print(json.dumps(counts, sort_keys=True))


if __name__ == "__main__":
    main()
