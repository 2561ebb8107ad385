# Two entry points, each of which sets up what it needs on a fresh machine:
#   make reports   render the reference reports into reports/
#   make test      run make lint and make typecheck, then the test suite
#   make lint      ruff check and ruff format --check (the style CI enforces)
#   make typecheck basedpyright (pyright's standard rules) over costmodel/
#   make test-oldest  the report tests on the oldest Jupyter packages pyproject.toml allows (.venv-oldest/)
#   make docs      build the docs site into site/ (mkdocs, offline; every warning an error)
# Both create .venv/ (Python >= 3.11) and install the project into it, once (again only when
# pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LAB_STAMP := $(VENV)/.installed-interactive

OLDEST := .venv-oldest
OLDEST_STAMP := $(OLDEST)/.installed
# the tests that render reports, run again on the oldest Jupyter stack the project declares
REPORT_TESTS := tests/test_report.py tests/test_report_options.py tests/test_report_interrupt.py

.PHONY: reports test test-oldest lint typecheck docs benchmark lab clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	$(BIN)/python -m compileall -q costmodel
	touch $(STAMP)

# .venv-oldest/: the package with jupyter-client, nbclient, nbconvert, papermill, ... at the lower bound of
# each range in pyproject.toml (tests/constraints-oldest.txt); the other dependencies as pip resolves them
$(OLDEST_STAMP): pyproject.toml tests/constraints-oldest.txt
	$(PYTHON) -m venv $(OLDEST)
	$(OLDEST)/bin/python -m pip install --quiet --upgrade pip
	$(OLDEST)/bin/python -m pip install --quiet -c tests/constraints-oldest.txt -e . "pytest>=8" "hypothesis>=6.100"
	$(OLDEST)/bin/python -m compileall -q costmodel
	touch $(OLDEST_STAMP)

$(LAB_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[dev,interactive]"
	touch $(LAB_STAMP)

# compileall: an editable install leaves costmodel uncompiled, and where PYTHONDONTWRITEBYTECODE is
# set (as on these machines) every process, the report's kernel included, would compile it again
reports: $(STAMP)
	$(BIN)/python -m compileall -q costmodel
	$(BIN)/costmodel report

# lint and types first: a style or type fault fails in seconds, before the suite's minutes
test: lint typecheck
	$(BIN)/python -m pytest

# the report tests on the oldest versions of the declared Jupyter stack (make test runs them on the newest)
test-oldest: $(OLDEST_STAMP)
	$(OLDEST)/bin/python -m pip list --format=freeze | grep -iE "^(ipykernel|ipython|jinja2|jupyter.client|jupyter.core|nbclient|nbconvert|nbformat|papermill|traitlets)=="
	$(OLDEST)/bin/python -m pytest -p no:cacheprovider $(REPORT_TESTS)

# `ruff format .` (then `ruff check --fix .`) makes the code pass; pyproject.toml's [tool.ruff] sets the rules
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

# the two variables silence banners the theme and a plugin print about MkDocs 2 (not warnings of this build)
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --site-dir site

# pyright over costmodel/ ([tool.basedpyright] in pyproject.toml)
typecheck: $(STAMP)
	$(BIN)/basedpyright --project .

benchmark: $(STAMP)
	$(BIN)/python -m compileall -q costmodel
	$(BIN)/python benchmarks/run.py

# --allow-root: these machines and CI run as root, where JupyterLab refuses to start without it
lab: $(LAB_STAMP)
	$(BIN)/jupyter lab --allow-root --no-browser notebooks/

clean:
	rm -rf $(VENV) $(OLDEST) reports/*/ site/
