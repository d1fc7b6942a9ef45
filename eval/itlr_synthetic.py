"""Generate the ITLR synthetic benchmark (seed 001, section 3.1 and appendix H) without an LLM.

    python eval/itlr_synthetic.py [--quick] [--queries-per-template 100] [--scaling-queries 100] [--seed 13]

Queries
-------
* **Three-term set**: the 32 templates ``t1 op1 t2 op2 t3`` with ``op`` in
  {AND, OR} and every term optionally negated (4 operator pairs x 8 negation
  masks), ``--queries-per-template`` queries each.  Precedence is the query
  language's (NOT > AND > OR), so ``t1 OR t2 AND NOT t3`` is ``t1 OR (t2 AND NOT t3)``.
* **Term-scaling set**: ``t1 AND ... AND tn`` and ``t1 OR ... OR tn`` for
  n = 2..8, ``--scaling-queries`` queries per (operator, n).

Terms are topic names from ``eval/sources/topics.json`` (156 topics); the
terms of one query are distinct topics whose names share no word.

Documents (appendix H)
----------------------
Each query gets its own small document set.  The query is expanded into
disjunctive normal form; each conjunctive clause is a *category* of positive
documents (the terms it must be about and must not be about).  A category is
realised as a full assignment over the query's terms (terms the clause leaves
open are *not about*), so ``t1 OR t2 OR t3`` gives the positives 100, 010 and
001.  Hard negatives move one term to the opposite category: the assignments
at Hamming distance 1 from a positive that falsify the query (if there are
none, as for ``NOT t1 OR NOT t2 OR NOT t3``, the nearest falsifying ones:
111).  At most 3 positives and 3 negatives are kept per query (random sample),
so a query has 2 to 6 documents, judged 1 (positive) or 0 (hard negative).

A document *about* a topic has two or three sentences on it (one or two
when it covers more than three topics; templates from
``eval/sources/sentences.json``), each naming two of the topic's content
words; each mention uses the topic's name with probability ``--p-name``
(0.5), otherwise a paraphrase, and at least one paraphrase
of every topic shares no word with the name -- so lexical overlap with the
query term is often partial and sometimes absent.  A document *not about* a
query term never mentions it, except that with probability ``--p-contrast``
(0.1) it carries one explicit denial that names it ("Readers looking for
{term} will not find it discussed here."): a lexical trap for NOT.  Every
document also covers, with probability 0.5 (always, when it is about no
query term), one background topic outside the query; half of the time that
topic is a *lexical decoy* of a query term, a topic whose name shares a word
with it (coral reefs / coral snakes, solar panels / solar eclipses, ...).
One to three neutral sentences about nothing are mixed in, and the sentence
order is shuffled.  Document ids are numbered in a random order, so ids
carry no label information.

Outputs (``--data``, default ``eval/data/itlr``; ``itlr-quick`` with ``--quick``)
-------------------------------------------------------------------------------
``corpus.jsonl`` (``id``, ``contents``: index this), ``docs.jsonl`` (``id``,
``qid``, ``topics`` the document is about, ``label``, ``contrast`` topics
denied), ``queries.jsonl`` (``qid``, ``family``, ``template``, ``query``,
``base`` = the terms without quotes and operators, ``terms``, ``topics``,
``negations``, ``n_terms``, ``op``, ``split``: ``fit`` for the first 20 % of
each template, held out for calibration, else ``test``), ``qrels.txt`` and
``manifest.json`` (parameters and counts).  A design summary with dataset
statistics is written to ``--results``/``itlr_synthetic.md``.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import DATA, SOURCES, base_parser, command, header, log, md_table, write_lines  # noqa: E402

from logical_pyserini.query import And, Node, Not, Or, Term, count_negations, parse_query  # noqa: E402

__all__ = ["Topic", "categories", "check_sources", "generate", "holds", "load_sources", "three_term_templates"]

GENERATOR_VERSION = 1
FIT_FRACTION = 0.2
MAX_POSITIVES = MAX_NEGATIVES = 3
SCALING_TERMS = range(2, 9)


@dataclass(frozen=True)
class Topic:
    """One topic: its name (the query term), paraphrases and content words."""

    id: int
    name: str
    paraphrases: tuple[str, ...]
    words: tuple[str, ...]


# --------------------------------------------------------------------------- sources


def load_sources(directory: str | Path = SOURCES) -> tuple[list[Topic], dict[str, list[str]]]:
    """Topics and sentence templates from ``topics.json`` and ``sentences.json``."""
    directory = Path(directory)
    raw = json.loads((directory / "topics.json").read_text(encoding="utf-8"))["topics"]
    topics = [Topic(i, t["name"], tuple(t["paraphrases"]), tuple(t["words"])) for i, t in enumerate(raw)]
    sentences = json.loads((directory / "sentences.json").read_text(encoding="utf-8"))
    return topics, {k: v for k, v in sentences.items() if isinstance(v, list)}


_WORD = re.compile(r"[a-z0-9]+")
# Words too common to count as overlap (Lucene's English stopwords and a few more).
_STOP = set("a an and are as at be but by for if in into is it no not of on or such that the their then there "
            "these they this to was will with from its s".split())


def _stem(word: str) -> str:
    """Crude suffix stripping, enough to see that 'pythons' and 'python' collide."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def words_of(text: str) -> set[str]:
    """Content-bearing word stems of ``text``."""
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOP}


