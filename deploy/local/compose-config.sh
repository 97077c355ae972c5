#!/usr/bin/env bash
# Validates compose/docker-compose.yml, alone and with the release overlay,
# with `docker compose config`. There is no Docker engine on the build
# machines, and Debian's docker.io has no compose plugin, so the plugin is
# built once from the Go module proxy
# into ~/.docker/cli-plugins when it is missing (a few minutes, once).
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
docker compose -f compose/docker-compose.yml --env-file compose/.env.example config --quiet
docker compose -f compose/docker-compose.yml --env-file compose/.env.example --profile rabbitmq --profile nats --profile kafka config --quiet
echo "compose-config: compose/docker-compose.yml is valid, with and without the rabbitmq, nats and kafka profiles"
# The roles that scale must not publish a fixed host port: a second
# replica could not bind it.
docker compose -f compose/docker-compose.yml --env-file compose/.env.example config --format json |
  python3 -c '
import json, sys
services = json.load(sys.stdin)["services"]
for name in ("relay", "deliver"):
    for port in services[name].get("ports", []):
        published = str(port.get("published", ""))
        if published and "-" not in published:
            sys.exit(f"compose-config: {name} publishes the fixed host port {published}; --scale {name}=2 could not start")
print("compose-config: relay and deliver scale with --scale (no fixed host port)")'
for f in examples/*/docker-compose.yml; do
  docker compose -f "$f" config --quiet
  docker compose -f "$f" --profile broker config --quiet
  echo "compose-config: $f is valid"
done
RELEASE_IMAGE=ghcr.io/alternayte/queuebox:0.1.0 docker compose -f compose/docker-compose.yml \
  -f compose/docker-compose.release.yml --env-file compose/.env.example config --quiet
echo "compose-config: compose/docker-compose.release.yml is valid"
