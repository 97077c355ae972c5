// Package capture is the dialect-neutral part of change data capture in
// queuebox-capture: the settings and their fingerprint, the state
// directory, the start-time reconciliation and its faults, the restart
// policy with its health status, and the metrics. The connectors that read
// a database's log are its sub-packages, one per dialect, side by side:
// capture/postgres (postgres-logical) and capture/sqlserver
// (sqlserver-cdc). This package imports no database driver.
//
// A connector delivers nothing itself; it wakes delivery when an outbox
// insert commits. SQL stays the only source of truth, so a lost wake-up
// costs latency, never a message.
package capture
