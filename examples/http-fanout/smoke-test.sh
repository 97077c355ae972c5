#!/usr/bin/env bash
# Runs the HTTP fan-out example on this machine without Docker: a
# throw-away database on the local PostgreSQL, bin/queuebox (every role)
# with queuebox.yml, and two demo receivers (compose/receiver) on free
# ports in place of analytics and audit. examples/app-go writes an order
# with one outbox row per receiver; a webhook goes through the inbox. It
# checks that each receiver got its own rows and none of the other's, and
# removes everything it created, also on failure.
#
#   examples/http-fanout/smoke-test.sh
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

db="qb_fanout_smoke_$$_$RANDOM"
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
  psql -h "$PGHOST" -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
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

(cd "$root/compose/receiver" && go build -o "$work/receiver" .)
(cd "$root/examples/app-go" && go build -o "$work/app-go" .)
declare -A url
for name in analytics audit; do
  port=$(free_port)
  RECEIVER_ADDR=127.0.0.1:$port RECEIVER_HEADERS=1 "$work/receiver" >"$work/$name.log" 2>&1 &
  pids+=($!)
  wait_http "http://127.0.0.1:$port/" "${pids[-1]}" "receiver $name"
  url[$name]=http://127.0.0.1:$port
done

psql -h "$PGHOST" -U postgres -d postgres -qc "CREATE DATABASE $db"
sed -e "s#http://analytics:8080#${url[analytics]}#" -e "s#http://audit:8080#${url[audit]}#" \
  "$here/queuebox.yml" >"$work/queuebox.yml"
port=$(free_port)
QUEUEBOX_CONFIG_FILE="$work/queuebox.yml" \
  QUEUEBOX_DATABASE_URL="jdbc:postgresql://$PGHOST:5432/$db" \
  QUEUEBOX_DATABASE_USERNAME=postgres QUEUEBOX_DATABASE_PASSWORD=unused \
  QUEUEBOX_SERVER_HTTPPORT=$port "$root/bin/queuebox" >"$work/queuebox.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$port/health/ready" "${pids[-1]}" queuebox

# The application side: one order, one outbox row per receiver, one commit.
DATABASE_URL="postgres://postgres@$PGHOST:5432/$db?sslmode=disable" "$work/app-go" \
  -customer cust-42 -amount 4200 -topics analytics.order.placed,audit.order.placed
# The inbox side: the event type picks the one receiver.
curl -fs -X POST "http://127.0.0.1:$port/inbox/stripe" -H 'Content-Type: application/json' \
  -d '{"id":"e1","type":"audit.payment.succeeded"}' >/dev/null

sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
until_true "delivery of every outbox row" '[ "$(sql "SELECT count(*) FROM outbox WHERE state = '"'sent'"'")" = 3 ]'
order=$(sql "SELECT id FROM orders")
grep -q "X-Topic=analytics.order.placed" "$work/analytics.log"
grep -q "\"orderId\":$order" "$work/analytics.log"
grep -q "X-Topic=audit.order.placed" "$work/audit.log"
grep -q "\"orderId\":$order" "$work/audit.log"
grep -q "X-Topic=audit.payment.succeeded" "$work/audit.log"
# No receiver got a topic of the other. (A bare `! grep` would not stop
# the script: set -e ignores a negated command.)
if grep -q "X-Topic=audit\." "$work/analytics.log" || grep -q "X-Topic=analytics\." "$work/audit.log"; then
  echo "smoke-test: a receiver got the other's topic" >&2
  exit 1
fi
echo "smoke-test: order $order reached analytics and audit as two rows; the webhook reached audit only"
