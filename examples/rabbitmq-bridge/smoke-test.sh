#!/usr/bin/env bash
# Runs the RabbitMQ bridge example against the PostgreSQL and RabbitMQ of
# this machine, without Docker: it builds the binaries into bin/ when they
# are missing, creates a throw-away database, starts queuebox-ingest,
# -relay and -deliver with queuebox.yml (queue, exchange and bound queue
# names get a unique suffix), publishes one message twice to the source
# queue and checks that the inbox holds it once, that the outbox row is
# sent, and that the message reached a queue bound to the exchange. It
# cleans up everything it created, also on failure.
#
#   examples/rabbitmq-bridge/smoke-test.sh
#
# Needs psql, and amqp-publish, amqp-consume and
# amqp-delete-queue (Debian package amqp-tools). PGHOST (127.0.0.1) and
# RABBITMQ_URL (amqp://guest:guest@127.0.0.1:5672) point elsewhere.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
PGHOST=${PGHOST:-127.0.0.1}
RABBITMQ_URL=${RABBITMQ_URL:-amqp://guest:guest@127.0.0.1:5672}

for tool in psql amqp-publish amqp-consume amqp-delete-queue; do
  command -v "$tool" >/dev/null || { echo "smoke-test: $tool is missing (amqp-tools, postgresql-client)" >&2; exit 1; }
done
for role in ingest relay deliver; do
  [ -x "$root/bin/queuebox-$role" ] || { (cd "$root" && make build >/dev/null); break; }
done

suffix="smoke-$$-$RANDOM"
db="qb_rabbit_${suffix//-/_}"
incoming="incoming-orders-$suffix"
exchange="queuebox-events-$suffix"
processed="processed-orders-$suffix"
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
  amqp-delete-queue -u "$RABBITMQ_URL" -q "$incoming" >/dev/null 2>&1 || true
  amqp-delete-queue -u "$RABBITMQ_URL" -q "$processed" >/dev/null 2>&1 || true
  # The exchange stays: amqp-tools cannot delete one, and a durable
  # exchange without bindings holds nothing.
  psql -h "$PGHOST" -U postgres -d postgres -qc "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null 2>&1 || true
  rm -rf "$work"
  [ "$code" -eq 0 ] && echo "smoke-test: ok" || echo "smoke-test: FAILED" >&2
  exit "$code"
}
trap cleanup EXIT INT TERM

psql -h "$PGHOST" -U postgres -d postgres -qc "CREATE DATABASE $db"
host=${RABBITMQ_URL#*@}
sed -e "s#@rabbitmq:5672#@${host}#g" \
  -e "s#queueName: incoming-orders#queueName: $incoming#" \
  -e "s#exchange: queuebox-events#exchange: $exchange#" \
  "$here/queuebox.yml" >"$work/queuebox.yml"
# The example's guest:guest stands for the credentials of RABBITMQ_URL.
sed -i -e "s#amqp://guest:guest@${host}#${RABBITMQ_URL}#g" "$work/queuebox.yml"

export QUEUEBOX_CONFIG_FILE="$work/queuebox.yml"
export QUEUEBOX_DATABASE_URL="jdbc:postgresql://$PGHOST:5432/$db"
export QUEUEBOX_DATABASE_USERNAME=postgres
export QUEUEBOX_DATABASE_PASSWORD=unused
export QUEUEBOX_DATABASE_POOLSIZE=4
export QUEUEBOX_OUTBOX_POLLINTERVALMS=50
export QUEUEBOX_OUTBOX_RETRYBASEDELAYMS=100
export QUEUEBOX_INBOX_RELAY_MAXATTEMPTS=50
# A port the kernel reports free now. (A random port from 20000–40000 once
# collided with the local end of a client connection: the kernel hands out
# 32768 and up to outgoing connections.)
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
for role in ingest relay deliver; do
  port=$(free_port)
  QUEUEBOX_SERVER_HTTPPORT=$port "$root/bin/queuebox-$role" >"$work/$role.log" 2>&1 &
  pids+=($!)
  for ((i = 0; i < 120; i++)); do
    curl -fs "http://127.0.0.1:$port/health/ready" >/dev/null 2>&1 && break
    kill -0 "${pids[-1]}" 2>/dev/null || { echo "smoke-test: queuebox-$role exited" >&2; exit 1; }
    sleep 0.5
  done
  curl -fs "http://127.0.0.1:$port/health/ready" >/dev/null || { echo "smoke-test: queuebox-$role is not ready" >&2; exit 1; }
  [ "$role" = ingest ] && curl -s "http://127.0.0.1:$port/health/ready" | grep -q '"rabbitmq.orders-queue":{"status":"up"}'
done

sql() { psql -h "$PGHOST" -U postgres -d "$db" -tAc "$1"; }
until_true() { # until_true <what> <shell condition>: retries for 30 s
  local what=$1 cond=$2
  for ((i = 0; i < 60; i++)); do eval "$cond" && return 0; sleep 0.5; done
  echo "smoke-test: $what did not happen" >&2
  return 1
}

body='{"messageId":"m-1","orderId":"1001","type":"created"}'
amqp-publish -u "$RABBITMQ_URL" -r "$incoming" -p -C application/json -H "x-tenant: acme" -b "$body"
amqp-publish -u "$RABBITMQ_URL" -r "$incoming" -p -C application/json -H "x-tenant: acme" -b "$body"
# The outbox publishes the forwarded row at once, before any queue is
# bound to the exchange it declares: that try is unroutable and retries.
until_true "the first publish of the forwarded row" \
  '[ "$(sql "SELECT count(*) FROM outbox WHERE topic = '"'orders.created'"' AND attempt >= 1")" = 1 ]'
[ "$(sql "SELECT count(*) FROM inbox WHERE source = 'orders-queue' AND idempotency_key = 'm-1'")" = 1 ]
[ "$(sql "SELECT headers->>'x-tenant' FROM inbox WHERE idempotency_key = 'm-1'")" = acme ]

# The publisher declared the exchange on that first try. amqp-consume now
# declares a queue, binds it to the exchange and reads the message.
timeout 60 amqp-consume -u "$RABBITMQ_URL" -q "$processed" -e "$exchange" -r "orders.#" -c 1 cat >"$work/received.json" &
consumer=$!
until_true "the outbox row being sent" \
  '[ "$(sql "SELECT state FROM outbox WHERE topic = '"'orders.created'"'")" = sent ]'
wait "$consumer"
grep -q '"messageId":"m-1"' "$work/received.json"
echo "smoke-test: the message went queue -> inbox (once) -> outbox -> exchange $exchange -> queue"
