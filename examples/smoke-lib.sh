# Shared by the smoke tests of http-fanout and cdc, which source it after
# `set -euo pipefail` and setting root (the repository root). It checks
# the tools, builds bin/ when it is missing, makes the work folder and
# installs the exit trap: the trap stops every pid in pids, shows the
# tail of each log in the work folder when the test failed, runs
# smoke_teardown (redefine it to drop what the test created) and removes
# the work folder.

PGHOST=${PGHOST:-127.0.0.1}
for tool in psql curl python3 go; do
  command -v "$tool" >/dev/null || { echo "smoke-test: $tool is missing" >&2; exit 1; }
done
[ -x "$root/bin/queuebox" ] || (cd "$root" && make build >/dev/null)

work=$(mktemp -d)
pids=()
smoke_teardown() { :; }

smoke_exit() {
  local code=$?
  trap - EXIT INT TERM
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  if [ "$code" -ne 0 ]; then
    for f in "$work"/*.log; do [ -f "$f" ] && { echo "== $(basename "$f")"; tail -n 40 "$f"; }; done
  fi
  smoke_teardown
  rm -rf "$work"
  [ "$code" -eq 0 ] && echo "smoke-test: ok" || echo "smoke-test: FAILED" >&2
  exit "$code"
}
trap smoke_exit EXIT INT TERM

# admin SQL: runs SQL in the postgres database.
admin() { psql -h "$PGHOST" -U postgres -d postgres -tAc "$1"; }

# free_port: a port the kernel reports free now.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_http URL PID WHAT: waits 60 s for a 2xx answer while PID runs.
wait_http() {
  for ((i = 0; i < 120; i++)); do
    curl -fs "$1" >/dev/null 2>&1 && return 0
    kill -0 "$2" 2>/dev/null || { echo "smoke-test: $3 exited" >&2; return 1; }
    sleep 0.5
  done
  echo "smoke-test: $3 is not ready" >&2
  return 1
}

# until_true WHAT CONDITION: evaluates the shell CONDITION for 60 s.
until_true() {
  for ((i = 0; i < 120; i++)); do eval "$2" && return 0; sleep 0.5; done
  echo "smoke-test: $1 did not happen" >&2
  return 1
}

# start_receiver NAME: builds the demo receiver once, starts it on a free
# port with its log in the work folder (NAME.log); its URL is
# then in receiver_url.
start_receiver() {
  [ -x "$work/receiver" ] || (cd "$root/compose/receiver" && go build -o "$work/receiver" .)
  local port
  port=$(free_port)
  RECEIVER_ADDR=127.0.0.1:$port RECEIVER_HEADERS=1 "$work/receiver" >"$work/$1.log" 2>&1 &
  pids+=($!)
  wait_http "http://127.0.0.1:$port/" "${pids[-1]}" "receiver $1"
  receiver_url=http://127.0.0.1:$port
}
