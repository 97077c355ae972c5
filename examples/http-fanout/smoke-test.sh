#!/usr/bin/env bash
# Runs the HTTP fan-out example on this machine without Docker: a
# throw-away database on the local PostgreSQL, bin/queuebox (every role)
# with queuebox.yml, and two demo receivers (compose/receiver) on free
# ports in place of analytics and audit. examples/app-go writes orders,
# one outbox row each, and the route sends each row to both receivers;
# two webhooks go through the inbox. It checks that:
#   1. each receiver gets every order once, with the id of the row the
#      application wrote, and the audit-only topic reaches audit alone;
#   2. with audit stopped, analytics still gets every new order of the
#      same customer, in order, while audit's deliveries wait;
#   3. once audit is back, it gets each of those orders once, in order.
# It removes everything it created, also on failure.
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
fail() { echo "smoke-test: $*" >&2; exit 1; }

(cd "$root/examples/app-go" && go build -o "$work/app-go" .)
declare -A url pid
for name in analytics audit; do
  start_receiver "$name"
  url[$name]=$receiver_url
  pid[$name]=${pids[-1]}
done

admin "CREATE DATABASE $db" >/dev/null
sed -e "s#http://analytics:8080#${url[analytics]}#" -e "s#http://audit:8080#${url[audit]}#" \
  "$here/queuebox.yml" >"$work/queuebox.yml"
port=$(free_port)
# Faster than the defaults, so that the outage below is short: retries
# after 100 ms, and audit's circuit breaker opens at the first failure and
# then probes after 2 s, 4 s, 8 s (doubling). Each failed try spends an
# attempt of the first row of audit's lane, so that row (max_attempts 5)
# would go dead after about 30 s of outage; the outage below lasts a few
# seconds, and audit catches up at the first probe after its return.
QUEUEBOX_CONFIG_FILE="$work/queuebox.yml" \
  QUEUEBOX_DATABASE_URL="jdbc:postgresql://$PGHOST:5432/$db" \
  QUEUEBOX_DATABASE_USERNAME=postgres QUEUEBOX_DATABASE_PASSWORD=unused \
  QUEUEBOX_OUTBOX_RETRYBASEDELAYMS=100 \
  QUEUEBOX_DESTINATIONS_AUDIT_FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD=1 \
  QUEUEBOX_DESTINATIONS_AUDIT_FLOWCONTROL_CIRCUITBREAKER_OPENMS=2000 \
  QUEUEBOX_SERVER_HTTPPORT=$port "$root/bin/queuebox" >"$work/queuebox.log" 2>&1 &
pids+=($!)
wait_http "http://127.0.0.1:$port/health/ready" "${pids[-1]}" queuebox

sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
place_order() {
  DATABASE_URL="postgres://postgres@$PGHOST:5432/$db?sslmode=disable" "$work/app-go" \
    -customer cust-42 -amount "$1" -topic order.placed >/dev/null
}
# received NAME [TOPIC]: one line per POST the receiver logged (with
# its header line), "topic message-id order-or-event-id", in arrival order;
# only those of TOPIC when given.
received() {
  python3 - "$work/$1.log" "${2:-}" <<'PY'
import json, sys
lines = open(sys.argv[1]).read().splitlines()
for i, line in enumerate(lines):
    if not line.startswith("delivered POST ") or i + 1 == len(lines) or not lines[i + 1].startswith("  headers "):
        continue
    body = json.loads(line.split(" ", 3)[3])
    tags = dict(t.split("=", 1) for t in lines[i + 1].split()[1:])
    if sys.argv[2] and tags.get("X-Topic") != sys.argv[2]:
        continue
    print(tags.get("X-Topic"), tags.get("X-Message-Id"), body.get("orderId", body.get("id")))
PY
}
# order_ids NAME: the order ids NAME received, in arrival order, one line.
order_ids() { received "$1" order.placed | awk '{print $3}' | paste -sd' ' -; }
# written_ids: the ids of the order rows the application wrote, in order.
written_ids() { sql "SELECT id FROM outbox WHERE topic = 'order.placed' AND origin_id IS NULL ORDER BY sequence" | paste -sd' ' -; }