def decoys(topics: list[Topic]) -> dict[int, list[int]]:
    """Topic id -> ids of other topics whose name shares a word with its name."""
    names = {t.id: words_of(t.name) for t in topics}
    return {t.id: [o.id for o in topics if o.id != t.id and names[t.id] & names[o.id]] for t in topics}


def check_sources(topics: list[Topic], sentences: dict[str, list[str]]) -> list[str]:
    """Problems that would blur the ground truth (empty list when the sources are clean).

    * a topic's content word is also a name or content word of another topic;
    * a topic has no paraphrase that avoids every word of its name;
    * a template, neutral or contrastive sentence contains a topic's name or content word;
    * a topic lacks paraphrases or has fewer than two content words.
    """
    problems = []
    owner: dict[str, int] = {}
    for t in topics:
        if len(t.paraphrases) < 2 or len(t.words) < 2:
            problems.append(f"topic {t.name!r}: needs >= 2 paraphrases and >= 2 content words")
        name = words_of(t.name)
        if all(words_of(p) & name for p in t.paraphrases):
            problems.append(f"topic {t.name!r}: every paraphrase repeats a word of the name")
        for w in set().union(*(words_of(w) for w in t.words)):
            if owner.setdefault(w, t.id) != t.id:
                problems.append(f"content word {w!r} of {t.name!r} is also used by {topics[owner[w]].name!r}")
    names = {w: t.id for t in topics for w in words_of(t.name)}
    for t in topics:
        for w in set().union(*(words_of(w) for w in t.words)):
            if w in names and names[w] != t.id:
                problems.append(f"content word {w!r} of {t.name!r} is in the name {topics[names[w]].name!r}")
    vocabulary = set(names) | set(owner)
    for kind, texts in sentences.items():
        for text in texts:
            clash = words_of(re.sub(r"\{\w+\}", " ", text)) & vocabulary
            if clash:
                problems.append(f"{kind} sentence {text!r} uses topic words {sorted(clash)}")
    return problems


# --------------------------------------------------------------------------- logic


def three_term_templates() -> list[str]:
    """The 32 templates, e.g. ``t1 AND NOT t2 OR t3`` (placeholders t1..t3)."""
    out = []
    for op1, op2 in itertools.product(("AND", "OR"), repeat=2):
        for mask in range(8):
            neg = ["NOT " if mask >> (2 - i) & 1 else "" for i in range(3)]
            out.append(f"{neg[0]}t1 {op1} {neg[1]}t2 {op2} {neg[2]}t3")
    return out


def scaling_template(op: str, n: int) -> str:
    return f" {op} ".join(f"t{i + 1}" for i in range(n))


def fill(template: str, names: list[str]) -> str:
    """Replace the placeholders t1..tn of ``template`` by quoted names."""
    return re.sub(r"\bt(\d+)\b", lambda m: '"' + names[int(m.group(1)) - 1] + '"', template)


def holds(node: Node, truth: dict[tuple, bool | np.ndarray]):
    """Boolean value of a query given which terms a document is about.

    ``truth`` maps :attr:`Term.key` to a bool, or to a boolean array (one
    entry per document) to judge many documents at once.
    """
    if isinstance(node, Term):
        return truth[node.key]
    if isinstance(node, Not):
        return np.logical_not(holds(node.child, truth))
    values = [holds(c, truth) for c in node.children]
    return np.logical_and.reduce(values) if isinstance(node, And) else np.logical_or.reduce(values)


