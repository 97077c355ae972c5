#!/usr/bin/env bash
# Installs from package-lock.json, builds (ESM, CJS, type check) and runs the
# tests of @alternayte/queuebox-inbox against PostgreSQL with Node's test
# runner. QUEUEBOX_TEST_DATABASE_URL overrides the database
# (default postgres://postgres@127.0.0.1:5432/postgres).
set -euo pipefail
cd "$(dirname "$0")"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
# --test-reporter=spec prints each test and the runner's summary (tests, pass, fail, ...).
node --test --test-concurrency=1 --test-reporter=spec test/
