"""A knowledge graph as per-relation sparse adjacency matrices (scipy CSR)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

import numpy as np

__all__ = ["GraphError", "KnowledgeGraph", "gather_rows", "read_triples"]


class GraphError(ValueError):
    """A triples file that is missing or malformed (the message names file and line)."""


def read_triples(path: str | os.PathLike) -> np.ndarray:
    """Read ``head<TAB>relation<TAB>tail`` integer ids into an ``(n, 3)`` int64 array.

    Raises
    ------
    GraphError
        When the file is missing or a line is not three integers (line number given).
    """
    path = Path(path)
    text = read_input(path, "triples", GraphError)
    try:
        flat = np.array(text.split(), dtype=np.int64)
    except ValueError:
        flat = None
    if flat is None or flat.size % 3 or np.any(flat < 0):
        # Slow path only to name the first bad line.
        for no, line in enumerate(text.decode("utf-8", "replace").splitlines(), 1):
            parts = line.split("\t")
            if line.strip() and (len(parts) != 3 or not all(p.strip().isdigit() for p in parts)):
                raise GraphError(f"{path}:{no}: expected head<TAB>relation<TAB>tail ids, got {line[:80]!r}")
        raise GraphError(f"{path}: expected three non-negative integer ids per line")
    return flat.reshape(-1, 3)


def read_input(path: Path, what: str, error: type[Exception]) -> bytes:
    """The bytes of an input file, or ``error`` with one line naming the file (shared by the kg readers)."""
    try:
        return path.read_bytes()
    except OSError as exc:
        raise error(f"{path}: cannot read {what} ({exc.strerror})") from None


def gather_rows(indptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Positions of every entry of CSR ``rows`` (in row order) and each row's length, without a Python loop."""
    starts, lengths = indptr[rows], indptr[rows + 1] - indptr[rows]
    total = int(lengths.sum())
    return np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total), lengths


def _scipy_sparse():
    # Imported on first use: the base install (no ``kg`` extra) must import this package.
    try:
        import scipy.sparse
    except ImportError:
        raise GraphError("the knowledge-graph store needs scipy: pip install 'logical_pyserini[kg]'") from None
    return scipy.sparse


