"""Pyserini's named resources: prebuilt indexes, topics and qrels by name.

One resolver for every CLI and for the searchers' ``from_prebuilt_index``:
an argument that is an existing directory (``--index``) or file
(``--topics``, ``--qrels``) is used as it is; otherwise it is looked up in
Pyserini's own registries and cache, laid out exactly as Pyserini 1.6.0 and
its Anserini 1.7.1 jar lay them out:

* prebuilt indexes: ``$PYSERINI_CACHE`` (default ``~/.cache/pyserini``) +
  ``indexes/<tarball name without .tar.gz>.<md5>``
  (``pyserini.util.download_and_unpack_index``);
* topics and qrels: ``~/.cache/pyserini/topics-and-qrels/<file name>`` where
  the file name is that of the name's ``Topics`` / ``Qrels`` entry
  (Anserini 1.7.1's ``TopicReader`` / ``RelevanceJudgments``; this Anserini
  version ignores ``PYSERINI_CACHE`` for them).

A cached name never touches the network.  An uncached one is fetched with
Pyserini's own functions when the download host is reachable; offline (or
with ``LOGICAL_PYSERINI_OFFLINE=1``) it fails at once with one line naming the
cache path and the command that fetches it on a machine with network access.

Pyserini's registries live in the Anserini jar, so resolving a *name* starts
the JVM; resolving a directory or file does not.
"""

from __future__ import annotations

import difflib
import logging
import os
import re
import socket
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from ._topics import read_topics

logger = logging.getLogger(__name__)

__all__ = [
    "IndexResource", "ResourceError", "check_dense_encoder", "check_impact_encoder", "index_cache_dir", "offline", "require_stored_text",
    "resolve_cli_indexes", "resolve_index", "resolve_qrels", "resolve_topics", "topics_cache_dir",
]

OFFLINE_ENV = "LOGICAL_PYSERINI_OFFLINE"

# Pyserini's registries in the order ``download_prebuilt_index`` searches them:
# kind -> (attribute of pyserini.prebuilt_index_info, what it is).
_REGISTRIES = {
    "lucene": ("TF_INDEX_INFO", "Lucene inverted (BM25) index"),
    "impact": ("IMPACT_INDEX_INFO", "Lucene impact (learned sparse) index"),
    "lucene-hnsw": ("LUCENE_HNSW_INDEX_INFO", "Lucene HNSW vector index"),
    "lucene-flat": ("LUCENE_FLAT_INDEX_INFO", "Lucene flat vector index"),
    "faiss": ("FAISS_INDEX_INFO", "Faiss dense index"),
}

# What each role (CLI flag) accepts, and what to do instead for every other kind.
_ROLES = {
    "lucene": ("--index", "a Lucene inverted (BM25) index"),
    "faiss": ("--dense-index", "a Faiss index"),
    "impact": ("--impact-index", "a Lucene impact index"),
}
_ADVICE = {
    ("lucene", "faiss"): "pass it as --dense-index {name} --encoder DIR{bm25}",
    ("lucene", "impact"): "pass it as --impact-index {name} --impact-encoder DIR|FILE next to a BM25 --index{bm25}",
    ("lucene", "lucene-hnsw"): "logical_pyserini's dense leaves read Faiss indexes{faiss}{bm25}",
    ("lucene", "lucene-flat"): "logical_pyserini's dense leaves read Faiss indexes{faiss}{bm25}",
    ("faiss", "lucene"): "pass it as --index {name}",
    ("faiss", "impact"): "impact indexes are not dense; use a Faiss index or the BM25 index{bm25}",
    ("faiss", "lucene-hnsw"): "logical_pyserini's dense leaves read Faiss indexes{faiss}",
    ("faiss", "lucene-flat"): "logical_pyserini's dense leaves read Faiss indexes{faiss}",
    ("impact", "lucene"): "pass it as --index {name}",
    ("impact", "faiss"): "pass it as --dense-index {name} --encoder DIR",
    ("impact", "lucene-hnsw"): "logical_pyserini's dense leaves read Faiss indexes{faiss}",
    ("impact", "lucene-flat"): "logical_pyserini's dense leaves read Faiss indexes{faiss}",
}


class ResourceError(ValueError):
    """A named resource that cannot be used here (one line: what, where, and what to do)."""


