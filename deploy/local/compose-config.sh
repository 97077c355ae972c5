#!/usr/bin/env bash
# Validates every Compose file of the repository with `docker compose
# config`, alone and with the overlays and profiles it is documented with,
# and checks the published ports of each resolved project
# (deploy/local/compose-ports.py): a service that runs with --scale
# publishes no fixed host port, and no two published ranges overlap.
# There is no Docker engine on the build machines, and Debian's docker.io
# has no compose plugin, so the plugin is built once from the Go module
# proxy into ~/.docker/cli-plugins when it is missing (a few minutes, once).
set -euo pipefail
cd "$(dirname "$0")/../.."
version=v2.40.3
if ! docker compose version >/dev/null 2>&1; then
  echo "compose-config: building the docker compose plugin $version (once)" >&2
  dir=$(GOWORK=off GOFLAGS=-mod=mod go mod download -json "github.com/docker/compose/v2@$version" |
    python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
  work=$(mktemp -d)
  cp -r "$dir"/. "$work" && chmod -R u+w "$work"
  mkdir -p "$HOME/.docker/cli-plugins"
  (cd "$work" && GOWORK=off go build -o "$HOME/.docker/cli-plugins/docker-compose" ./cmd)
  rm -rf "$work"
fi

# compose-ports.py reads the resolved project as YAML with PyYAML, which a
# minimal Debian may lack: install its package once, as root, or name it.
if ! python3 -c 'import yaml' 2>/dev/null; then
  if [ "$(id -u)" -eq 0 ]; then
    echo "compose-config: installing python3-yaml (once)" >&2
    apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-yaml >/dev/null
  else
    echo "compose-config: PyYAML is missing: run 'sudo apt-get install python3-yaml'" >&2
    exit 1
  fi
fi

# check LABEL ARGS...: `docker compose ARGS config` is valid, and its ports
# pass compose-ports.py. A variable of the caller's shell must not hide a
# missing --env-file, so the database variables are cleared.
check() {
  local label=$1
  shift
  env -u POSTGRES_DB -u POSTGRES_USER -u POSTGRES_PASSWORD docker compose "$@" config --quiet
  env -u POSTGRES_DB -u POSTGRES_USER -u POSTGRES_PASSWORD docker compose "$@" config |
    python3 deploy/local/compose-ports.py "$label"
}
profiles=(--profile rabbitmq --profile nats --profile kafka --profile monitoring --profile tracing)
release=ghcr.io/alternayte/queuebox:0.1.0

# The one-process stack of the tutorials, at the root.
check "docker-compose.yml" -f docker-compose.yml --env-file .env.example
check "docker-compose.yml with every profile" -f docker-compose.yml --env-file .env.example "${profiles[@]}"
# Without -f, Compose adds docker-compose.override.yml: the development loop.
check "docker-compose.yml with docker-compose.override.yml" --env-file .env.example "${profiles[@]}"
RELEASE_IMAGE=$release check "docker-compose.yml with docker-compose.release.yml" \
  -f docker-compose.yml -f docker-compose.release.yml --env-file .env.example
# The deploy page promises that a start without the env file names the
# variables to set.
if err=$(env -u POSTGRES_DB -u POSTGRES_USER -u POSTGRES_PASSWORD docker compose -f docker-compose.yml config --quiet 2>&1); then
  echo "compose-config: docker-compose.yml starts without POSTGRES_ variables" >&2
  exit 1
fi
grep -q 'POSTGRES_' <<<"$err" || { echo "compose-config: the missing-variable error names no variable: $err" >&2; exit 1; }
echo "compose-config: docker-compose.yml without --env-file fails and names the variables"

# The per-role stack.
check "compose/docker-compose.yml" -f compose/docker-compose.yml --env-file .env.example
check "compose/docker-compose.yml with every profile" -f compose/docker-compose.yml --env-file .env.example "${profiles[@]}"
RELEASE_IMAGE=$release check "compose/docker-compose.yml with compose/docker-compose.release.yml" \
  -f compose/docker-compose.yml -f compose/docker-compose.release.yml --env-file .env.example

# The bridge examples.
for f in examples/*/docker-compose.yml; do
  check "$f" -f "$f"
  check "$f with the broker profile" -f "$f" --profile broker
done
