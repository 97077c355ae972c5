#!/usr/bin/env bash
# Starts the whole QueueBox stack on this machine: creates the `queuebox`
# database when it is absent, starts the demo receiver and the four roles
# on their own ports with deploy/local/queuebox.yml, prints what to try,
# and stops everything on Ctrl+C. `make run-roles` builds the binaries first
# and runs it; `make run` runs the one-process `queuebox dev` instead.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$(pwd)
state=deploy/local/.run
mkdir -p "$state"

PGHOST=${PGHOST:-127.0.0.1}
if ! psql -h "$PGHOST" -U postgres -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'queuebox'" | grep -q 1; then
  psql -h "$PGHOST" -U postgres -d postgres -qc "CREATE DATABASE queuebox"
  echo "created the database queuebox"
fi

pids=()
stop() {
  trap - INT TERM EXIT
  echo
  echo "stopping..."
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  echo "stopped"
}
trap stop INT TERM EXIT

go build -o bin/queuebox-demo-receiver ./compose/receiver
bin/queuebox-demo-receiver -addr 127.0.0.1:9999 -headers >"$state/receiver.log" 2>&1 &
pids+=($!)

export QUEUEBOX_CONFIG_FILE="$root/deploy/local/queuebox.yml"
export QUEUEBOX_LOG_FORMAT=text
declare -A ports=([ingest]=8080 [relay]=8081 [deliver]=8082 [capture]=8083)
for role in ingest relay deliver capture; do
  QUEUEBOX_SERVER_HTTPPORT=${ports[$role]} bin/queuebox-$role >"$state/$role.log" 2>&1 &
  pids+=($!)
done

for role in ingest relay deliver capture; do
  for ((i = 0; i < 120; i++)); do
    curl -fs "http://127.0.0.1:${ports[$role]}/health/ready" >/dev/null 2>&1 && break
    sleep 0.5
  done
  printf '%-8s http://127.0.0.1:%s  %s\n' "$role" "${ports[$role]}" \
    "$(curl -s "http://127.0.0.1:${ports[$role]}/health/ready" || echo 'not ready: see deploy/local/.run/'"$role"'.log')"
done

cat <<TRY

QueueBox runs. Logs: deploy/local/.run/*.log (the receiver prints each delivery).

Deliver an outbox row to the demo receiver:
  psql -h $PGHOST -U postgres -d queuebox -c "INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'order-1001', '{\"orderId\":\"1001\",\"amount\":42}')"
  psql -h $PGHOST -U postgres -d queuebox -c "SELECT topic, key, state, attempt FROM outbox"

Post a webhook (stored once, relayed to the outbox, delivered):
  curl -i -X POST http://127.0.0.1:8080/inbox/webhooks -H 'Content-Type: application/json' -d '{"id":"evt-1","type":"payment.completed","orderId":"1001"}'
  curl -i -X POST http://127.0.0.1:8080/inbox/webhooks -H 'Content-Type: application/json' -d '{"id":"evt-1","type":"payment.completed","orderId":"1001"}'   # 200 duplicate

A pull source keeps its rows for your worker:
  curl -i -X POST http://127.0.0.1:8080/inbox/orders -H 'Content-Type: application/json' -d '{"id":"order-1","total":42}'
  psql -h $PGHOST -U postgres -d queuebox -c "SELECT source, idempotency_key, consumption, state FROM inbox"

Replay everything dead or sent for the receiver:
  curl -X POST http://127.0.0.1:8082/admin/replay -H 'Authorization: Bearer demo-admin-token' -d '{"destination":"receiver"}'

Metrics: curl -s http://127.0.0.1:8082/metrics | grep ^queuebox
Watch deliveries: tail -f deploy/local/.run/receiver.log

Press Ctrl+C to stop.
TRY
wait -n "${pids[@]}" || true
echo "a process exited; see deploy/local/.run/*.log"
