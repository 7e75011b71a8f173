PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install test solve bench bench-nine bench-placement lint clean

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

# Nine Men's Morris from the empty board, every step resumable (hours: benchmarks/README.md):
# both phases, the placement sectors verified, the two routes compared, probes timed, the
# report and the published statistics written
bench-placement: install
	$(VENV)/bin/morris solve nine
	$(PY) benchmarks/bench_placement.py verify data/nine.h5
	$(PY) benchmarks/bench_placement.py routes data/nine.h5 --plies 12-17 --samples 1700 --distance-plies 14-17
	$(PY) benchmarks/bench_placement.py routes data/nine.h5 --plies 1-11 --samples 2
	$(PY) benchmarks/bench_placement.py probe data/nine.h5
	$(PY) benchmarks/bench_placement.py report data/nine.h5
	$(VENV)/bin/morris info data/nine.h5 --json > data/stats/nine.json

clean:
	rm -rf $(VENV) build *.egg-info
