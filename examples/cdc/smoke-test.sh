#!/usr/bin/env bash
# Runs the capture example on this machine without Docker, against the
# local PostgreSQL (it needs wal_level = logical): a throw-away database,
# `queuebox migrate`, the publication, then bin/queuebox (every role,
# capture included) with queuebox.yml, a unique slot name and a demo
# receiver (compose/receiver) on a free port. The poll and reconciliation
# intervals are ten minutes, so a row delivered within the one-minute
# deadline was claimed on capture's wake-up. It also checks capture's
# counters. On exit, also on failure, it stops what it started and drops
# the slot, the publication (with the database) and the database.
#
#   examples/cdc/smoke-test.sh
#
# Needs psql, curl, python3 and Go. PGHOST (127.0.0.1) points elsewhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PGHOST=${PGHOST:-127.0.0.1}

for tool in psql curl python3 go; do
  command -v "$tool" >/dev/null || { echo "smoke-test: $tool is missing" >&2; exit 1; }
done
[ -x "$root/bin/queuebox" ] || (cd "$root" && make build >/dev/null)
admin() { psql -h "$PGHOST" -U postgres -d postgres -tAc "$1"; }
[ "$(admin "SHOW wal_level")" = logical ] || { echo "smoke-test: the server's wal_level is not logical" >&2; exit 1; }

name="qb_cdc_smoke_$$_$RANDOM"
db=$name
slot=$name
work=$(mktemp -d)
pids=()

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$code" -ne 0 ]; then
    for f in "$work"/*.log; do [ -f "$f" ] && { echo "== $(basename "$f")"; tail -n 40 "$f"; }; done
  fi
  # A database with a logical slot cannot be dropped, and the WAL sender
  # may need a moment to let go of the slot after queuebox exits.
  for ((i = 0; i < 30; i++)); do
    [ "$(admin "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot'" 2>/dev/null)" = 0 ] && break
    admin "SELECT pg_drop_replication_slot('$slot') FROM pg_replication_slots WHERE slot_name = '$slot' AND NOT active" >/dev/null 2>&1 || true
    sleep 0.5
  done
  admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$code" -eq 0 ] && echo "smoke-test: ok" || echo "smoke-test: FAILED" >&2
  exit "$code"
}
trap cleanup EXIT INT TERM

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { # wait_http <url> <pid> <what>: 60 s for a 2xx answer
  for ((i = 0; i < 120; i++)); do
    curl -fs "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { echo "smoke-test: $3 exited" >&2; return 1; }
    sleep 0.5
  done
  echo "smoke-test: $3 is not ready" >&2
  return 1
}
until_true() { # until_true <what> <shell condition>: retries for 60 s
  for ((i = 0; i < 120; i++)); do eval "$2" && return 0; sleep 0.5; done
  echo "smoke-test: $1 did not happen" >&2
  return 1
}
sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
metric() { # metric <name>: its value on /metrics, 0 when absent
  curl -fs "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m {print int($2); found=1} END {if (!found) print 0}'
}

(cd "$root/compose/receiver" && go build -o "$work/receiver" .)
rport=$(free_port)
RECEIVER_ADDR=127.0.0.1:$rport RECEIVER_HEADERS=1 "$work/receiver" >"$work/receiver.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$rport/" "${pids[-1]}" receiver

admin "CREATE DATABASE $db" >/dev/null
sed -e "s#http://receiver:8080#http://127.0.0.1:$rport#" "$here/queuebox.yml" >"$work/queuebox.yml"
export QUEUEBOX_CONFIG_FILE="$work/queuebox.yml"
export QUEUEBOX_DATABASE_URL="jdbc:postgresql://$PGHOST:5432/$db"
export QUEUEBOX_DATABASE_USERNAME=postgres
export QUEUEBOX_DATABASE_PASSWORD=unused
export QUEUEBOX_OUTBOX_CAPTURE_SLOT=$slot
export QUEUEBOX_OUTBOX_CAPTURE_STATEDIRECTORY="$work/capture"
"$root/bin/queuebox" migrate >"$work/migrate.log" 2>&1
sql "CREATE PUBLICATION queuebox_outbox FOR TABLE outbox" >/dev/null

port=$(free_port)
QUEUEBOX_SERVER_HTTPPORT=$port "$root/bin/queuebox" >"$work/queuebox.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$port/health/ready" "${pids[-1]}" queuebox
# Capture is streaming once its slot is active and it sent its start
# wake-up; only then does a new row depend on capture alone.
until_true "capture streaming from slot $slot" \
  '[ "$(admin "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '"'$slot'"' AND active")" = 1 ] && [ "$(metric queuebox_capture_wakeups_total)" -ge 1 ]'

sql "INSERT INTO outbox (topic, key, payload) VALUES ('order.placed', 'cust-42', '{\"orderId\":1001}')" >/dev/null
# The deadline is a tenth of the poll and reconciliation intervals: a
# delivery now came from the wake-up.
until_true "delivery of the captured row" '[ "$(sql "SELECT state FROM outbox")" = sent ]'
grep -q '"orderId":1001' "$work/receiver.log"
[ "$(metric queuebox_capture_events_total)" -ge 1 ] || { echo "smoke-test: capture counted no event" >&2; exit 1; }
echo "smoke-test: the insert was captured from slot $slot and delivered without waiting for a poll"
