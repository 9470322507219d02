# icml26: `make reproduce` runs every reproduction and writes report/; `make test` runs the tests.
# Both create .venv on first use (Python >= 3.11) and reinstall when pyproject.toml changes.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.icml26-installed
PROFILE ?= full
PYTEST_ARGS ?=

.PHONY: setup test test-fast reproduce report bench clean

setup: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e ".[all]"
	@touch $(STAMP)

# pytest exits 5 when it collected nothing: that is a broken run, and make fails on it.
test: setup
	@$(PY) -m pytest -q -n 2 --dist loadgroup $(PYTEST_ARGS); rc=$$?; \
	  if [ $$rc -eq 5 ]; then echo "pytest collected no tests: failing" >&2; fi; exit $$rc

test-fast: setup
	$(PY) -m pytest -q -n 2 -m "not slow" $(PYTEST_ARGS)

reproduce: setup
	$(VENV)/bin/icml26 reproduce --profile $(PROFILE) --readme README.md

report: setup
	$(VENV)/bin/icml26 report --readme README.md

bench: setup
	$(VENV)/bin/icml26 bench

clean:
	rm -rf runs report/index.html .pytest_cache
