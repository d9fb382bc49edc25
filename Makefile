# pbem: `make demo` plays a demo game; `make test` runs the default test suite.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow soak bench browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pbem demo --out demo

test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2

test-slow: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 -m slow

soak: test-slow

bench: $(STAMP)
	$(BIN)/python bench/bench.py
	$(BIN)/python bench/report.py

clean:
	rm -rf $(VENV) demo build dist *.egg-info
