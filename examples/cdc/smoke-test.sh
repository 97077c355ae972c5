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
# shellcheck source=../smoke-lib.sh
. "$root/examples/smoke-lib.sh"
[ "$(admin "SHOW wal_level")" = logical ] || { echo "smoke-test: the server's wal_level is not logical" >&2; exit 1; }

name="qb_cdc_smoke_$$_$RANDOM"
db=$name
slot=$name
smoke_teardown() {
  # A database with a logical slot cannot be dropped, and the WAL sender
  # may need a moment to let go of the slot after queuebox exits.
  for ((i = 0; i < 30; i++)); do
    [ "$(admin "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '$slot'" 2>/dev/null)" = 0 ] && break
    admin "SELECT pg_drop_replication_slot('$slot') FROM pg_replication_slots WHERE slot_name = '$slot' AND NOT active" >/dev/null 2>&1 || true
    sleep 0.5
  done
  admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
}

sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
metric() { # metric <name>: its value on /metrics, 0 when absent
  curl -fs "http://127.0.0.1:$port/metrics" | awk -v m="$1" '$1 == m {print int($2); found=1} END {if (!found) print 0}'
}

start_receiver receiver

admin "CREATE DATABASE $db" >/dev/null
sed -e "s#http://receiver:8080#$receiver_url#" "$here/queuebox.yml" >"$work/queuebox.yml"
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
