// Command queuebox-deliver is the deliver role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/services/internal/deliverrole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

func main() { os.Exit(wiring.Main(deliverrole.Role)) }
