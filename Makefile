# `make install` is idempotent: it creates what is missing and nothing else.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
WEB_STAMP := web/dist/index.html

.PHONY: install lock web-build install-test run lint types test test-unit test-e2e bench jax-venv clean

install: $(STAMP) web-build

# Exact versions and hashes from the lock; the project itself goes in editable, without resolving again.
$(STAMP): pyproject.toml requirements-dev.lock
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q --require-hashes -r requirements-dev.lock
	$(BIN)/pip install -q --no-deps -e .
	touch $(STAMP)

# Refresh the locks to the newest versions pyproject.toml allows (universal: every platform's hashes).
# requirements.lock (engine + server) goes into the Docker image; requirements-dev.lock adds the test
# and lint tools, with the same versions for what both hold.
LOCK := $(BIN)/uv pip compile pyproject.toml --universal --python-version 3.11 --generate-hashes --fork-strategy fewest \
	--upgrade -q --custom-compile-command "make lock"
lock:
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	test -x $(BIN)/uv || $(BIN)/pip install -q uv
	$(LOCK) --extra server -o requirements.lock
	$(LOCK) --extra server --extra dev -c requirements.lock -o requirements-dev.lock

# A symlinked web/node_modules belongs to another checkout (a git worktree's link to main's): npm ci
# here would empty it through the link, so it is never reinstalled from here.
web-build:
	@if [ -f web/package.json ]; then \
	  if [ ! -L web/node_modules ] && { [ ! -d web/node_modules ] || [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; }; then (cd web && npm ci --no-audit --no-fund); fi; \
	  if [ ! -f $(WEB_STAMP) ] || [ -n "$$(find web/src web/public web/index.html web/package.json -newer $(WEB_STAMP) 2>/dev/null | head -1)" ]; then (cd web && npm run build); fi; \
	fi

# Test services from Debian's packages where apt-get works: Chromium for Playwright (else
# Playwright's own download), PostgreSQL and nginx for the scale-out tests (they start their own
# throwaway instances; none is left running).
DEB_TEST_PACKAGES := chromium postgresql nginx-light
install-test: install
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing="$$missing postgresql"; \
	[ -x /usr/sbin/nginx ] || missing="$$missing nginx-light"; \
	if [ -z "$$missing" ]; then :; \
	elif command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  service postgresql stop >/dev/null 2>&1 || true; service nginx stop >/dev/null 2>&1 || true; \
	else \
	  case "$$missing" in *chromium*) $(BIN)/playwright install chromium;; esac; \
	  case "$$missing" in *postgresql*|*nginx*) echo "install$$missing (Debian packages) for the scale-out tests" >&2;; esac; \
	fi

# `make run` serves your own machine. As a normal user no run can get a uid of its own, so unless
# JAXPLAY_ISOLATION says otherwise it opts in to single-user isolation, on loopback only, and says so
# (the page shows the warning too). Public instances: run as root or in the Docker image.
run: install
	@if [ "$$(id -u)" != 0 ] && [ -z "$$JAXPLAY_ISOLATION" ]; then \
	  case "$${JAXPLAY_HOST:-127.0.0.1}" in \
	    127.*|localhost|::1) export JAXPLAY_ISOLATION=unsafe-single-user; \
	      echo "make run: not root, so runs share your uid (JAXPLAY_ISOLATION=unsafe-single-user, loopback only)";; \
	  esac; \
	fi; \
	exec $(BIN)/python -m server

# The engine's docstring examples run too (in JAX's namespace: engine/conftest.py). A run without
# numba on purpose sets JAXPLAY_TESTS_WITHOUT_NUMBA=1; otherwise a broken numba fails the jit tests.
# tests/run_all.py: the engine's tests in two pytest processes side by side, then alone the tests with
# wall-clock limits (servers, sandboxes) and the browser tests; --durations lists the slowest in the log.
test: install-test lint
	$(BIN)/python tests/run_all.py

# About a minute: ruff (rules and format, config in pyproject.toml), mypy (see [tool.mypy]), the
# page's generated report types against the pydantic models, and the page's TypeScript check.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	PY=$(BIN)/python web/report-types.sh --check
	cd web && npx --no-install tsc --noEmit

# The page's report types (web/src/report.gen.ts) from the pydantic models: run after changing them.
types: install
	PY=$(BIN)/python web/report-types.sh

test-unit: install
	$(BIN)/python -m pytest tests

# JAX 0.10.2, the reference the benchmarks print ratios against, lives in its own git-ignored
# venv: the engine's venv never imports it (tests must not need JAX).
JAX_VENV := .jax-venv
jax-venv:
	@$(JAX_VENV)/bin/python -c 'import jax, rich, pandas, networkx, sklearn, absl' 2>/dev/null || { \
	  test -x $(JAX_VENV)/bin/python || $(PY) -m venv $(JAX_VENV); \
	  $(JAX_VENV)/bin/pip install -q 'jax==0.10.2' numpy cloudpickle rich \
	    $$(grep -oE '^(pandas|networkx|scikit-learn|absl-py)==[^ ]+' requirements-dev.lock); }

# The IR page's bench drives Chromium, and the scale-out bench starts PostgreSQL and nginx: what
# install-test provides (a fresh machine's `make bench` failed there without it).
bench: install-test jax-venv
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) web/node_modules web/dist

# Build the Docker image and check it end to end (tests/docker/docker_check.py); exits 0 with a
# SKIP message where no Docker daemon can be started. Uses the system python3 (stdlib only).
.PHONY: docker-test
docker-test:
	$(PY) tests/docker/docker_check.py
