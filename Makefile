# The front door. `make run` serves the game locally; `make test` is everything CI runs.
SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON_BIN ?= python3
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
PG_URL ?= postgres://postgres@127.0.0.1:5432/geopoem

.PHONY: help run test test-fast test-contracts test-python test-frontend test-e2e build lint install migrate seed clean

help:
	@echo "make run       - local anvil + test USDC, migrate, seed the demo, web + worker + beat on http://$(HOST):$(PORT)"
	@echo "make test      - every test suite (PostgreSQL on 127.0.0.1:5432 when reachable, else SQLite); what CI runs"
	@echo "make test-contracts - the contracts' forge suite (unit, fuzz, invariant and gas tests; offline, about a minute)"
	@echo "make test-fast - the inner loop: the Python tests not marked integration, and the front end's unit tests (no browser)"
	@echo "make lint      - ruff check and format, the apps' layering (lint-imports), the text checks (scripts/lint_text.py), mypy, and the front end's tsc, ESLint and Prettier (CI runs it before make test)"

# Development installs requirements-dev.txt (the runtime set in requirements.txt plus the tools);
# production installs requirements.txt alone (the Python buildpack reads it).
$(VENV)/.installed: requirements.txt requirements-dev.txt
	test -x $(PY) || $(PYTHON_BIN) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements-dev.txt
	touch $@

# `npm ci`: exactly what package-lock.json lists (it holds every platform's optional anvil build), and
# it never rewrites the lock file, so a fresh clone's `make install` leaves `git status` clean.
node_modules/.installed: package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $@

install: $(VENV)/.installed node_modules/.installed

build: install
	npm run --silent build

migrate: $(VENV)/.installed
	mkdir -p var
	$(PY) manage.py migrate --noinput

seed: migrate
	$(PY) manage.py seed_demo

# anvil + the test USDC + migrate + demo seed, then the web server, a Celery worker and beat under
# honcho (Procfile.dev). DEVCHAIN=0 starts no node: the chain comes from the environment (Sepolia).
run: build
	@echo "make run: the game will be at http://$(HOST):$(PORT)/ once 'devchain: ready' shows (Ctrl-C stops everything)"
	WEB_HOST=$(HOST) WEB_PORT=$(PORT) WEB_URL=http://$(HOST):$(PORT) $(VENV)/bin/honcho -f Procfile.dev start

# PostgreSQL when it answers (it does on these machines and in CI), else the embedded SQLite.
CHOOSE_DATABASE = if [ -z "$$DATABASE_URL" ] && pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; then \
		export DATABASE_URL="$(PG_URL)"; fi; \
	if [ -n "$$DATABASE_URL" ]; then echo "make $@: database $$DATABASE_URL"; \
	else echo "make $@: database SQLite (PostgreSQL not reachable on 127.0.0.1:5432)"; fi

test: build
	npm run --silent budget
	$(MAKE) --no-print-directory test-contracts
	@$(CHOOSE_DATABASE); \
	$(MAKE) --no-print-directory test-python && $(MAKE) --no-print-directory test-frontend && \
	$(MAKE) --no-print-directory test-e2e

# The inner loop: what `make test` runs minus the Python tests marked `integration` (pytest.ini), the
# browser suite (test-e2e), the migrations check and the bundle budget. CI runs `make test`.
test-fast: build
	@$(CHOOSE_DATABASE); \
	$(PY) -m pytest -m "not integration" && npm run --silent test

test-python: $(VENV)/.installed
	$(PY) manage.py makemigrations --check --dry-run --settings=config.settings.test
	$(PY) -m pytest

test-frontend: node_modules/.installed
	npm run --silent test

# The contracts' suite under forge (foundry.toml; contracts/test/): unit, fuzz and invariant tests of
# the pot against TestUSDC behind its proxy, offline, compiled by the npm solc. forge resolves the
# `solc` of foundry.toml against the working directory, which make sets to this folder. Then the gas
# tests in their own profile (each call its own transaction, as on chain), failing past the goals;
# `FOUNDRY_PROFILE=gas node_modules/.bin/forge test -vv` prints each figure.
test-contracts: node_modules/.installed
	node_modules/.bin/forge test
	FOUNDRY_PROFILE=gas node_modules/.bin/forge test

# The end-to-end suite (e2e/): Debian's Chromium driven by playwright-core against gunicorn, a Celery
# worker, Redis DB 9, PostgreSQL database geopoem_e2e and anvil. Screenshots: e2e/artifacts/screenshots.
test-e2e: $(VENV)/.installed node_modules/.installed
	@test -x /usr/bin/chromium || { echo "test-e2e: installing Debian's chromium"; \
		apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }
	npm run --silent test:e2e

