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
echo "compose-config: compose/docker-compose.yml is valid"
RELEASE_IMAGE=ghcr.io/alternayte/queuebox:0.1.0 docker compose -f compose/docker-compose.yml \
  -f compose/docker-compose.release.yml --env-file compose/.env.example config --quiet
echo "compose-config: compose/docker-compose.release.yml is valid"
