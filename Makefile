# Two commands on a fresh machine: `make run` and `make test` (and `make quick` while you work).
# Both create .venv when it is missing and (re)install when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The versions the tests ran with: .venv and deploy/install-pi.sh install these
# (`make constraints` renews the file; docs/raspberry-pi.md, "Updating").
CONSTRAINTS := deploy/constraints.txt

# The tests run in parallel (pytest-xdist): WORKERS processes, the tests that share a
# module's fixture in one of them (tests/conftest.py). Hypothesis draws the same examples
# on every run (the `ci` profile); HYPOTHESIS_PROFILE=dev draws new ones (tests/conftest.py).
WORKERS ?= 3
HYPOTHESIS_PROFILE ?= ci
export HYPOTHESIS_PROFILE
XDIST  := -n $(WORKERS) --dist loadgroup
# Python's bytecode caches (__pycache__, ignored by git) even where the environment turns
# them off: each test worker would otherwise compile every test module's assertions
# again (about 8 s of CPU each), and each of the programs the tests start the product.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test quick lint typecheck pytest bench board clean constraints test-install

# Quiet: pip's own progress is hidden (--quiet) and so are setuptools' notes to packagers
# (UserWarnings of the build backend), so that `make run` ends with the page's address
# and the admin PIN in a box, not a page of installer text. Errors still show.
$(STAMP): pyproject.toml $(CONSTRAINTS)
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing pyramid-board and its packages into $(VENV) (a minute or two the first time)"
	@PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) pip
	@PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet -c $(CONSTRAINTS) -e '.[test]'
	@touch $(STAMP)

# Renew deploy/constraints.txt: a new .venv with the newest versions PyPI has of
# everything (the `pi` extra's lgpio too), written down; then `make test`, and commit the
# file with what the tests needed.
constraints:
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip setuptools wheel
	$(BIN)/python -m pip install --quiet -e '.[test,pi]'
	{ echo "# The versions the tests ran with (make constraints wrote it; see the Makefile)."; \
	  $(BIN)/python -m pip freeze --all --exclude-editable; } > $(CONSTRAINTS)
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/pyramid run $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict controller web_ui pyramid_board firmware bench rigs tests hardware tools

pytest: $(STAMP)
	$(BIN)/pytest $(XDIST) $(PYTEST_ARGS)

# Everything: ruff, mypy --strict, every test (browsers, the emulated Pico, processes).
test: lint typecheck pytest

# The loop while you work (about a minute): the rules, the referee, the store, the page's
# API and the pure links; no browser, no emulator, no test that starts programs.
quick: $(STAMP)
	$(BIN)/pytest $(XDIST) -q --quick $(PYTEST_ARGS)

# The printed boards (hardware/pcb/): KiCad projects, fab files and pictures from
# hardware/geometry.toml, firmware/config.py (the pico board) and configs/matrix.toml (the
# matrix build's two). Needs KiCad 6 (see hardware/README.md).
board: $(STAMP)
	$(BIN)/python -m hardware.pcb.generate

# deploy/install-pi.sh on Debian 12 and 13 booted in containers, as docs/raspberry-pi.md
# says (tests/deploy/test_install_container.py; root, systemd-nspawn, debootstrap; about 7
# minutes from nothing, 3 with the debootstrapped trees cached in ~/.cache/pyramid-board).
test-install: $(STAMP)
	PYRAMID_INSTALL_TEST=1 $(BIN)/pytest -p no:cacheprovider -rA tests/deploy/test_install_container.py

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
