PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install test solve bench bench-nine lint clean

$(VENV)/.installed: pyproject.toml
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) on PATH (set PYTHON=...)"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $@

install: $(VENV)/.installed

test: install
	$(PY) -m pytest -q -n 2 --durations=15

lint: install
	$(VENV)/bin/ruff check .

solve: install
	$(VENV)/bin/morris reproduce three six

bench: install
	$(PY) benchmarks/bench_solve.py

bench-nine: install
	$(PY) benchmarks/bench_nine.py

clean:
	rm -rf $(VENV) build *.egg-info
