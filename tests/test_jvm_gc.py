"""Python's cyclic GC must not crash the JVM through pyjnius objects."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[1]

# A Java byte[] (pyjnius ByteArray) owned only by a reference cycle: before the
# fix, gc.collect() cleared the ByteArray before freeing it and the process died
# with "Fatal Python error: Segmentation fault ... Garbage-collecting".
SCRIPT = """
import gc
from logical_pyserini._bootstrap import ensure_pyserini
ensure_pyserini()
from jnius import autoclass
String = autoclass("java.lang.String")
for i in range(300):
    holder = {"bytes": String("hello world " * 10).getBytes()}
    holder["self"] = holder
    del holder
    if i % 50 == 0:
        gc.collect()
b = String("abc").getBytes()
assert bytes(b) == b"abc", bytes(b)
print("ok")
"""


def test_gc_of_java_byte_arrays_in_cycles_does_not_crash():
    done = subprocess.run([sys.executable, "-X", "faulthandler", "-c", SCRIPT], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(REPO), "LOGICAL_PYSERINI_JAVA_HEAP": "256m"},
                          timeout=300)
    assert done.returncode == 0, done.stderr[-1500:]
    assert done.stdout.strip().endswith("ok")