def dnf(node: Node) -> list[dict[tuple, bool]]:
    """Conjunctive clauses (term key -> required truth) whose disjunction is the query.

    NOT must apply to terms only (true of every generated template).
    """
    if isinstance(node, Term):
        return [{node.key: True}]
    if isinstance(node, Not):
        if not isinstance(node.child, Term):
            raise ValueError(f"dnf needs NOT over terms only, got {node}")
        return [{node.child.key: False}]
    parts = [dnf(c) for c in node.children]
    if isinstance(node, Or):
        return [clause for part in parts for clause in part]
    clauses = []
    for combo in itertools.product(*parts):
        merged: dict[tuple, bool] = {}
        if all(merged.setdefault(k, v) == v for clause in combo for k, v in clause.items()):
            clauses.append(merged)
    return clauses


def categories(tree: Node, keys: list[tuple]) -> tuple[list[tuple[bool, ...]], list[tuple[bool, ...]]]:
    """Positive and hard-negative assignments (one truth value per key) of a query.

    Returns
    -------
    positives, negatives : list of tuple of bool
        Positives: the DNF clauses with open terms set to *not about*,
        de-duplicated.  Negatives: the falsifying assignments nearest (in
        Hamming distance, 1 when possible) to some positive.
    """
    positives = list(dict.fromkeys(tuple(clause.get(k, False) for k in keys) for clause in dnf(tree)))
    for distance in range(1, len(keys) + 1):
        found = []
        for pos in positives:
            for flip in itertools.combinations(range(len(keys)), distance):
                cand = tuple(not v if i in flip else v for i, v in enumerate(pos))
                if not holds(tree, dict(zip(keys, cand))):
                    found.append(cand)
        if found:
            return positives, list(dict.fromkeys(found))
    return positives, []


# --------------------------------------------------------------------------- documents


class DocumentWriter:
    """Writes documents about given topics from the sentence sources.

    Parameters
    ----------
    topics, sentences
        From :func:`load_sources`.
    rng : random.Random
        Source of randomness (the generator's, so output is reproducible).
    p_name : float
        Probability that a mention uses the topic's name rather than a paraphrase.
    p_contrast : float
        Probability that a document not about a query term denies it by name.
    p_background, p_decoy : float
        Probability of a background topic, and that it is a lexical decoy.
    """

    def __init__(self, topics, sentences, rng: random.Random, p_name=0.5, p_contrast=0.1,
                 p_background=0.5, p_decoy=0.5):
        self.topics, self.s, self.rng = topics, sentences, rng
        self.p_name, self.p_contrast, self.p_background, self.p_decoy = p_name, p_contrast, p_background, p_decoy
        self.decoys = decoys(topics)

    def mention(self, topic: Topic) -> str:
        return topic.name if self.rng.random() < self.p_name else self.rng.choice(topic.paraphrases)

    def background(self, query_topics: list[Topic]) -> Topic:
        """A topic outside the query, often a lexical decoy of a query term."""
        taken = {t.id for t in query_topics}
        pool = [d for t in query_topics for d in self.decoys[t.id] if d not in taken]
        if pool and self.rng.random() < self.p_decoy:
            return self.topics[self.rng.choice(pool)]
        while True:
            t = self.rng.choice(self.topics)
            if t.id not in taken and not any(t.id in self.decoys[q.id] for q in query_topics):
                return t

    def write(self, about: list[Topic], absent: list[Topic], query_topics: list[Topic]) -> tuple[str, list, list]:
        """Text of one document; also the topics it covers and the topics it denies by name."""
        rng = self.rng
        covered = list(about)
        if not covered or rng.random() < self.p_background:
            covered.append(self.background(query_topics))
        per_topic = (1, 2) if len(covered) > 3 else (2, 2, 3)
        patterns = rng.sample(self.s["topic"], len(self.s["topic"]))  # no template twice in a document
        sentences = []
        for topic in covered:
            for j in range(rng.choice(per_topic)):
                w1, w2 = rng.sample(topic.words, 2)
                pattern = patterns.pop() if j < 2 else rng.choice(self.s["mention"])
                sentences.append(pattern.format(T=self.mention(topic), w1=w1, w2=w2))
        denied = [t for t in absent if rng.random() < self.p_contrast]
        sentences += [rng.choice(self.s["contrastive"]).format(T=t.name) for t in denied]
        sentences += rng.sample(self.s["neutral"], rng.randint(1, 3))
        rng.shuffle(sentences)
        text = " ".join(s[0].upper() + s[1:] for s in sentences)
        return text, [t.id for t in covered], [t.id for t in denied]


