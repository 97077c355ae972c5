// Package cli is the command line of the queuebox binary: the run
// command that serves the roles, and the operator commands beside it.
// services/queuebox holds only main and the list of roles it wires, and
// hands both to Main.
//
// One file per command, its help text at the top:
//
//	cli.go          the dispatch, the binary's help and run
//	health.go       health, the one-shot probe of a container HEALTHCHECK
//	migrate.go      migrate; migratestatus.go its status
//	doctor.go       doctor, the runbook's checks over pkg/doctor
//	dead*.go        dead list, show, resend and discard: the session and
//	                the store (dead.go), the commands (deadcmds.go), the
//	                filter flags (deadflags.go) and the output (deadout.go)
//	replay.go       replay of the rows a filter selects
//	configcheck.go  config check FILE
//	dev*.go         dev: the private PostgreSQL, its configuration
//	                (devconfig.go, devmerge.go), its ports checked
//	                before initdb (devports.go), the banner
//	                (devbanner.go) and the demo receiver
//	clidb.go        the configuration and database access of the operator
//	                commands; audit.go the audit line of the writing ones
//
// Like the rest of the wiring, and unlike the library packages, it reads
// pkg/config. dev points the process's own environment at its
// configuration file (QUEUEBOX_CONFIG_FILE), so it runs once per process.
package cli
