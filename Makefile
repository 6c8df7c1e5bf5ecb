# Two commands set everything up on a fresh machine with Python 3.10+ and make:
#   make demo   -> create .venv, install, run every experiment at quick scale (report in out/)
#   make test   -> create .venv, install, run ruff and the whole test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[test,all]"
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/onlinemf reproduce all --scale quick --out out/quick

test: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/python -m pytest

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
	rm -rf $(VENV) out .pytest_cache
