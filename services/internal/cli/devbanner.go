package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// devTry is what queuebox dev prints once every listener is up and the
// process answers ready: where everything is, how to point the operator
// commands at this run, and lines to try. The demo's sources exist only
// without --config, so a configuration file of the user's gets the
// general lines.
func devTry(pgPort int, f devFlags, ports devPorts, dir string, keep bool) string {
	psql := fmt.Sprintf("psql -h 127.0.0.1 -p %d -U postgres -d queuebox", pgPort)
	data, ops := ports.data.port, ports.operational()
	left := "Ctrl-C stops everything and removes " + dir
	if keep {
		left = "Ctrl-C stops everything; the data stays in " + dir
	}
	head := fmt.Sprintf(`
QueueBox is ready: every role, capture included, on http://127.0.0.1:%[2]d
PostgreSQL: 127.0.0.1:%[1]d (user postgres, database queuebox), data in %[3]s
Admin token of this run: %[4]s (the UI: http://127.0.0.1:%[5]d/admin/ui/)
`, pgPort, data, dir, f.adminToken, ops)
	tail := devOperate(pgPort, filepath.Join(dir, "queuebox.yml")) + fmt.Sprintf(`
Replay what was sent, health and metrics:
  curl -X POST http://127.0.0.1:%[1]d/admin/replay -H 'Authorization: Bearer %[2]s' -d '{"destination":"%[3]s"}'
  curl -s http://127.0.0.1:%[1]d/health/ready
  curl -s http://127.0.0.1:%[1]d/metrics | grep ^queuebox

%[4]s.
`, ops, f.adminToken, "receiver", left)
	if f.config != "" {
		return head + fmt.Sprintf(`Configuration: %[1]s over the dev defaults (%[2]s is the demo receiver, whose lines start with "receiver:")
  %[3]s -c "SELECT topic, key, state, attempt FROM outbox"
  %[3]s -c "SELECT source, idempotency_key, consumption, state FROM inbox"
`, f.config, composeReceiver, psql) + strings.Replace(tail, `"destination":"receiver"`, `"destination":"<name>"`, 1)
	}
	return head + fmt.Sprintf(`
Deliver an outbox row to the demo receiver (its lines start with "receiver:"):
  %[2]s -c "INSERT INTO outbox (topic, key, payload) VALUES ('order.created', 'order-1001', '{\"orderId\":\"1001\",\"amount\":42}')"
  %[2]s -c "SELECT topic, key, state, attempt FROM outbox"

Post a webhook (stored once, relayed to the outbox, delivered):
  curl -i -X POST http://127.0.0.1:%[1]d/inbox/webhooks -H 'Content-Type: application/json' -d '{"id":"evt-1","type":"payment.completed","orderId":"1001"}'

A pull source keeps its rows for your worker:
  curl -i -X POST http://127.0.0.1:%[1]d/inbox/orders -H 'Content-Type: application/json' -d '{"id":"order-1","total":42}'
  %[2]s -c "SELECT source, idempotency_key, consumption, state FROM inbox"
`, data, psql) + tail
}

// devOperate is the banner's part on the operator commands: the
// variables that point them at this run's database from another
// terminal (the configuration file of the run, which holds the routes
// too, or the database alone), then the commands themselves, each with
// a shell comment. No password: the private server trusts its local
// clients.
func devOperate(pgPort int, file string) string {
	exe := "queuebox"
	if strings.Contains(os.Args[0], "/") {
		exe = os.Args[0]
	}
	var b strings.Builder
	fmt.Fprintf(&b, `
Point the operator commands at this run from another terminal:
  export QUEUEBOX_CONFIG_FILE=%[2]s
  (or the database alone: export QUEUEBOX_DATABASE_URL=jdbc:postgresql://127.0.0.1:%[1]d/queuebox QUEUEBOX_DATABASE_USERNAME=postgres)
`, pgPort, file)
	commands := [][2]string{
		{"doctor", "the runbook's checks in one run"},
		{"dead list", "dead rows; dead show, resend and discard take an id"},
		{"replay --topic 'order.*' --dry-run", "what a replay would move back to pending"},
	}
	width := len(commands[2][0])
	for _, c := range commands {
		fmt.Fprintf(&b, "  %s %-*s  # %s\n", exe, width, c[0], c[1])
	}
	return b.String()
}
