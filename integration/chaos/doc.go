// Package chaos is QueueBox's fault-injection suite: it runs the built
// binaries as separate processes against real databases, feeds them a
// ledger of messages, injects faults (SIGKILL, SIGSTOP past a lease,
// database restarts) on a seeded schedule, waits for quiet and checks
// what the receivers recorded against the guarantees of the product:
// nothing lost, one inbox row per (source, idempotency key), one outbox
// row per forwarded inbox row, first deliveries in key order (per key
// and destination where a route fans a row out to several), and every
// duplicate delivery following a fault.
//
// The scenarios are the tests of this package. `go test` runs a short
// run of each; `make chaos` runs them at full size (CHAOS_SIZE=full),
// replays a schedule with SEED, and writes docs/reliability.md from the
// results (cmd/chaosreport). CHAOS_LOG_DIR, when set, names a directory
// that receives the output of every process the run started.
package chaos
