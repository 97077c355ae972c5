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
# shellcheck source=../smoke-lib.sh
. "$root/examples/smoke-lib.sh"

db="qb_fanout_smoke_$$_$RANDOM"
smoke_teardown() { admin "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true; }

(cd "$root/examples/app-go" && go build -o "$work/app-go" .)
declare -A url
for name in analytics audit; do
  start_receiver "$name"
  url[$name]=$receiver_url
done

admin "CREATE DATABASE $db" >/dev/null
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
