package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/alternayte/queuebox/pkg/pgserver"
)

// soakSharedPG keeps the soak on -pg. By default it runs on a private
// server with PostgreSQL's default settings, since the claim's latency
// over half an hour depends on autovacuum, which a shared development
// server may have turned off (this machine's has).
var soakSharedPG = flag.Bool("soak-shared-pg", false,
	"soak: measure on the -pg server instead of a private PostgreSQL server with default settings (autovacuum on, fsync on)")

// privateSettings leave PostgreSQL's defaults (autovacuum, fsync,
// synchronous_commit) as they are and give room for the two binaries'
// pools and the bench's own connections.
var privateSettings = []string{"max_connections=100"}

// startPrivatePG starts a private PostgreSQL server from the machine's
// binaries in a temporary folder and returns its maintenance URL and the
// function that stops it and removes the folder. The server's log stays
// in the folder until then; an error names it.
func startPrivatePG(ctx context.Context) (string, func(), error) {
	bin, err := pgserver.FindBin(os.Getenv("QUEUEBOX_PG_BIN"), "QUEUEBOX_PG_BIN")
	if err != nil {
		return "", nil, err
	}
	cred, err := pgserver.Unprivileged()
	if err != nil {
		return "", nil, err
	}
	root, err := os.MkdirTemp("", "qbbench-pg-")
	if err != nil {
		return "", nil, err
	}
	if err := pgserver.Chown(root, cred); err != nil {
		return "", nil, errors.Join(err, os.RemoveAll(root))
	}
	log, err := os.Create(filepath.Join(root, "postgres.log"))
	if err != nil {
		return "", nil, errors.Join(err, os.RemoveAll(root))
	}
	s := &pgserver.Server{Bin: bin, Dir: filepath.Join(root, "data"), Cred: cred, Settings: privateSettings}
	stop := func() {
		s.Stop()
		_ = log.Close()
		_ = os.RemoveAll(root)
	}
	if err := s.Prepare(log); err != nil {
		stop()
		return "", nil, err
	}
	if err := s.Start(ctx, log); err != nil {
		stop()
		return "", nil, fmt.Errorf("private PostgreSQL server: %w", err)
	}
	return s.URL("postgres"), stop, nil
}
