// Command queuebox-relay is the relay role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/pkg/run"
)

func main() { os.Exit(run.Main("queuebox-relay", wire)) }