# --------------------------------------------------------------------------- generation


def _pick_topics(rng: random.Random, topics: list[Topic], n: int, related: dict[int, list[int]]) -> list[Topic]:
    """``n`` distinct topics, no two of which share a name word."""
    while True:
        chosen = rng.sample(topics, n)
        ids = {t.id for t in chosen}
        if not any(ids & set(related[t.id]) for t in chosen):
            return chosen


def query_plan(n_three: int, n_scaling: int) -> list[dict]:
    """(family, template, op, n_terms, index within template) of every query, in qid order."""
    plan = []
    for template in three_term_templates():
        plan += [dict(family="three", template=template, op="mixed", n_terms=3, i=i) for i in range(n_three)]
    for op in ("AND", "OR"):
        for n in SCALING_TERMS:
            plan += [dict(family="scaling", template=scaling_template(op, n), op=op, n_terms=n, i=i)
                     for i in range(n_scaling)]
    return plan


def generate(out: str | Path, n_three: int = 100, n_scaling: int = 100, seed: int = 13,
             p_name: float = 0.5, p_contrast: float = 0.1, sources: str | Path = SOURCES) -> dict:
    """Write the benchmark into ``out``; return the manifest (parameters and counts).

    Raises
    ------
    ValueError
        If the text sources fail :func:`check_sources`.
    """
    topics, sentences = load_sources(sources)
    problems = check_sources(topics, sentences)
    if problems:
        raise ValueError("text sources are not clean:\n  " + "\n  ".join(problems))
    rng = random.Random(seed)
    writer = DocumentWriter(topics, sentences, rng, p_name=p_name, p_contrast=p_contrast)
    related = decoys(topics)
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    queries, docs = [], []
    for number, spec in enumerate(query_plan(n_three, n_scaling)):
        qid = f"{'t' if spec['family'] == 'three' else 's'}{number:05d}"
        chosen = _pick_topics(rng, topics, spec["n_terms"], related)
        text = fill(spec["template"], [t.name for t in chosen])
        tree = parse_query(text)
        keys = [Term(t.name).key for t in chosen]
        positives, negatives = categories(tree, keys)
        positives = rng.sample(positives, min(MAX_POSITIVES, len(positives)))
        negatives = rng.sample(negatives, min(MAX_NEGATIVES, len(negatives)))
        labelled = [(a, 1) for a in positives] + [(a, 0) for a in negatives]
        rng.shuffle(labelled)  # document numbers carry no label information
        for j, (assignment, label) in enumerate(labelled):
            about = [t for t, v in zip(chosen, assignment) if v]
            absent = [t for t, v in zip(chosen, assignment) if not v]
            text_j, covered, denied = writer.write(about, absent, chosen)
            docs.append(dict(id=f"{qid}-{j}", qid=qid, contents=text_j, topics=covered, label=label,
                             contrast=denied))
        queries.append(dict(
            qid=qid, family=spec["family"], template=spec["template"], query=text,
            base=" ".join(t.name for t in chosen), terms=[t.name for t in chosen], topics=[t.id for t in chosen],
            negations=count_negations(tree), n_terms=spec["n_terms"], op=spec["op"],
            split="fit" if spec["i"] < max(1, round(FIT_FRACTION * (n_three if spec["family"] == "three"
                                                                         else n_scaling))) else "test",
        ))
    _write_jsonl(out / "corpus.jsonl", ({"id": d["id"], "contents": d["contents"]} for d in docs))
    _write_jsonl(out / "docs.jsonl", ({k: v for k, v in d.items() if k != "contents"} for d in docs))
    _write_jsonl(out / "queries.jsonl", queries)
    with (out / "qrels.txt").open("w", encoding="utf-8") as f:
        f.writelines(f"{d['qid']} 0 {d['id']} {d['label']}\n" for d in docs)
    manifest = dict(
        generator_version=GENERATOR_VERSION, seed=seed, queries_per_template=n_three, scaling_queries=n_scaling,
        p_name=p_name, p_contrast=p_contrast, sources_sha1=_sources_hash(sources), topics=len(topics),
        queries=len(queries), documents=len(docs), positives=sum(d["label"] for d in docs),
    )
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def _write_jsonl(path: Path, rows) -> None:
    with path.open("w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def _sources_hash(sources: str | Path) -> str:
    h = hashlib.sha1()
    for name in ("topics.json", "sentences.json"):
        h.update((Path(sources) / name).read_bytes())
    return h.hexdigest()[:12]


def ensure(out: str | Path, **params) -> dict:
    """Generate into ``out`` unless a manifest with the same parameters and sources is there."""
    import inspect

    defaults = {k: v.default for k, v in inspect.signature(generate).parameters.items() if k != "out"}
    params = {**defaults, **params}
    path = Path(out) / "manifest.json"
    wanted = dict(generator_version=GENERATOR_VERSION, sources_sha1=_sources_hash(params["sources"]),
                  **{k: v for k, v in params.items() if k != "sources"})
    if path.is_file():
        have = json.loads(path.read_text(encoding="utf-8"))
        names = {"n_three": "queries_per_template", "n_scaling": "scaling_queries"}
        if all(have.get(names.get(k, k)) == v for k, v in wanted.items()):
            return have
    log(f"generating the ITLR synthetic benchmark into {out}")
    return generate(out, **params)


def describe(data: str | Path) -> list[str]:
    """Markdown statistics of a generated benchmark."""
    data = Path(data)
    queries = [json.loads(line) for line in (data / "queries.jsonl").open(encoding="utf-8")]
    docs = [json.loads(line) for line in (data / "docs.jsonl").open(encoding="utf-8")]
    contents = {json.loads(line)["id"]: json.loads(line)["contents"] for line in (data / "corpus.jsonl").open()}
    by_q: dict[str, list] = {}
    for d in docs:
        by_q.setdefault(d["qid"], []).append(d)
    rows = []
    for family in ("three", "scaling"):
        qs = [q for q in queries if q["family"] == family]
        ds = [d for q in qs for d in by_q[q["qid"]]]
        if not qs:
            continue
        rows.append([family, len(qs), len(ds), f"{sum(d['label'] for d in ds) / len(qs):.2f}",
                     f"{sum(1 - d['label'] for d in ds) / len(qs):.2f}",
                     f"{sum(len(contents[d['id']].split()) for d in ds) / len(ds):.0f}",
                     f"{sum(bool(d['contrast']) for d in ds) / len(ds):.1%}"])
    counts = Counter(q["negations"] for q in queries if q["family"] == "three")
    example = next(q for q in queries if q["family"] == "three" and q["negations"] == 1)
    lines = md_table(["set", "queries", "documents", "positives / query", "negatives / query", "words / doc",
                      "docs with a denial"], rows)
    lines += ["", "Three-term queries by number of negations: "
              + ", ".join(f"{n}: {counts[n]}" for n in sorted(counts)) + ".", "",
              f"Example query `{example['qid']}` (template `{example['template']}`): `{example['query']}`", ""]
    for d in by_q[example["qid"]]:
        lines.append(f"* `{d['id']}` (label {d['label']}): {contents[d['id']]}")
    return lines


def docstring_sections(doc: str) -> list[str]:
    """A numpy-style docstring's sections as Markdown (underlined titles become ``###`` headings)."""
    lines = doc.strip().splitlines()[1:]
    out = []
    for i, line in enumerate(lines):
        if set(line.strip()) == {"-"}:
            continue
        if i + 1 < len(lines) and lines[i + 1].strip() and set(lines[i + 1].strip()) == {"-"}:
            out += [f"### {line.strip()}", ""]
        else:
            out.append(line)
    return out


def main(argv: list[str] | None = None) -> int:
    p = base_parser(__doc__)
    p.add_argument("--queries-per-template", type=int, default=100, help="Three-term queries per template.")
    p.add_argument("--scaling-queries", type=int, default=100, help="Queries per (operator, number of terms).")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--p-name", type=float, default=0.5, help="Probability a mention uses the topic name.")
    p.add_argument("--p-contrast", type=float, default=0.1, help="Probability of a denial naming an absent term.")
    args = p.parse_args(argv)
    if args.quick:
        args.queries_per_template = args.scaling_queries = 5
    out = Path(args.data) / ("itlr-quick" if args.quick else "itlr")
    manifest = generate(out, args.queries_per_template, args.scaling_queries, args.seed, args.p_name,
                        args.p_contrast)
    lines = header("ITLR synthetic benchmark (seed 001, section 3.1 / appendix H, generated without an LLM)",
                   command(__file__, argv),
                   f"Data: `{out}`; manifest: `{json.dumps(manifest)}`.")
    lines += ["## Design", "", *docstring_sections(__doc__), "## Statistics", "", *describe(out)]
    write_lines(Path(args.results) / "itlr_synthetic.md", lines)
    log(f"{manifest['queries']} queries, {manifest['documents']} documents -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
