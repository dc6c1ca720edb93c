# The entry points for people and CI alike. Every target bootstraps .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test test-fast lint format bench validate clean editor-notice

install: $(STAMP)

# Re-run only when the project's dependencies change; otherwise a fast no-op.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

# The editor bundle: CodeMirror 6 from npm, bundled by esbuild. Rebuilt only when the lock
# file or the editor source changes. Without npm at all the pages fall back to a plain
# <textarea> (a notice); with npm, a failed install or build stops the make.
BUNDLE := static/build/editor.js
NODE_STAMP := node_modules/.package-lock.json

ifneq ($(shell command -v npm 2>/dev/null),)
install: $(BUNDLE)
else
install: editor-notice
endif

editor-notice:
	@echo "npm not found: skipping the editor bundle (the pages fall back to a plain textarea)"

# npm ci rewrites node_modules/.package-lock.json, which makes it a natural stamp.
$(NODE_STAMP): package-lock.json package.json
	npm ci --no-audit --no-fund --loglevel=error

$(BUNDLE): $(NODE_STAMP) $(wildcard frontend/*.js)
	npm run --silent build -- --log-level=warning

run: install
	$(BIN)/drill serve

test: install
	$(BIN)/python -m pytest

# Everything that needs no sandbox, browser or server process: the loop while you work.
test-fast: install
	$(BIN)/python -m pytest -m "not sandbox" -q

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

validate: install
	$(BIN)/drill validate

bench: install
	$(BIN)/python bench/grading.py

clean:
	rm -rf $(VENV) var build *.egg-info node_modules static/build