# 1. One order and two webhooks, both receivers up.
place_order 4200
curl -fs -X POST "http://127.0.0.1:$port/inbox/stripe" -H 'Content-Type: application/json' \
  -d '{"id":"e1","type":"payment.succeeded"}' >/dev/null
curl -fs -X POST "http://127.0.0.1:$port/inbox/stripe" -H 'Content-Type: application/json' \
  -d '{"id":"e2","type":"audit.login"}' >/dev/null
# 2 deliveries of the order, 2 of payment.succeeded, 1 of audit.login.
until_true "delivery of every outbox row" \
  '[ "$(sql "SELECT count(*) FILTER (WHERE state = '"'sent'"') || '"' '"' || count(*) FROM outbox")" = "5 5" ]'
first=$(sql "SELECT id FROM orders")
[ "$(sql "SELECT string_agg(destination, ',' ORDER BY destination) FROM outbox WHERE topic = 'order.placed'")" = "analytics,audit" ] ||
  fail "the order is not one delivery per receiver"
[ "$(sql "SELECT count(*) FROM outbox WHERE topic = 'order.placed' AND origin_id IS NOT NULL")" = 1 ] ||
  fail "QueueBox did not add exactly one delivery for the second receiver"
for name in analytics audit; do
  [ "$(order_ids "$name")" = "$first" ] || fail "$name got orders [$(order_ids "$name")], want [$first]"
  [ "$(received "$name" order.placed | awk '{print $2}')" = "$(written_ids)" ] ||
    fail "$name did not get the id of the row the application wrote as X-Message-Id"
  [ "$(received "$name" payment.succeeded | awk '{print $3}')" = e1 ] || fail "$name did not get the webhook e1 once"
done
[ "$(received audit audit.login | awk '{print $3}')" = e2 ] || fail "audit did not get audit.login"
[ -z "$(received analytics audit.login)" ] || fail "analytics got audit.login, which routes to audit only"

# 2. audit goes down; three more orders of the same customer.
audit_port=${url[audit]##*:}
kill -TERM "${pid[audit]}"
wait "${pid[audit]}" 2>/dev/null || true
for amount in 1 2 3; do place_order "$amount"; done
all=$(sql "SELECT string_agg(id::text, ' ' ORDER BY id) FROM orders")
until_true "analytics getting every order while audit is down" '[ "$(order_ids analytics)" = "$all" ]'
[ "$(order_ids audit)" = "$first" ] || fail "audit got orders while it was down"
[ "$(sql "SELECT count(*) FROM outbox WHERE destination = 'audit' AND state IN ('pending', 'processing')")" = 3 ] ||
  fail "audit's three deliveries are not waiting in its lane"
echo "smoke-test: audit down: analytics got orders [$(order_ids analytics)], audit waits with 3 pending deliveries"

# 3. audit comes back on the same address.
RECEIVER_ADDR=127.0.0.1:$audit_port RECEIVER_HEADERS=1 "$work/receiver" >>"$work/audit.log" 2>&1 &
pids+=($!)
wait_http "${url[audit]}/" "${pids[-1]}" "receiver audit"
until_true "audit catching up" '[ "$(order_ids audit)" = "$all" ]'
until_true "every delivery sent" '[ "$(sql "SELECT count(*) FROM outbox WHERE state <> '"'sent'"'")" = 0 ]'
[ "$(sql "SELECT count(*) FROM outbox")" = 11 ] || fail "want 11 deliveries: 4 orders and e1 to both receivers, e2 to audit"
for name in analytics audit; do
  [ "$(received "$name" order.placed | awk '{print $2}' | paste -sd' ' -)" = "$(written_ids)" ] ||
    fail "$name: the message ids differ from the rows the application wrote"
done
[ "$(order_ids audit)" = "$all" ] || fail "audit got [$(order_ids audit)] after its return, want each of [$all] once, in order"
echo "smoke-test: one row per order reached analytics and audit; with audit down analytics went on, and audit then got every order once, in order"
