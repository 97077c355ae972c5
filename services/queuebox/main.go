// Command queuebox runs QueueBox in one process: every role (ingest,
// relay, deliver, capture) or the set that --roles or QUEUEBOX_ROLES
// names, plus the health probe and the development stack. See README.md.
package main

import "os"

func main() { os.Exit(cli(os.Args[1:], os.Stdout, os.Stderr)) }
