// Command queuebox runs QueueBox in one process: every role (ingest,
// relay, deliver, capture) or the set that --roles or QUEUEBOX_ROLES
// names, plus the health probe, the development stack and the operator
// commands of services/internal/cli. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/services/internal/capturerole"
	"github.com/alternayte/queuebox/services/internal/cli"
	"github.com/alternayte/queuebox/services/internal/deliverrole"
	"github.com/alternayte/queuebox/services/internal/ingestrole"
	"github.com/alternayte/queuebox/services/internal/relayrole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

// roles are every role the binary can run, in the order they are wired.
var roles = []wiring.Role{ingestrole.Role, relayrole.Role, deliverrole.Role, capturerole.Role}

func main() { os.Exit(cli.Main(roles, os.Args[1:], os.Stdout, os.Stderr)) }