@dataclass(frozen=True)
class IndexResource:
    """An index directory, and the Pyserini prebuilt name it came from (if any).

    Attributes
    ----------
    path : Path
        The index directory.
    name : str or None
        Pyserini's prebuilt index name; None for a directory given by path.
    kind : str
        ``lucene``, ``impact``, ``lucene-hnsw``, ``lucene-flat`` or ``faiss``.
    info : dict
        Pyserini's metadata of the prebuilt index (empty for a directory).
    """

    path: Path
    name: str | None = None
    kind: str = "lucene"
    info: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def label(self) -> str:
        return f"prebuilt index {self.name!r}" if self.name else f"index {self.path}"

    @property
    def description(self) -> str:
        return str(self.info.get("description", "")).strip()


# -- environment -----------------------------------------------------------

def offline() -> bool:
    """True when ``LOGICAL_PYSERINI_OFFLINE`` is set to a true value."""
    return os.environ.get(OFFLINE_ENV, "").strip().lower() not in ("", "0", "false", "no")


def _reachable(url: str, timeout: float = 5.0) -> bool:
    """Can a TCP connection to the URL's host be opened?  (No request is sent.)"""
    if offline():
        return False
    parsed = urlparse(url)
    try:
        socket.create_connection((parsed.hostname, parsed.port or 443), timeout=timeout).close()
        return True
    except (OSError, TypeError):
        return False


def index_cache_dir() -> Path:
    """Pyserini's prebuilt-index cache: ``$PYSERINI_CACHE/indexes`` or ``~/.cache/pyserini/indexes``."""
    custom = os.environ.get("PYSERINI_CACHE")
    base = custom if custom else os.path.expanduser(os.path.join("~", ".cache", "pyserini"))
    return Path(base) / "indexes"


def topics_cache_dir() -> Path:
    """Anserini 1.7.1's topics-and-qrels cache: ``~/.cache/pyserini/topics-and-qrels``."""
    return Path(os.path.expanduser(os.path.join("~", ".cache", "pyserini", "topics-and-qrels")))


# -- indexes ---------------------------------------------------------------

def _registries() -> dict[str, dict]:
    from ._bootstrap import ensure_pyserini

    ensure_pyserini()
    import pyserini.prebuilt_index_info as info

    return {kind: getattr(info, attr) for kind, (attr, _) in _REGISTRIES.items()}


def _cache_path(info: dict) -> Path:
    """Where ``download_prebuilt_index`` unpacks this index (same naming rule)."""
    base = info.get("filename") or info["urls"][0].split("/")[-1]
    return index_cache_dir() / f"{re.sub(r'.tar.gz.*$', '', base)}.{info['md5']}"


_FILE_SUFFIXES = (".txt", ".tsv", ".json", ".jsonl", ".ndjson", ".gz", ".trec", ".qrels", ".run")


def _looks_like_path(spec: str) -> bool:
    """A path the user meant (so a typo is reported as a missing file, without starting the JVM)."""
    return os.sep in spec or spec.startswith((".", "~")) or spec.lower().endswith(_FILE_SUFFIXES)


def _sibling(name: str, registry: dict, hint: str | None = None) -> str | None:
    """A related entry of ``registry``: ``hint`` itself, or ``name`` cut at a dot."""
    if hint and hint in registry:
        return hint
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):
        if ".".join(parts[:i]) in registry:
            return ".".join(parts[:i])
    return None


