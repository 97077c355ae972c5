#!/usr/bin/env bash
# Starts SQL Server 2022 in Docker and runs the tests that need one:
# the shared store suite (storetest.Exercise) on the SQL Server store,
# which covers every store interface, and the capture sqlserver-cdc tests
# (checks, wake-up on insert, owner lock, state-corrupt), both behind the
# sqlserver build tag; then the statement-level tests of capture and of
# the pull clients' SQL Server dialect, which need no server. Leaves the container
# running with KEEP=1. Never run on the machines this was written on.
set -euo pipefail
cd "$(dirname "$0")"
root="$(cd ../.. && pwd)"
password="${QUEUEBOX_SQLSERVER_SA_PASSWORD:-QueueBox-Test-1}"
port="${QUEUEBOX_SQLSERVER_PORT:-14333}"
export QUEUEBOX_SQLSERVER_SA_PASSWORD="$password" QUEUEBOX_SQLSERVER_PORT="$port"

docker compose up -d --wait
if [ "${KEEP:-0}" != 1 ]; then
  trap 'docker compose down -v' EXIT
fi

export QUEUEBOX_SQLSERVER_DSN="sqlserver://sa:${password}@127.0.0.1:${port}?database=master&encrypt=disable"

echo "== store suite on SQL Server"
(cd "$root/pkg" && go test -count=1 -tags sqlserver -run 'TestStore' ./store/sqlserver/...)

echo "== capture sqlserver-cdc on SQL Server (the Agent runs in the container)"
(cd "$root/pkg" && go test -count=1 -tags sqlserver -run 'TestCaptureSQLServer' ./store/sqlserver/...)

echo "== capture sqlserver-cdc statements, loop and wake source on fakes (no server needed)"
(cd "$root/pkg" && go test -count=1 ./capture/sqlserver/... ./wake/sqlserver/... ./store/sqlserver/...)

echo "== pull clients, SQL Server statements (no server needed)"
(cd "$root/clients/go" && go test -count=1 -run 'SQL|Dialect|Quoted|Mapped' ./...)
if command -v node >/dev/null; then
  (cd "$root/clients/typescript" && npm ci --no-audit --no-fund --loglevel=error && npm run --silent build \
    && node --test --test-reporter=spec test/unit.test.mjs)
fi
