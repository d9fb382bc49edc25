# pbem: `make demo` plays a demo game; `make test` runs the default test suite;
# `make lint` runs ruff (check and format --check) and mypy.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test test-slow soak bench lint browser-deps clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[test,lint]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/pbem demo --out demo

# Two workers, each given whole test files (--dist loadfile), so that a file's
# module-scoped set-up (a game played and measured in Chromium, a built wheel) is
# made once, not once in each worker that happens to get some of its tests.  The
# tests start pbem in a few hundred subprocesses: with bytecode written (even where
# the environment sets PYTHONDONTWRITEBYTECODE), each module is compiled once per
# run, not once per process.  __pycache__/ is in .gitignore.
PYTEST := PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -q -n 3 --dist loadfile

test: $(STAMP)
	$(PYTEST)

test-slow: $(STAMP)
	$(PYTEST) -m slow

soak: test-slow

LINTED := pbem rules tests bench tools examples

# mypy checks pbem/ with the rules packages under the name they import as: rules/
# installs as pbem.rules and templates/ as pbem.templates (pyproject.toml,
# [tool.setuptools.package-dir]), so .lint/pbem/ is a tree of symlinks, one to each
# entry of pbem/ plus rules -> rules/ and templates -> templates/, rebuilt each run
# (a module added to pbem/ is picked up), and mypy runs on it as the package pbem.
lint: $(STAMP)
	$(BIN)/ruff check $(LINTED)
	$(BIN)/ruff format --check $(LINTED)
	rm -rf .lint && mkdir -p .lint/pbem
	for entry in pbem/*; do case $$entry in */__pycache__) ;; *) ln -s ../../$$entry .lint/pbem/;; esac; done
	ln -s ../../rules .lint/pbem/rules
	ln -s ../../templates .lint/pbem/templates
	cd .lint && ../$(BIN)/mypy --config-file ../pyproject.toml -p pbem

bench: $(STAMP)
	$(BIN)/python bench/bench.py
	-$(BIN)/python bench/budgets.py  # exit 1 when over a budget: the page says which
	$(BIN)/python bench/report.py

clean:
	rm -rf $(VENV) .lint .mypy_cache demo build dist *.egg-info
