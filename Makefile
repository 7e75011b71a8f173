PYTHON ?= python3.11
VENV := .venv
PY := $(VENV)/bin/python

.PHONY: install test solve bench bench-nine bench-placement bench-draw-rules bench-variants bench-open lint clean

# The editable install in setuptools' strict mode: build/__editable__.*/ holds a link to
# each file of the package under its installed name (morris_solver/, morris_cli/), which
# mypy, editors and other static tools follow, where the default mode's import hook
# leads them nowhere (docs/architecture.md). A link tree knows only the files it was
# made with, so it is made again when a module or a data file is added or removed.
PACKAGE_FILES := $(sort $(wildcard solver/*.py solver/*/*.py solver/*/*.toml solver/py.typed \
	cli/*.py cli/py.typed cli/web/*.py cli/web/static/* data/stats/*.json))

$(VENV)/.installed: pyproject.toml $(VENV)/.package-files
	@test -x $(PY) || command -v $(PYTHON) >/dev/null 2>&1 \
		|| { echo "need $(PYTHON) on PATH (set PYTHON=...)"; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]' --config-settings editable_mode=strict
	touch $@

# rewritten (and so newer than .installed) only when the list of files changes
$(VENV)/.package-files: FORCE
	@mkdir -p $(VENV)
	@echo $(PACKAGE_FILES) | cmp -s - $@ || echo $(PACKAGE_FILES) > $@

FORCE:

install: $(VENV)/.installed

test: install
	$(PY) -m pytest -q -n 2 --durations=15

lint: install
	$(VENV)/bin/ruff check .
	$(PY) -m mypy

solve: install
	$(VENV)/bin/morris reproduce three three-holes six

bench: install
	$(PY) benchmarks/bench_solve.py

bench-nine: install
	$(PY) benchmarks/bench_nine.py

# Nine Men's Morris from the empty board, every step resumable (hours: benchmarks/README.md):
# both phases, the placement sectors verified, the two routes compared, probes timed, the
# report and the published statistics written
bench-placement: install
	$(VENV)/bin/morris solve nine
	$(VENV)/bin/morris info data/nine.h5 --check-stats data/stats/nine.json
	$(PY) benchmarks/bench_placement.py verify data/nine.h5
	$(PY) benchmarks/bench_placement.py routes data/nine.h5 --plies 12-17 --samples 1700 --distance-plies 14-17
	$(PY) benchmarks/bench_placement.py routes data/nine.h5 --plies 1-11 --samples 2 --tt-entries 90000000
	$(PY) benchmarks/bench_placement.py probe data/nine.h5
	$(PY) benchmarks/bench_placement.py report data/nine.h5
	$(VENV)/bin/morris info data/nine.h5 --json > data/stats/nine.json

# the move-limit draw rules on Nine Men's Morris' moving phase (its tables first: `morris
# solve nine --phase moving`), both limits solved and verified, into its report and the
# published statistics
bench-draw-rules: install
	$(PY) benchmarks/bench_draw_rules.py data/nine.h5 --limits 100,50 --moving-only --verify --stats data/stats/nine.json

# the house-rule variants end to end, one after another, into benchmarks/variants_report.md:
# first the standard game's two phases (the variants link its moving sectors, and each is
# compared with it), then the variants, the shortest runs first (benchmarks/README.md)
bench-variants: install
	$(VENV)/bin/morris solve nine
	$(PY) benchmarks/bench_variants.py three-holes nine-nocapture-placement nine-doublemill nine-noflying nine-diagonal

# every long run the published results need, in order (days on 2 cores; each step resumes)
bench-open: bench-placement bench-draw-rules bench-variants

clean:
	rm -rf $(VENV) build *.egg-info