# The benchmarks (bench/; docs/performance.md): the gas of every transaction of the pot from a real
# play on anvil beside Forge's gas test (bench/gas.py), the POST of a signed stake against the
# Procfile's web line with the RPC provider 0 and 200 ms away (bench/post.py), 100 relayed stakes in
# one burst on 12-second blocks against the Procfile's web, worker and beat, reconciled against the
# chain (bench/relay.py), 20 stakes by signature through the real page in Chromium, from the
# signature to "Confirmed" on 12-second blocks (bench/live.py), the public answers against a floor
# view (wrk, nginx; bench/api.py) and the page (bundle size, Lighthouse; bench/page.py). Each writes
# bench/results/NAME.json and its tables between their markers in docs/performance.md; the prose
# there is written by hand. The players' verifier over 10,000 stakes (bench/verifier.py) needs the
# verifier that reads the pot. Uses PostgreSQL database geopoem_bench (dropped and created) and Redis
# DB 8. About 20 minutes.
.PHONY: bench
bench: build
	@command -v wrk >/dev/null || { echo "bench: needs wrk (apt-get install wrk)"; exit 1; }
	@test -x "$$(command -v nginx || echo /usr/sbin/nginx)" || { echo "bench: needs nginx for the CDN-like cache (apt-get install nginx-light)"; exit 1; }
	@test -x "$${CHROME_PATH:-/usr/bin/chromium}" || { echo "bench: needs Chromium (apt-get install chromium)"; exit 1; }
	$(PY) -m bench.run

# Every linter CI runs before `make test`: ruff (check and format), the apps' layering, the text
# checks of scripts/lint_text.py (no issue numbers in code, no app module over 350 lines, pointers
# into docs/ that hold), mypy over the apps and config (pyproject.toml, [tool.mypy]) and `npm run lint`
# (tsc, ESLint, prettier --check; package.json).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports
	$(PY) scripts/lint_text.py
	$(VENV)/bin/mypy
	npm run --silent lint

clean:
	rm -rf var frontend/build frontend/webpack-stats.json staticfiles

# A bounded load run on loopback: gunicorn with the production settings against PostgreSQL database
# geopoem_load and Redis DB 7, locust's mix of reads and claim POSTs for LOAD_SECONDS; prints req/s,
# p50/p99, the 5xx count (must be 0) and "claims answered 201 == rows". Needs the built bundle.
LOAD_SECONDS ?= 30
LOAD_USERS ?= 20
.PHONY: load
load: $(VENV)/.installed
	$(PY) -m load.run --seconds $(LOAD_SECONDS) --users $(LOAD_USERS)

# Mutation testing: small bugs, one at a time, in the rules the site computes (scripts/mutate.py lists
# the modules: the integer scoring rule, the encodings, coordinates, commitments, the pot's reading);
# each must fail one of its module's tests (scripts/mutate.py picks the tests per module). Then the
# same for the page's rules (frontend/src/lib/protocol/, lib/verify/rules.ts, coordinates.ts) under vitest
# (scripts/mutate_ts.mjs). Not part of `make test`. Survivors: var/mutate/report.txt and
# var/mutate/report-ts.txt; the recorded runs and why each survivor is harmless: docs/reliability.md.
# MUTATE_MODULES=... runs only those Python modules, MUTATE_TS_MODULES=... only those TypeScript
# files; MUTATE_PY=0 or MUTATE_TS=0 skips a half; MUTATE_FROM=N resumes a Python module's run at
# mutant N. The Python half uses PostgreSQL (DATABASE_URL, else $(PG_URL)) and anvil: about 30
# minutes on this 2-core machine for the server's modules, and hours for verify_challenge.py (676
# mutants; a survivor re-runs every chain test that reaches it); the TypeScript half a few minutes.
MUTATE_MODULES ?=
MUTATE_FROM ?= 1
MUTATE_TS_MODULES ?=
MUTATE_PY ?= 1
MUTATE_TS ?= 1
.PHONY: mutate
mutate: $(VENV)/.installed node_modules/.installed
	@if [ "$(MUTATE_PY)" != 0 ]; then \
		DATABASE_URL="$${DATABASE_URL:-$(PG_URL)}" $(PY) scripts/mutate.py --from $(MUTATE_FROM) $(MUTATE_MODULES) || exit 1; fi
	@if [ "$(MUTATE_TS)" != 0 ]; then node scripts/mutate_ts.mjs $(MUTATE_TS_MODULES) || exit 1; fi
