# Two commands set up everything on a fresh machine (the virtualenv is created on first use):
#   make demo   demo corpus -> Lucene index -> plain and logical search -> runs/ -> evaluation table
#   make test   the test suite (what CI runs; model-weight tests marked slow are excluded)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python

.PHONY: demo test test-slow bench clean

$(VENV)/.installed: setup.cfg pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 required (set PYTHON=python3.11)"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q -e '.[test]'
	@touch $@

demo: $(VENV)/.installed
	$(PY) -m logical_pyserini.demo

test: $(VENV)/.installed
	$(PY) -m pytest -q -m "not slow" --timeout=900 tests

test-slow: $(VENV)/.installed
	$(PY) -m pytest -q -m slow --timeout=1800 tests

bench: $(VENV)/.installed
	$(PY) eval/bench_latency.py

clean:
	rm -rf indexes/demo runs/*.txt
