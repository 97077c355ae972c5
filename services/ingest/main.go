// Command queuebox-ingest is the ingest role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/services/internal/ingestrole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

func main() { os.Exit(wiring.Main(ingestrole.Role)) }