def resolve_index(spec: str | os.PathLike, role: str = "lucene", accept: tuple[str, ...] = ()) -> IndexResource:
    """The index directory of ``spec``: a directory, or one of Pyserini's prebuilt names.

    Parameters
    ----------
    spec : str
        An index directory, or a Pyserini prebuilt index name such as
        ``msmarco-v1-passage`` or ``beir-v1.0.0-scifact.flat``.
    role : str
        ``lucene`` (``--index``: BM25 leaves), ``faiss`` (``--dense-index``)
        or ``impact`` (``--impact-index``: learned sparse leaves).
    accept : tuple of str
        Other index kinds the flag takes too (the search CLI's ``--index``
        takes an impact index, as ``pyserini.search.lucene --impact`` does).

    Raises
    ------
    FileNotFoundError
        If ``spec`` is neither a directory nor a prebuilt name.
    ResourceError
        If the name is of a kind the role cannot use (naming what to use), or
        it is not cached and cannot be downloaded here (naming the cache path
        and the command that fetches it).
    """
    if role not in _ROLES:
        raise ValueError(f"unknown index role {role!r}; choose from {', '.join(_ROLES)}")
    spec = str(spec)
    if Path(spec).is_dir() or _looks_like_path(spec):
        return IndexResource(Path(spec), None, role)
    registries = _registries()
    kind = next((k for k, reg in registries.items() if spec in reg), None)
    if kind is None:
        known = [n for reg in registries.values() for n in reg]
        close = difflib.get_close_matches(spec, known, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        what = {"lucene": "Lucene", "faiss": "Faiss", "impact": "Lucene impact"}[role]
        raise FileNotFoundError(f"{what} index not found: {spec} is not a directory nor one of Pyserini's "
                                f"prebuilt index names{hint}")
    info = dict(registries[kind][spec])
    if kind != role and kind not in accept:
        raise ResourceError(_mismatch(spec, kind, role, info, registries))
    path = _cache_path(info)
    if not path.is_dir():
        _download_index(spec, info, path)
    resource = IndexResource(path, spec, kind, info)
    if kind in ("lucene", "impact"):
        _validate_lucene(resource)
    return resource


def _mismatch(name: str, kind: str, role: str, info: dict, registries: dict) -> str:
    flag, accepts = _ROLES[role]
    bm25 = _sibling(name, registries["lucene"], info.get("texts"))
    faiss = _sibling(name, registries["faiss"])
    advice = _ADVICE.get((role, kind), "").format(
        name=name,
        bm25=f" (BM25 counterpart: --index {bm25})" if bm25 else "",
        faiss=f": use --dense-index {faiss}" if faiss else "",
    )
    return f"{name} is a {_REGISTRIES[kind][1]}, but {flag} takes {accepts}; {advice}"


def _download_index(name: str, info: dict, path: Path) -> None:
    url = info["urls"][0]
    if not _reachable(url):
        size = info.get("size compressed (bytes)")
        size_text = f", {_human(int(size))} compressed" if size else ""
        raise ResourceError(
            f"prebuilt index {name} is not in the cache ({path} missing{size_text}) and {urlparse(url).hostname} "
            f"cannot be reached; on a machine with network run `python -c \"from pyserini.util import "
            f"download_prebuilt_index; download_prebuilt_index('{name}')\"` and copy {path.name} into "
            f"{path.parent} (or set PYSERINI_CACHE to the cache that holds it)")
    from pyserini.util import download_prebuilt_index

    logger.info("downloading prebuilt index %s into %s", name, path.parent)
    try:
        got = Path(download_prebuilt_index(name))
    except Exception as exc:  # noqa: BLE001 - HTTP, checksum, tar or disk errors: one line, not a traceback
        raise ResourceError(f"prebuilt index {name}: download failed ({_first_line(exc)})") from None
    if got != path or not path.is_dir():
        raise ResourceError(f"prebuilt index {name}: Pyserini unpacked it to {got}, expected {path}")


def _human(size: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{size:.1f} {unit}" if unit != "B" else f"{size} B"
        size /= 1024
    return f"{size} B"  # unreachable


def _validate_lucene(resource: IndexResource) -> None:
    """Pyserini's consistency check (documents, unique and total terms); a warning, not a failure."""
    from pyserini.index.lucene import LuceneIndexReader

    reader = None
    try:
        reader = LuceneIndexReader(str(resource.path))
        stats = reader.stats()
    except Exception as exc:  # noqa: BLE001 - a broken cached index is reported by the searcher
        logger.warning("%s: cannot read index statistics from %s (%s)", resource.label, resource.path, exc)
        return
    finally:
        if reader is not None:
            reader.reader.close()  # the searcher opens its own
    diffs = [f"{key} {stats.get(key)} vs {resource.info[key]}" for key in ("documents", "unique_terms", "total_terms")
             if key in resource.info and stats.get(key) != resource.info[key]]
    if diffs:
        logger.warning("%s in %s does not match Pyserini's published statistics (%s): a partial download or "
                       "another index under that name", resource.label, resource.path, "; ".join(diffs))


def require_stored_text(resource: IndexResource | None, searcher: Any, purpose: str) -> None:
    """Fail unless the Lucene index behind ``searcher`` stores document text.

    Parameters
    ----------
    resource : IndexResource or None
        The resolved ``--index`` (names the flavour to use instead).
    searcher : LuceneSearcher
        An open searcher of that index; its first document is inspected.
    purpose : str
        What needs the text, e.g. ``"--rerank orlog"``.

    Raises
    ------
    ResourceError
        When the index stores neither ``raw`` nor ``contents``.
    """
    try:
        doc = searcher.doc(0) if searcher is not None else None
        has_text = doc is not None and bool(doc.raw() or doc.contents())
    except Exception:  # noqa: BLE001 - an unreadable document counts as no text
        has_text = False
    if has_text:
        return
    label = resource.label if resource is not None else "the index"
    if resource is not None and resource.name and resource.kind == "impact":
        alt = f"{resource.name}-text"
        fix = (f"use --index {alt}" if alt in _registries()["impact"]
               else f"search its BM25 counterpart with --index and give {resource.name} as --impact-index")
    elif resource is not None and resource.name:
        alt = resource.info.get("texts")
        if alt == resource.name:
            alt = None
        fix = f"use --index {alt}" if alt else f"use a flavour of {resource.name} that stores raw text (-full)"
    else:
        fix = "rebuild it with `python -m logical_pyserini.index`, which stores raw text"
    raise ResourceError(f"{label} stores no document text, which {purpose} needs; {fix}")


# -- topics and qrels ------------------------------------------------------

def _named(kind: str) -> dict:
    from ._bootstrap import ensure_pyserini

    ensure_pyserini()
    from pyserini.search import _base

    return _base.topics_mapping if kind == "topics" else _base.qrels_mapping


def _unknown(kind: str, spec: str, names) -> FileNotFoundError:
    close = difflib.get_close_matches(spec, list(names), n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    return FileNotFoundError(f"{kind} file not found: {spec} is not a file nor one of Pyserini's {kind} names{hint}")


def _offline_error(kind: str, spec: str, path: Path, fetch: str) -> ResourceError:
    return ResourceError(
        f"{kind} {spec} are not in the cache ({path} missing) and cannot be downloaded here; on a machine with "
        f"network run `python -c \"{fetch}\"` and copy {path.name} into {path.parent}")


def _qid_key(qid: str):
    return (0, int(qid), "") if qid.isdigit() else (1, 0, qid)


def resolve_topics(spec: str | os.PathLike, field: str = "title") -> dict[str, str]:
    """Topics ``{qid: text}`` from a file (see :func:`read_topics`) or a Pyserini topics name.

    A name (``dl19-passage``, ``msmarco-passage-dev-subset``,
    ``beir-v1.0.0-scifact-test``, ...) is read from Anserini's cache with the
    name's own Anserini topic reader, so the qids are exactly Pyserini's.
    ``field`` is the topic field used as the query (Pyserini's default
    ``title``).  Qids come in numeric order, then string order.

    Raises
    ------
    FileNotFoundError, TopicsError
        For a missing or malformed file, or an unknown name.
    ResourceError
        For a name that is not cached and cannot be downloaded here.
    """
    spec = str(spec)
    if Path(spec).is_file() or _looks_like_path(spec):
        return read_topics(spec)
    mapping = _named("topics")
    if spec not in mapping:
        raise _unknown("topics", spec, mapping.keys())
    entry = mapping[spec]
    path = topics_cache_dir() / Path(entry.path).name
    from pyserini.search import get_topics, get_topics_with_reader

    if path.is_file():
        raw = get_topics_with_reader(entry.readerClass.getName(), str(path))
    elif _reachable("https://raw.githubusercontent.com"):
        try:
            raw = get_topics(spec)
        except Exception as exc:  # noqa: BLE001 - Anserini's download error is a Java exception
            raise ResourceError(f"topics {spec}: download failed ({_first_line(exc)})") from None
    else:
        raise _offline_error("topics", spec, path, f"from pyserini.search import get_topics; get_topics('{spec}')")
    topics: dict[str, str] = {}
    for qid in sorted((str(q) for q in raw), key=_qid_key):
        fields = raw[int(qid) if qid.isdigit() and int(qid) in raw else qid]
        text = fields.get(field)
        if text is None:
            raise ValueError(f"topics {spec}: qid {qid} has no field {field!r} (fields: {', '.join(sorted(fields))})")
        if text.strip():
            topics[qid] = text.strip()
    if not topics:
        raise ValueError(f"topics {spec}: no topics with a {field!r} field in {path}")
    return topics


def resolve_qrels(spec: str | os.PathLike) -> str:
    """Path of a TREC qrels file: ``spec`` itself, or the cached file of a Pyserini qrels name.

    Raises
    ------
    FileNotFoundError
        For a missing file or an unknown name.
    ResourceError
        For a name that is not cached and cannot be downloaded here.
    """
    spec = str(spec)
    if Path(spec).is_file() or _looks_like_path(spec):
        if not Path(spec).is_file():
            raise FileNotFoundError(f"qrels file not found: {spec}")
        return spec
    mapping = _named("qrels")
    if spec not in mapping:
        raise _unknown("qrels", spec, mapping.keys())
    path = topics_cache_dir() / Path(mapping[spec].path).name
    if path.is_file():
        return str(path)
    if not _reachable("https://raw.githubusercontent.com"):
        raise _offline_error("qrels", spec, path,
                             f"from pyserini.search import get_qrels_file; get_qrels_file('{spec}')")
    from pyserini.search import get_qrels_file

    try:
        return get_qrels_file(spec)
    except Exception as exc:  # noqa: BLE001 - Anserini's download error is a Java exception
        raise ResourceError(f"qrels {spec}: download failed ({_first_line(exc)})") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"


def resolve_cli_indexes(index: str | None, dense_index: str | None, encoder: Any = None,
                        impact: bool = False) -> tuple[IndexResource | None, IndexResource | None]:
    """Resolve ``--index`` and ``--dense-index``; a prebuilt dense index needs ``--encoder DIR``.

    With ``impact`` (the search CLI), ``--index`` may also be a Lucene impact
    index, whose query encoder ``encoder`` is then (see :func:`check_impact_encoder`).

    Raises
    ------
    FileNotFoundError, ResourceError
        As :func:`resolve_index`, :func:`check_dense_encoder` and :func:`check_impact_encoder`.
    """
    lucene = resolve_index(index, "lucene", ("impact",) if impact else ()) if index else None
    dense = resolve_index(dense_index, "faiss") if dense_index else None
    check_dense_encoder(dense, encoder)
    if lucene is not None and lucene.kind == "impact" and dense is None:
        check_impact_encoder(lucene, encoder, "--encoder")
    return lucene, dense


def check_dense_encoder(dense: IndexResource | None, encoder: Any) -> None:
    """A prebuilt Faiss index needs its own query encoder: an encoder object or a local model directory.

    (The packaged default encoder is another model, and nothing is downloaded
    from a model hub.)

    Raises
    ------
    ResourceError
        Naming the index's model and the ``--encoder DIR`` flag.
    """
    if dense is None or not dense.name:
        return
    if encoder is not None and not isinstance(encoder, (str, os.PathLike)):
        return  # a QueryEncoder / SentenceEncoder object
    if encoder and Path(encoder).is_dir():
        return
    got = f"--encoder {encoder} is not a directory" if encoder else "no --encoder was given"
    raise ResourceError(f"{dense.name} ({dense.description.rstrip('.')}) needs its query encoder as a local "
                        f"model directory, --encoder DIR, and {got}")


def check_impact_encoder(impact: IndexResource | None, encoder: Any, flag: str = "--impact-encoder") -> None:
    """A prebuilt impact index needs its query encoder: an encoder object, a local model directory, or a
    JSONL file of pre-encoded queries (Pyserini's ``CachedDataQueryEncoder`` format).

    (Without one, Pyserini would weigh whitespace tokens, which only suits
    pre-tokenized queries; nothing is downloaded from a model hub.)

    Raises
    ------
    ResourceError
        Naming the index's model and ``flag``.
    """
    if impact is None or not impact.name:
        return
    if encoder is not None and not isinstance(encoder, (str, os.PathLike)):
        return  # a QueryEncoder object
    if encoder and Path(encoder).exists():
        return
    got = f"{flag} {encoder} is neither a directory nor a file" if encoder else f"no {flag} was given"
    raise ResourceError(f"{impact.name} ({impact.description.rstrip('.')}) needs its query encoder: a local model "
                        f"directory or a JSONL file of pre-encoded queries, {flag} DIR|FILE, and {got}")
