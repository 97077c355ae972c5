// Command queuebox-ingest is the ingest role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/pkg/run"
)

func main() { os.Exit(run.Main("queuebox-ingest", wire)) }
