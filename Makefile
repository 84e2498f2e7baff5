# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
WORKERS ?= $(shell echo $$(( $$(nproc) * 2 + 1 )))

.PHONY: run migrate test test-fast test-sqlite test-postgres mutants bench lint format check-deploy clean messages makemessages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements.txt
	touch $@

$(VENV)/.installed-test: requirements.txt requirements-test.txt | $(BIN)/python
	$(BIN)/pip install -q -r requirements-test.txt
	touch $(VENV)/.installed $@

# The compiled translations (locale/*/LC_MESSAGES/django.mo, not kept in git).
# msgfmt comes from Debian's gettext, installed here when missing (as root).
messages: $(VENV)/.installed
	@command -v msgfmt >/dev/null 2>&1 || bash scripts/gettext.sh
	$(BIN)/python manage.py compilemessages --ignore '.venv' -v 0

# Collect the marked strings into locale/{hi,ta,te}/LC_MESSAGES/django.po. The rules
# package marks its refusals with N_, which imports nothing from Django; our
# makemessages (tracker/management/commands/makemessages.py) passes
# xgettext --keyword=N_, as Django's own has no option for it.
makemessages: $(VENV)/.installed
	@command -v xgettext >/dev/null 2>&1 || bash scripts/gettext.sh
	$(BIN)/python manage.py makemessages -l hi -l ta -l te --no-obsolete --no-wrap \
		--ignore '.venv/*' --ignore 'bench/*' --ignore 'tests/*' --ignore 'staticfiles/*' --ignore 'test-output/*' --ignore 'var/*'

# Serve the app on every interface, as a phone on the same Wi-Fi sees it.
# A home network has no HTTPS: HTTPS=off unless you set it (see README).
# gunicorn's ASGI worker (tracker.serving.Worker) serves tracker/asgi.py: the
# pushed updates' streams on its event loop, every page by Django on a thread.
# No --max-requests (it would drop the streams); stopping waits GRACEFUL
# seconds, then ends them. tracker/serving.py: no forwarded header believed
# (BEHIND_PROXY decides in Django), links' tokens shortened in the logs.
# Behind a proxy (BEHIND_PROXY on) X-Forwarded-For is believed, so only the
# proxy may reach the port: it listens on 127.0.0.1 unless BIND_HOST says otherwise.
# migrate_in_turn takes a lock (tracker/management/commands/migrate_in_turn.py):
# servers started at once on one database migrate in turn, and refuse a
# SECRET_KEY that is not the database's (tracker/shared_key.py). gunicorn's
# control socket is one per port in var/ (its default, ~/.gunicorn/gunicorn.ctl,
# would be shared by every server of this user): `gunicornc -s
# var/gunicorn-8000.ctl` (docs/several-servers.md).
GRACEFUL ?= 10
CONTROL_SOCKET ?= var/gunicorn-$(PORT).ctl
PROXIED := $(filter 1 true yes on,$(shell echo '$(BEHIND_PROXY)' | tr 'A-Z' 'a-z'))
BIND_HOST ?= $(if $(PROXIED),127.0.0.1,0.0.0.0)
run: $(VENV)/.installed messages migrate
	$(BIN)/python manage.py collectstatic --noinput -v 0
	@mkdir -p -m 0700 $(dir $(CONTROL_SOCKET))
	@if [ -n "$(PROXIED)" ] && [ "$(BIND_HOST)" = 127.0.0.1 ]; then \
	echo; echo "  Behind a proxy: listening on 127.0.0.1:$(PORT) only, for the proxy on this machine."; echo; \
	elif [ -n "$(PROXIED)" ]; then \
	echo; echo "  WARNING: BEHIND_PROXY is on and the app listens on $(BIND_HOST):$(PORT)."; \
	echo "  It believes X-Forwarded-For: that port must be reachable by the proxy ONLY (firewall it)."; echo; \
	else ip=$$(hostname -I 2>/dev/null | awk '{print $$1}'); \
	echo; echo "  Open http://$${ip:-127.0.0.1}:$(PORT)/ on a phone on the same network."; echo; fi
	HTTPS=$${HTTPS:-off} $(BIN)/gunicorn tracker.asgi:application --worker-class tracker.serving.Worker \
		--bind $(BIND_HOST):$(PORT) --workers $(WORKERS) --graceful-timeout $(GRACEFUL) \
		--control-socket $(CONTROL_SOCKET) --access-logfile - -c python:tracker.serving

# The database's tables made or brought up to date, once (make run does it too).
migrate: $(VENV)/.installed
	$(BIN)/python manage.py migrate_in_turn

# ruff, then mypy on tracker/ (pyproject.toml [tool.mypy]: django-stubs' plugin; its
# cache in .mypy_cache/, which git ignores).
lint: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

format: $(VENV)/.installed-test
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# ruff, then the whole suite on SQLite and the tests that touch the database
# again on PostgreSQL (installing Debian's chromium and postgresql when run as
# root; see scripts/test.sh). Extra pytest arguments, passed to scripts/test.sh
# as they are: make test PYTEST_ARGS="-x -k smoke".
PYTEST_ARGS ?=
export PYTEST_ARGS
test: lint messages
	BIN=$(BIN) bash scripts/test.sh all

# The quick loop: ruff and the SQLite pass without the tests marked `slow`
# (fuzzers, live gunicorn servers, the kill -9 test, the hand calculator's brute
# force, the big hypothesis properties, the longest browser tests).
test-fast: lint messages
	BIN=$(BIN) PYTEST_ARGS="-m 'not slow' $$PYTEST_ARGS" bash scripts/test.sh sqlite

# One pass only, without ruff.
test-sqlite: $(VENV)/.installed-test messages
	BIN=$(BIN) bash scripts/test.sh sqlite

test-postgres: $(VENV)/.installed-test messages
	BIN=$(BIN) bash scripts/test.sh postgres

# Mutation testing of the rules engine and the hand calculator with the fast
# engine tests (scripts/mutants.py): survivors in test-output/mutants.txt, last
# line "mutants: K killed, S survived, E equivalent". Not part of `make test`:
# about 20 minutes on 2 cores. MUTANTS_ARGS="--jobs 4" for more at a time.
MUTANTS_ARGS ?=
mutants: $(VENV)/.installed-test
	$(BIN)/python scripts/mutants.py $(MUTANTS_ARGS)

# What a family's phones ask, measured, each figure against its target (bench/README.md).
# Installs chromium and Lighthouse when missing (root; scripts/chromium.sh, lighthouse.sh).
# Exits 0 when a target is missed; BENCH_ARGS=--quick for a short try, --only PARTS.
# The compiled translations first: without them the pages it measures in Hindi are English.
BENCH_ARGS ?=
bench: $(VENV)/.installed-test messages
	$(BIN)/python bench/run.py $(BENCH_ARGS)

clean:
	rm -rf $(VENV) staticfiles test-output bench/out var
