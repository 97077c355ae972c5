package integration

import (
	"io/fs"
	"strconv"
	"strings"
	"testing"

	"github.com/alternayte/queuebox/migrations"
)

// latestMigration is the highest version among the bundled PostgreSQL
// migrations, so the tests that count or extend the history follow a new
// migration without an edit.
func latestMigration(t *testing.T) int {
	t.Helper()
	names, err := fs.Glob(migrations.Files, "postgres/V*__*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("list the bundled migrations: %v (%d files)", err, len(names))
	}
	latest := 0
	for _, name := range names {
		v, err := strconv.Atoi(strings.TrimPrefix(strings.SplitN(name, "__", 2)[0], "postgres/V"))
		if err != nil {
			t.Fatalf("migration file %s: %v", name, err)
		}
		latest = max(latest, v)
	}
	if latest != len(names) {
		t.Fatalf("the bundled migrations are not V1…V%d without a gap: %d files", latest, len(names))
	}
	return latest
}
