// Command queuebox-deliver is the deliver role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/pkg/run"
)

func main() { os.Exit(run.Main("queuebox-deliver", wire)) }
