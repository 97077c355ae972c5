// Command sqlsync copies the SQL contract of the pull clients,
// examples/pull/sql/*.sql, into clients/go/sql, where the Go library can
// embed it: a module cannot embed files outside its own directory, and a
// published module holds only its own files. examples/pull/sql is the one
// copy that people edit; go generate (in clients/go) writes this copy, and
// TestEmbeddedSQLMatchesTheContract fails when the two differ.
//
// Usage: sqlsync <from> <to>
package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: sqlsync <from> <to>")
		os.Exit(2)
	}
	if err := sync(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "sqlsync:", err)
		os.Exit(1)
	}
}

func sync(from, to string) error {
	want, err := filepath.Glob(filepath.Join(from, "*.sql"))
	if err != nil {
		return err
	}
	if len(want) == 0 {
		return fmt.Errorf("no .sql files in %s", from)
	}
	have, err := filepath.Glob(filepath.Join(to, "*.sql"))
	if err != nil {
		return err
	}
	keep := map[string]bool{}
	for _, src := range want {
		text, err := os.ReadFile(src)
		if err != nil {
			return err
		}
		name := filepath.Base(src)
		keep[name] = true
		if err := os.WriteFile(filepath.Join(to, name), text, 0o644); err != nil {
			return err
		}
	}
	// A statement removed from the contract leaves no stale copy behind.
	for _, dst := range have {
		if !keep[filepath.Base(dst)] && strings.HasSuffix(dst, ".sql") {
			if err := os.Remove(dst); err != nil {
				return err
			}
		}
	}
	return nil
}
