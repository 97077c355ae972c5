#!/usr/bin/env bash
# Starts the local PostgreSQL, RabbitMQ and NATS (JetStream) when they are
# down, with the commands this machine kind uses, and waits until each
# answers. It changes nothing on a service that already runs, except that
# PostgreSQL gets wal_level = logical (capture needs it) and room for 300
# connections (the integration tests run many binaries side by side), which
# takes a restart the first time.
set -euo pipefail

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

wait_port() {
  local name=$1 port=$2 tries=${3:-120}
  for ((i = 0; i < tries; i++)); do
    port_open "$port" && return 0
    sleep 0.5
  done
  echo "ensure-services: $name did not open port $port" >&2
  return 1
}

apt_updated=""
apt_install() {
  if [ -z "$apt_updated" ]; then apt-get update -q >/dev/null; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
}

pg_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1; }

ensure_postgres() {
  local v
  v=$(pg_version)
  if [ -z "$v" ]; then
    echo "ensure-services: installing PostgreSQL" >&2
    apt_install postgresql
    v=$(pg_version)
  fi
  if ! port_open 5432; then
    pg_ctlcluster --skip-systemctl-redirect "$v" main start || true
  fi
  wait_port PostgreSQL 5432
  for ((i = 0; i < 60; i++)); do
    psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1 && break
    sleep 0.5
  done
  # Settings the tests and capture need; each takes a restart, done once.
  local changed=0 level conns
  level=$(psql -h 127.0.0.1 -U postgres -d postgres -tAc 'show wal_level')
  if [ "$level" != "logical" ]; then
    echo "ensure-services: setting wal_level = logical" >&2
    psql -h 127.0.0.1 -U postgres -d postgres -qc 'ALTER SYSTEM SET wal_level = logical'
    changed=1
  fi
  # The integration tests run binaries side by side, each with its own pool;
  # the Debian default of 100 connections leaves little room for that, and
  # the chaos short suite runs beside them (300 was exceeded once in CI).
  conns=$(psql -h 127.0.0.1 -U postgres -d postgres -tAc 'show max_connections')
  if [ "$conns" -lt 500 ]; then
    echo "ensure-services: setting max_connections = 500" >&2
    psql -h 127.0.0.1 -U postgres -d postgres -qc 'ALTER SYSTEM SET max_connections = 500'
    changed=1
  fi
  if [ "$changed" = 1 ]; then
    echo "ensure-services: restarting PostgreSQL to apply the settings" >&2
    pg_ctlcluster --skip-systemctl-redirect "$v" main restart
    wait_port PostgreSQL 5432
    for ((i = 0; i < 60; i++)); do
      psql -h 127.0.0.1 -U postgres -d postgres -tAc 'select 1' >/dev/null 2>&1 && break
      sleep 0.5
    done
  fi
}

ensure_rabbitmq() {
  if port_open 5672; then return 0; fi
  if ! command -v rabbitmq-server >/dev/null; then
    echo "ensure-services: installing RabbitMQ" >&2
    apt_install rabbitmq-server
  fi
  rabbitmq-server -detached || true
  wait_port RabbitMQ 5672 240
}

ensure_nats() {
  if port_open 4222; then return 0; fi
  if [ ! -x /usr/sbin/nats-server ]; then
    echo "ensure-services: installing nats-server" >&2
    apt_install nats-server
  fi
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- \
    -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
  wait_port NATS 4222
}

# The command-line clients the example smoke tests use, the C compiler
# that cgo needs to build the binaries (the Kafka client links librdkafka),
# and Debian's chromium, which the admin UI's browser tests drive headless.
ensure_clients() {
  local missing=()
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  command -v psql >/dev/null || missing+=(postgresql-client)
  command -v amqp-publish >/dev/null || missing+=(amqp-tools)
  command -v python3 >/dev/null || missing+=(python3)
  command -v chromium >/dev/null || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "ensure-services: installing ${missing[*]}" >&2
    apt_install "${missing[@]}"
  fi
}

# --install-only installs what `make run` (queuebox dev) needs, the
# PostgreSQL server binaries and the C compiler, and starts nothing.
if [ "${1:-}" = "--install-only" ]; then
  missing=()
  compgen -G "/usr/lib/postgresql/*/bin/initdb" >/dev/null || missing+=(postgresql)
  command -v gcc >/dev/null || missing+=(gcc libc6-dev)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "ensure-services: installing ${missing[*]}" >&2
    apt_install "${missing[@]}"
  fi
  exit 0
fi

ensure_postgres
ensure_rabbitmq
ensure_nats
ensure_clients
echo "ensure-services: PostgreSQL, RabbitMQ and NATS are up"
