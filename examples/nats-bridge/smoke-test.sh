#!/usr/bin/env bash
# Runs the NATS bridge example against the local services, without Docker:
# a message published on the ORDERS stream reaches the inbox once, the
# relay forwards it, and queuebox-deliver publishes it to the PROCESSED
# stream with the relay headers. Run from anywhere after `make build`:
#   examples/nats-bridge/smoke-test.sh
# It uses PostgreSQL on PGHOST (127.0.0.1, trust auth) and NATS on
# NATS_URL (nats://127.0.0.1:4222, JetStream on), creates a database and
# two streams with names of its own, and removes them when it ends.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
PGHOST=${PGHOST:-127.0.0.1}
export NATS_URL=${NATS_URL:-nats://127.0.0.1:4222}

for role in ingest relay deliver; do
  [[ -x bin/queuebox-$role ]] || { echo "smoke-test: bin/queuebox-$role is missing; run make build" >&2; exit 1; }
done

run_id="$$_$RANDOM"
db="qb_natsbridge_$run_id"
upper=$(tr '[:lower:]' '[:upper:]' <<<"$run_id")
export ORDERS_STREAM="ORDERS_SMOKE_$upper" ORDERS_SUBJECT="orders_smoke_$run_id"
processed_stream="PROCESSED_SMOKE_$upper"
export PROCESSED_SUBJECT="processed_smoke_$run_id"
state=$(mktemp -d)
pids=()

cleanup() {
  local code=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [[ $code -ne 0 ]]; then
    for f in "$state"/*.log; do [[ -e $f ]] && { echo "== $f"; tail -n 40 "$f"; }; done
  fi
  [[ -x $state/natsctl ]] && {
    "$state/natsctl" stream-rm "$ORDERS_STREAM" 2>/dev/null || true
    "$state/natsctl" stream-rm "$processed_stream" 2>/dev/null || true
  }
  psql -h "$PGHOST" -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$state"
  [[ $code -eq 0 ]] && echo "smoke-test: ok" || echo "smoke-test: FAILED" >&2
  exit "$code"
}
trap cleanup EXIT INT TERM

go build -o "$state/natsctl" ./bench/natsctl
natsctl() { "$state/natsctl" "$@"; }
psql -h "$PGHOST" -U postgres -d postgres -qc "CREATE DATABASE $db"
natsctl stream-add "$ORDERS_STREAM" "$ORDERS_SUBJECT.>"
natsctl stream-add "$processed_stream" "$PROCESSED_SUBJECT.>"

export QUEUEBOX_CONFIG_FILE="$root/examples/nats-bridge/queuebox.yml"
export QUEUEBOX_DATABASE_URL="jdbc:postgresql://$PGHOST:5432/$db" QUEUEBOX_DATABASE_USERNAME=postgres
export QUEUEBOX_DATABASE_PASSWORD=postgres QUEUEBOX_DATABASE_POOLSIZE=4 QUEUEBOX_LOG_FORMAT=text
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
declare -A ports
# ingest first: it applies the migrations the other two expect.
for role in ingest relay deliver; do
  ports[$role]=$(free_port)
  QUEUEBOX_SERVER_HTTPPORT=${ports[$role]} bin/queuebox-$role >"$state/$role.log" 2>&1 &
  pids+=($!)
  ready=""
  for ((i = 0; i < 240; i++)); do
    if curl -fs "http://127.0.0.1:${ports[$role]}/health/ready" >/dev/null 2>&1; then ready=1; break; fi
    kill -0 "${pids[-1]}" 2>/dev/null || break
    sleep 0.25
  done
  [[ -n $ready ]] || { echo "smoke-test: queuebox-$role did not become ready" >&2; exit 1; }
  echo "queuebox-$role ready on ${ports[$role]}: $(curl -s "http://127.0.0.1:${ports[$role]}/health/ready")"
done

order='{"id":"ord-1","type":"created","customerId":"c-7","total":42}'
natsctl pub "$ORDERS_SUBJECT.new" "$order" X-Tenant=acme X-Correlation-Id=smoke-1
natsctl pub "$ORDERS_SUBJECT.new" "$order" # a repeat: stored once
out=$(natsctl wait "$processed_stream" 1 60s)
echo "$out"

fail() { echo "smoke-test: $*" >&2; exit 1; }
python3 - "$out" "$PROCESSED_SUBJECT" <<'PY' || fail "the published message is not as expected"
import json, sys
lines = [json.loads(l) for l in sys.argv[1].splitlines() if l.strip()]
assert len(lines) == 1, f"want one message on PROCESSED, got {len(lines)}"
m = lines[0]
h = {k.lower(): v[0] for k, v in m["headers"].items()}
assert m["subject"] == sys.argv[2] + ".orders.created", m["subject"]
assert json.loads(m["data"])["id"] == "ord-1", m["data"]
assert h["x-source"] == "orders" and h["x-idempotency-key"] == "ord-1", h
assert h["x-topic"] == "orders.created" and h["x-message-key"] == "c-7", h
assert h["x-correlation-id"] == "smoke-1" and h["x-tenant"] == "acme", h
PY
sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
inbox=$(sql "SELECT count(*) || ' ' || string_agg(state, ',') FROM inbox WHERE source = 'orders'")
[[ $inbox == "1 processed" ]] || fail "inbox: want one processed row, got '$inbox'"
for ((i = 0; i < 120; i++)); do
  outbox=$(sql "SELECT count(*) || ' ' || string_agg(state, ',') FROM outbox")
  [[ $outbox == "1 sent" ]] && break
  sleep 0.25
done
[[ $outbox == "1 sent" ]] || fail "outbox: want one sent row, got '$outbox'"
echo "inbox: $inbox; outbox: $outbox"
