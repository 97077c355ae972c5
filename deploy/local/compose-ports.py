"""Checks the published ports of one resolved Compose project.

Reads the output of `docker compose config` (YAML: the JSON form drops the
x- extension fields) on stdin and
exits non-zero with a message when
  * a service marked `x-scales: true` (one that runs with --scale) publishes
    a fixed host port, which a second replica could not bind, or
  * two published host port ranges overlap, so two containers would ask
    for the same host port.
The first argument names the project in the messages.
"""
import sys

import yaml  # python3-yaml


def ranges(services):
    """Yields (service, host_ip, protocol, first, last) per published port."""
    for name, svc in sorted(services.items()):
        for port in svc.get("ports") or []:
            published = str(port.get("published") or "")
            if not published:
                continue
            first, _, last = published.partition("-")
            yield (name, port.get("host_ip") or "", port.get("protocol") or "tcp",
                   int(first), int(last or first))


def problems(services):
    found = []
    for name, svc in sorted(services.items()):
        if not svc.get("x-scales"):
            continue
        for port in svc.get("ports") or []:
            published = str(port.get("published") or "")
            if published and "-" not in published:
                found.append(f"{name} runs with --scale but publishes the fixed host port {published}")
    ports = list(ranges(services))
    for i, a in enumerate(ports):
        for b in ports[i + 1:]:
            same_ip = a[1] == b[1] or "" in (a[1], b[1]) or "0.0.0.0" in (a[1], b[1])
            if same_ip and a[2] == b[2] and a[3] <= b[4] and b[3] <= a[4]:
                found.append(f"{a[0]} publishes {a[3]}-{a[4]} and {b[0]} {b[3]}-{b[4]}: the ranges overlap")
    return found


def main():
    label = sys.argv[1]
    services = yaml.safe_load(sys.stdin)["services"]
    found = problems(services)
    for p in found:
        print(f"compose-config: {label}: {p}", file=sys.stderr)
    if found:
        sys.exit(1)
    scaled = sorted(n for n, s in services.items() if s.get("x-scales"))
    print(f"compose-config: {label}: ports do not overlap" +
          (f"; {', '.join(scaled)} scale with --scale" if scaled else ""))


if __name__ == "__main__":
    main()
