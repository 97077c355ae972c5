package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// pools and the bench's own connections; -soak-pg-set adds to them.
var privateSettings = []string{"max_connections=100"}

// soakPGSettings are the -soak-pg-set settings, in the order given.
var soakPGSettings []string

func init() {
	flag.Func("soak-pg-set", "soak: a setting name=value of the private PostgreSQL server, such as shared_buffers=1GB "+
		"(repeat the flag for more); the defaults stand otherwise", func(v string) error {
		name, value, ok := strings.Cut(v, "=")
		if !ok || strings.TrimSpace(name) == "" || strings.TrimSpace(value) == "" {
			return fmt.Errorf("want name=value, got %q", v)
		}
		soakPGSettings = append(soakPGSettings, strings.TrimSpace(name)+"="+strings.TrimSpace(value))
		return nil
	})
}

// privateSettingsDescribed names the settings of the private server that
// differ from PostgreSQL's defaults, for the soak's log and its record.
func privateSettingsDescribed() string {
	if len(soakPGSettings) == 0 {
		return "default settings"
	}
	return "default settings but " + strings.Join(soakPGSettings, ", ")
}

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
	settings := append(slices.Clip(privateSettings), soakPGSettings...)
	s := &pgserver.Server{Bin: bin, Dir: filepath.Join(root, "data"), Cred: cred, Settings: settings}
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