class KnowledgeGraph:
    """Triples held as one CSR adjacency matrix per relation (built lazily on first use).

    Projection of an entity set through a relation is a row gather from that
    relation's matrix; neighbourhood retrieval walks a CSR of all outgoing
    edges of each entity, ordered by relation.

    Parameters
    ----------
    triples : numpy.ndarray
        ``(n, 3)`` integer array of (head, relation, tail).
    num_entities, num_relations : int, optional
        Sizes of the id spaces (default: one past the largest id seen).
    """

    def __init__(self, triples: np.ndarray, num_entities: int | None = None, num_relations: int | None = None):
        triples = np.unique(np.asarray(triples, dtype=np.int64).reshape(-1, 3), axis=0)
        self.num_entities = int(num_entities if num_entities is not None
                                else (max(triples[:, 0].max(), triples[:, 2].max()) + 1 if len(triples) else 0))
        self.num_relations = int(num_relations if num_relations is not None
                                 else (triples[:, 1].max() + 1 if len(triples) else 0))
        if len(triples) and (max(triples[:, 0].max(), triples[:, 2].max()) >= self.num_entities
                             or triples[:, 1].max() >= self.num_relations):
            raise GraphError("triple ids exceed num_entities/num_relations")
        # Sorted by (relation, head, tail): each relation is a contiguous block.
        order = np.lexsort((triples[:, 2], triples[:, 0], triples[:, 1]))
        self.triples = triples[order]
        self._rel_ptr = np.searchsorted(self.triples[:, 1], np.arange(self.num_relations + 1))
        self._adj: dict = {}
        self._out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    # -- loading ------------------------------------------------------------
    @classmethod
    def from_files(cls, paths: Sequence[str | os.PathLike], num_entities: int | None = None,
                   num_relations: int | None = None) -> "KnowledgeGraph":
        """Load and merge triples files (e.g. ``train.txt`` and ``valid.txt``)."""
        parts = [read_triples(p) for p in paths]
        return cls(np.concatenate(parts) if parts else np.zeros((0, 3), np.int64), num_entities, num_relations)

    def __len__(self) -> int:
        return len(self.triples)

    # -- adjacency ----------------------------------------------------------
    def adjacency(self, relation: int) -> "scipy.sparse.csr_matrix":  # noqa: F821
        """The ``(num_entities, num_entities)`` 0/1 CSR matrix of ``relation`` (row = head)."""
        relation = int(relation)
        if not 0 <= relation < self.num_relations:
            raise GraphError(f"relation id {relation} out of range [0, {self.num_relations})")
        mat = self._adj.get(relation)
        if mat is None:
            sp = _scipy_sparse()
            block = self.triples[self._rel_ptr[relation]:self._rel_ptr[relation + 1]]
            indptr = np.searchsorted(block[:, 0], np.arange(self.num_entities + 1)).astype(np.int64)
            mat = sp.csr_matrix((np.ones(len(block), np.float32), block[:, 2].copy(), indptr),
                                shape=(self.num_entities, self.num_entities))
            self._adj[relation] = mat
        return mat

    def inverse_relations(self) -> np.ndarray:
        """``inv[r]``: the relation holding exactly the reversed pairs of ``r``, or -1 when none does.

        BetaE's graphs store each relation with its inverse as ids ``2k``/``2k+1``;
        those are tried first, any other relation after.
        """
        if getattr(self, "_inv", None) is None:
            inv = np.full(self.num_relations, -1, np.int64)
            keys = {}
            for r in range(self.num_relations):
                p = self.relation_pairs(r)
                keys[r] = (p[:, 0] * self.num_entities + p[:, 1]).tobytes()
            rev = {}
            for r in range(self.num_relations):
                p = self.relation_pairs(r)[:, ::-1]
                p = p[np.lexsort((p[:, 1], p[:, 0]))]
                rev[r] = (p[:, 0] * self.num_entities + p[:, 1]).tobytes()
            by_key: dict[bytes, list[int]] = {}
            for r, k in keys.items():
                by_key.setdefault(k, []).append(r)
            for r in range(self.num_relations):
                if self.relation_size(r) == 0:
                    continue
                cands = by_key.get(rev[r], [])
                if cands:
                    inv[r] = (r ^ 1) if (r ^ 1) in cands else cands[0]
            self._inv = inv
        return self._inv

    def relation_size(self, relation: int) -> int:
        """Number of triples of ``relation``."""
        return int(self._rel_ptr[relation + 1] - self._rel_ptr[relation])

    def relation_pairs(self, relation: int) -> np.ndarray:
        """``(n, 2)`` (head, tail) pairs of ``relation``, sorted."""
        return self.triples[self._rel_ptr[relation]:self._rel_ptr[relation + 1]][:, [0, 2]]

    def project(self, entities: np.ndarray, relation: int) -> np.ndarray:
        """Sorted unique tails reached from ``entities`` (int array) through ``relation``."""
        mat = self.adjacency(relation)
        entities = np.asarray(entities, dtype=np.int64)
        if entities.size == 0:
            return entities
        pos, _ = gather_rows(mat.indptr, entities)
        return np.unique(mat.indices[pos]).astype(np.int64)

    # -- neighbourhoods -----------------------------------------------------
    def out_csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(ptr, relations, tails)``: edges leaving entity ``e`` are ``ptr[e]:ptr[e+1]``, by relation."""
        if self._out is None:
            order = np.lexsort((self.triples[:, 2], self.triples[:, 1], self.triples[:, 0]))
            by_head = self.triples[order]
            ptr = np.searchsorted(by_head[:, 0], np.arange(self.num_entities + 1))
            self._out = (ptr, by_head[:, 1].copy(), by_head[:, 2].copy())
        return self._out

    def edges_of(self, entity: int) -> tuple[np.ndarray, np.ndarray]:
        """(relations, tails) of every edge leaving ``entity`` (inverse relations give incoming ones)."""
        ptr, rel, tail = self.out_csr()
        return rel[ptr[entity]:ptr[entity + 1]], tail[ptr[entity]:ptr[entity + 1]]

    def neighbourhood(self, seeds: Iterable[int], relations: Iterable[int] = (), *, hops: int = 1,
                      max_triples: int = 200, per_entity: int | None = 50) -> list[tuple[int, int, int]]:
        """A capped, query-aware neighbourhood around ``seeds``.

        Breadth-first over ``hops`` hops; at each entity, edges whose relation
        is in ``relations`` (the current step's relations) come first, then the
        rest by relation id; at most ``per_entity`` edges per entity (long
        adjacency lists are truncated) and ``max_triples`` in total.  The order
        is deterministic, so the same step always retrieves the same evidence.

        Returns
        -------
        list of (head, relation, tail)
        """
        wanted = np.asarray(sorted(set(int(r) for r in relations)), dtype=np.int64)
        out: list[tuple[int, int, int]] = []
        seen_edges: set[tuple[int, int, int]] = set()
        frontier = sorted(set(int(s) for s in seeds))
        visited = set(frontier)
        for _ in range(max(1, hops)):
            nxt: list[int] = []
            # Query relations first across the whole frontier, then other edges.
            for preferred in (True, False):
                for e in frontier:
                    rel, tail = self.edges_of(e)
                    mask = np.isin(rel, wanted)
                    if not preferred:
                        mask = ~mask
                    idx = np.flatnonzero(mask)
                    if per_entity is not None:
                        idx = idx[:per_entity]
                    for i in idx:
                        edge = (e, int(rel[i]), int(tail[i]))
                        if edge in seen_edges:
                            continue
                        if len(out) >= max_triples:
                            return out
                        seen_edges.add(edge)
                        out.append(edge)
                        if edge[2] not in visited:
                            visited.add(edge[2])
                            nxt.append(edge[2])
            frontier = nxt
            if not frontier:
                break
        return out
