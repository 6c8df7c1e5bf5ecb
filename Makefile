# Three commands set everything up on a fresh machine with Python 3.10+ and make:
#   make demo   -> create .venv, install, run every experiment at quick scale (report in out/)
#   make test   -> create .venv, install, run ruff and the whole test suite
#   make docs   -> create .venv, install with the docs extra, build the site into docs/_build/html
#                  (warnings are errors, internal references checked, the gallery executed)
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
DOCS_STAMP := $(VENV)/.docs-installed
SPHINXOPTS ?= -n -W --keep-going

.PHONY: demo test docs lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/onlinemf reproduce all --scale quick --out out/quick

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest -n auto --durations=15

$(DOCS_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $(DOCS_STAMP)

docs: $(DOCS_STAMP)
	$(BIN)/sphinx-build -b html $(SPHINXOPTS) docs docs/_build/html
	@echo "The site is in docs/_build/html/index.html"

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/onlinemf bench --quick --data-dir ../shared/data --out bench_out
	$(BIN)/python benchmarks/bench_online_nmf.py --quick
	$(BIN)/python benchmarks/bench_online_robust_nmf.py
	$(BIN)/python benchmarks/bench_poisson_tracker.py
	$(BIN)/python benchmarks/bench_stochastic_mf.py --quick
	$(BIN)/python benchmarks/bench_ndl.py
	$(BIN)/python benchmarks/bench_convergence.py --quick --data-dir ../shared/data --out bench_out

clean:
	rm -rf $(VENV) out .pytest_cache docs/_build docs/generated docs/gallery docs/gen_modules docs/_generated
