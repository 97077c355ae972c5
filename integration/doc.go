// Package integration holds the end-to-end tests of QueueBox: they start
// the built binaries against the local PostgreSQL, post webhooks, insert
// rows and read the tables, as an operator would. QUEUEBOX_BIN_DIR names
// the directory of the binaries (make test sets it); without it the tests
// build them once into a temporary directory.
package integration
