"""BetaE query files: a restricted unpickler and the 14 query structures."""

from __future__ import annotations

import io
import os
import pickle
from collections import defaultdict
from pathlib import Path
from typing import Any

from ._graph import read_input

__all__ = ["QUERY_STRUCTURES", "TYPES", "QueryFileError", "load_queries", "restricted_loads", "structure_name"]

E, R, N, U = "e", "r", "n", "u"

#: The 14 BetaE structures (name -> nested tuple with 'e', 'r', 'n', 'u' markers), in the usual order.
QUERY_STRUCTURES: dict[str, tuple] = {
    "1p": (E, (R,)),
    "2p": (E, (R, R)),
    "3p": (E, (R, R, R)),
    "2i": ((E, (R,)), (E, (R,))),
    "3i": ((E, (R,)), (E, (R,)), (E, (R,))),
    "ip": (((E, (R,)), (E, (R,))), (R,)),
    "pi": ((E, (R, R)), (E, (R,))),
    "2u": ((E, (R,)), (E, (R,)), (U,)),
    "up": (((E, (R,)), (E, (R,)), (U,)), (R,)),
    "2in": ((E, (R,)), (E, (R, N))),
    "3in": ((E, (R,)), (E, (R,)), (E, (R, N))),
    "inp": (((E, (R,)), (E, (R, N))), (R,)),
    "pin": ((E, (R, R)), (E, (R, N))),
    "pni": ((E, (R, R, N)), (E, (R,))),
}
TYPES: tuple[str, ...] = tuple(QUERY_STRUCTURES)
_NAME_OF = {v: k for k, v in QUERY_STRUCTURES.items()}


class QueryFileError(ValueError):
    """A query file that is missing, malformed or holds objects we refuse to load."""


class _RestrictedUnpickler(pickle.Unpickler):
    """Allows only the classes a BetaE query pickle holds; anything else is refused.

    ``find_class`` is the only way a pickle can reach code (``REDUCE`` /
    ``BUILD`` / ``INST`` all need a class from here), so refusing every other
    global makes loading data-only.
    """

    _ALLOWED = {("collections", "defaultdict"), ("builtins", "set"), ("builtins", "frozenset"),
                ("builtins", "list"), ("builtins", "tuple"), ("builtins", "dict")}

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in self._ALLOWED:
            return {"defaultdict": defaultdict, "set": set, "frozenset": frozenset, "list": list,
                    "tuple": tuple, "dict": dict}[name]
        raise pickle.UnpicklingError(f"refusing to load global {module}.{name} from a query pickle")


def restricted_loads(data: bytes) -> Any:
    """Unpickle ``data`` allowing only dict/defaultdict/set/list/tuple and plain values."""
    return _RestrictedUnpickler(io.BytesIO(data)).load()


def structure_name(structure: tuple) -> str | None:
    """The BetaE name of a structure (``'2in'``), or None for one outside the 14."""
    return _NAME_OF.get(structure)


def load_queries(path: str | os.PathLike) -> dict[str, list[tuple]]:
    """Read a BetaE query pickle into ``{type name: [query, ...]}`` (each list sorted).

    Structures outside the 14 (e.g. BetaE's De Morgan forms ``2u-DM``) are left out.

    Raises
    ------
    QueryFileError
        Missing file, a pickle that needs any other class, or not a dict of sets.
    """
    path = Path(path)
    data = read_input(path, "queries", QueryFileError)
    try:
        obj = restricted_loads(data)
    except pickle.UnpicklingError as exc:
        raise QueryFileError(f"{path}: {exc}") from None
    except Exception as exc:  # truncated/garbled pickles raise many kinds
        raise QueryFileError(f"{path}: not a readable query pickle ({type(exc).__name__}: {exc})") from None
    if not isinstance(obj, dict):
        raise QueryFileError(f"{path}: expected a dict of query structure -> set of queries, got {type(obj).__name__}")
    out: dict[str, list[tuple]] = {}
    for structure, queries in obj.items():
        name = structure_name(structure) if isinstance(structure, tuple) else None
        if name is None:
            continue
        if not isinstance(queries, (set, frozenset, list)):
            raise QueryFileError(f"{path}: queries of {name} are a {type(queries).__name__}, not a set")
        out[name] = sorted(queries)
    return {t: out[t] for t in TYPES if t in out}
