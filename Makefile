# Two commands on a fresh machine: `make run` and `make test`.
# Both create .venv when it is missing and (re)install when pyproject.toml changes.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test lint typecheck pytest bench board clean

# Quiet: pip's own progress is hidden (--quiet) and so are setuptools' notes to packagers
# (UserWarnings of the build backend), so that `make run` ends with the page's address
# and the admin PIN in a box, not a page of installer text. Errors still show.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "Installing pyramid-board and its packages into $(VENV) (a minute or two the first time)"
	@PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet --upgrade pip
	@PYTHONWARNINGS=ignore::UserWarning $(BIN)/python -m pip install --quiet -e '.[test]'
	@touch $(STAMP)

run: $(STAMP)
	$(BIN)/pyramid run $(ARGS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy --strict controller web_ui pyramid_board firmware bench tests hardware tools

pytest: $(STAMP)
	$(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck pytest

# The printed boards (hardware/pcb/): KiCad projects, fab files and pictures from
# hardware/geometry.toml and configs/matrix.toml. Needs KiCad 6 (see hardware/README.md).
board: $(STAMP)
	$(BIN)/python -m hardware.pcb.generate

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
