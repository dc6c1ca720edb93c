# The entry points for people and CI alike. Every target bootstraps .venv first.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install run test test-js test-fast lint format bench validate clean editor-notice

install: $(STAMP)

# Re-run only when the project's dependencies change; otherwise a fast no-op.
$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	@touch $(STAMP)

# The front end: the page's ES modules (frontend/src/) and CodeMirror 6 from npm, bundled
# by esbuild into static/build/app.js and static/build/editor.js (one command builds
# both). Rebuilt only when the lock file or a source changes. Without npm at all the
# pages load frontend/src/ unbundled and fall back to a plain <textarea> (a notice); with
# npm, a failed install or build stops the make.
BUNDLE := static/build/app.js
EDITOR_BUNDLE := static/build/editor.js
NODE_STAMP := node_modules/.package-lock.json
FRONTEND_SOURCES := $(wildcard frontend/src/*.js)

ifneq ($(shell command -v npm 2>/dev/null),)
install: $(BUNDLE) $(EDITOR_BUNDLE)
else
install: editor-notice
endif

editor-notice:
	@echo "npm not found: skipping the front-end bundle (the pages load frontend/src/ unbundled, with a plain textarea for the code)"

# npm ci rewrites node_modules/.package-lock.json, which makes it a natural stamp.
$(NODE_STAMP): package-lock.json package.json
	npm ci --no-audit --no-fund --loglevel=error

# One esbuild run writes both files (a grouped target).
$(BUNDLE) $(EDITOR_BUNDLE) &: $(NODE_STAMP) $(FRONTEND_SOURCES) package.json
	npm run --silent build -- --log-level=warning

run: install
	$(BIN)/drill serve

# The slowest tests are listed at the end: the suite must stay inside 35 minutes on 2 cores.
test: install test-js
	$(BIN)/python -m pytest --durations=20

# The front end's unit tests, with Node's own test runner (no browser, a second or two).
test-js: install
	node --test tests/frontend/

# Everything that needs no sandbox, browser or server process: the loop while you work.
test-fast: install test-js
	$(BIN)/python -m pytest -m "not sandbox" -q

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports
	node_modules/.bin/eslint .

format: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

validate: install
	$(BIN)/drill validate

bench: install
	$(BIN)/python bench/grading.py

clean:
	rm -rf $(VENV) var build *.egg-info node_modules static/build
