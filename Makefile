# kvlog developer entry points. Every target creates .venv on first use and installs what it needs.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
PY     := $(VENV)/bin/python
PIP    := $(PY) -m pip
JOBS   ?= 2
PYTEST_ARGS ?=

.PHONY: all venv build test test-slow test-debug demo bench compare clean distclean

all: build

$(VENV)/.installed: pyproject.toml setup.py
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip "setuptools>=77" wheel "Cython>=3.1" "numpy>=1.26"
	$(PIP) install -q --no-build-isolation -e ".[test,bench,spark]"
	touch $@

venv: $(VENV)/.installed

# Incremental: only changed .pyx/.c files are recompiled.
build: $(VENV)/.installed
	$(PY) setup.py -q build_ext --inplace -j $(JOBS)

test: build
	$(PY) -m pytest -n $(JOBS) -q $(PYTEST_ARGS)

# Long soaks and big fuzz runs (opt-in).
test-slow: build
	KVLOG_HYPOTHESIS_PROFILE=slow $(PY) -m pytest -n $(JOBS) -q -m "slow or not slow" $(PYTEST_ARGS)

# Whole suite against a bounds-checked, -O0 build (kept apart in build-debug/).
test-debug: $(VENV)/.installed
	KVLOG_DEBUG_BUILD=1 $(PY) setup.py -q build_ext --inplace -j $(JOBS) --build-temp build-debug --force
	$(PY) -m pytest -n $(JOBS) -q $(PYTEST_ARGS)
	$(PY) setup.py -q build_ext --inplace -j $(JOBS) --force

demo: build
	$(PY) -m kvlog.demo

compare: build
	$(PY) asv_bench/compare_peers.py

# asv against the current build (history over commits: later, `make bench-history`)
bench: build
	cd asv_bench && ../$(PY) -m asv machine --yes >/dev/null && ../$(PY) -m asv run --python=same --quick --show-stderr

clean:
	rm -rf build build-debug src/kvlog/_core/*.c src/kvlog/_core/*.so src/kvlog/_core/*.html

distclean: clean
	rm -rf $(VENV) .hypothesis .pytest_cache
