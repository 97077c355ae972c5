// Command queuebox-capture is the capture role of QueueBox. See README.md.
package main

import (
	"os"

	"github.com/alternayte/queuebox/services/internal/capturerole"
	"github.com/alternayte/queuebox/services/internal/wiring"
)

func main() { os.Exit(wiring.Main(capturerole.Role)) }
