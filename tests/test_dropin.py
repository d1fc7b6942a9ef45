"""Adding ``import logical_pyserini`` to existing Pyserini code must not break it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).parents[1]

SCRIPT = """
import os
import logical_pyserini
from pyserini.search.lucene import LuceneSearcher
import pyserini.encode._openai
assert "OPENAI_API_KEY" not in os.environ, "the placeholder key leaked into the environment"
import jnius_config
assert not any("jdk.incubator.vector" in o for o in jnius_config.get_options()), jnius_config.get_options()
from jnius import autoclass
major = autoclass("java.lang.Runtime").version().feature()
assert major >= 21, major
s = LuceneSearcher({index!r})
print("hits", len(s.search("museum", 3)))
"""


def test_plain_pyserini_import_after_ours_without_api_key(museum_index):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "JAVA_HOME"))}
    env["PYTHONPATH"] = str(REPO)
    done = subprocess.run([sys.executable, "-c", SCRIPT.format(index=str(museum_index))], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "hits 3" in done.stdout
