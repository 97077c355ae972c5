// Command queuebox-relay is the relay role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/services/internal/relayrole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

func main() { os.Exit(wiring.Main(relayrole.Role)) }
