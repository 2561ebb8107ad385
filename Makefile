# Two entry points, each of which sets up what it needs on a fresh machine:
#   make reports   render the reference break-even reports into reports/
#   make test      run the test suite
# Both create .venv/ (Python >= 3.11) and install the project into it, once.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: reports test benchmark lab clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

reports: $(STAMP)
	$(BIN)/costmodel report

test: $(STAMP)
	$(BIN)/python -m pytest

lab: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,interactive]"
	$(BIN)/jupyter lab notebooks/

clean:
	rm -rf $(VENV) reports/*/
