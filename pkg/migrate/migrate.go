// Package migrate reads the bundled migration files and decides which of
// them a database still needs. The dialect stores apply them; this package
// only knows names, versions, checksums and the history rules, so both
// dialects share one set of rules.
//
// The history table keeps Flyway's name and columns
// (flyway_schema_history), so a database that an earlier Flyway-based
// QueueBox migrated carries on with this one, and the reverse.
package migrate

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"hash/crc32"
	"io/fs"
	"log/slog"
	"path"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/alternayte/queuebox/migrations"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// HistoryTable is the name of the migration history table.
const HistoryTable = "flyway_schema_history"

// Migration is one versioned SQL file.
type Migration struct {
	Version     int
	Description string
	Script      string
	SQL         string
	Checksum    int32
}

var fileName = regexp.MustCompile(`^V([0-9]+)__([A-Za-z0-9_]+)\.sql$`)

// Load returns the migrations of a dialect directory ("postgres" or
// "sqlserver") in version order.
func Load(dialect string) ([]Migration, error) {
	return LoadFS(migrations.Files, dialect)
}

// LoadFS reads migrations from any file system; tests use it with fakes.
func LoadFS(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("read migrations %s: %w", dir, err)
	}
	var out []Migration
	seen := map[int]string{}
	for _, e := range entries {
		m := fileName.FindStringSubmatch(e.Name())
		if m == nil {
			return nil, fmt.Errorf("migration file %s/%s does not follow V<version>__<description>.sql", dir, e.Name())
		}
		version, err := strconv.Atoi(m[1])
		if err != nil {
			return nil, fmt.Errorf("migration file %s/%s: version %s: %w", dir, e.Name(), m[1], err)
		}
		if other, dup := seen[version]; dup {
			return nil, fmt.Errorf("migrations %s and %s share version %d", other, e.Name(), version)
		}
		seen[version] = e.Name()
		body, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("read migration %s: %w", e.Name(), err)
		}
		out = append(out, Migration{
			Version:     version,
			Description: strings.ReplaceAll(m[2], "_", " "),
			Script:      e.Name(),
			SQL:         string(body),
			Checksum:    Checksum(body),
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out, nil
}

// Checksum computes the CRC32 of the file line by line without line
// endings, the way Flyway does, so checksums match across both tools.
func Checksum(body []byte) int32 {
	body = bytes.TrimPrefix(body, []byte("\xef\xbb\xbf"))
	h := crc32.NewIEEE()
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		_, _ = h.Write(bytes.TrimSuffix(sc.Bytes(), []byte("\r")))
	}
	return int32(h.Sum32())
}

// Applied is one row of the history table.
type Applied struct {
	Version  int
	Script   string
	Checksum *int32
	Success  bool
}

// Plan compares the history with the bundled files and returns the
// migrations still to apply, in order, and warnings to log. It refuses a
// history with a failed migration and a history that skipped a bundled
// version below the newest applied one.
//
// A version that this build does not know comes from a newer QueueBox. It
// is a warning, not a refusal: the compatibility policy lets a replica of
// the previous minor release keep running, and restart, against the schema
// of the current one while a rolling upgrade is under way.
func Plan(known []Migration, history []Applied) ([]Migration, []string, error) {
	byVersion := map[int]Migration{}
	for _, m := range known {
		byVersion[m.Version] = m
	}
	done := map[int]bool{}
	var warnings []string
	for _, h := range history {
		if !h.Success {
			return nil, nil, fmt.Errorf("migration V%d (%s) failed earlier and is marked failed in %s: repair the schema by hand and delete that history row before starting again", h.Version, h.Script, HistoryTable)
		}
		m, ok := byVersion[h.Version]
		if !ok {
			warnings = append(warnings, fmt.Sprintf("the database schema has migration V%d (%s), which this QueueBox does not know (it knows V1 to V%d): a newer QueueBox migrated it; this one runs against it unchanged", h.Version, h.Script, highest(known)))
			done[h.Version] = true
			continue
		}
		if h.Checksum != nil && *h.Checksum != m.Checksum {
			warnings = append(warnings, fmt.Sprintf("migration V%d (%s) was applied with checksum %d, the bundled file has %d", h.Version, h.Script, *h.Checksum, m.Checksum))
		}
		done[h.Version] = true
	}
	latest := 0
	for v := range done {
		latest = max(latest, v)
	}
	var pending []Migration
	for _, m := range known {
		if done[m.Version] {
			continue
		}
		if m.Version < latest {
			// Applying it now would run an older change after a newer one,
			// which the newer one may not expect.
			return nil, nil, fmt.Errorf("migration V%d (%s) was never applied, but V%d was: the history is out of order; apply V%d by hand and record it in %s, or restore the database", m.Version, m.Script, latest, m.Version, HistoryTable)
		}
		pending = append(pending, m)
	}
	return pending, warnings, nil
}

func highest(ms []Migration) int {
	if len(ms) == 0 {
		return 0
	}
	return ms[len(ms)-1].Version
}

// SplitBatches splits a SQL Server script on lines that hold only GO, the
// batch separator of sqlcmd and Flyway. Empty batches are dropped.
func SplitBatches(script string) []string {
	var batches []string
	var cur strings.Builder
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			batches = append(batches, s)
		}
		cur.Reset()
	}
	for _, line := range strings.Split(script, "\n") {
		if strings.EqualFold(strings.TrimSpace(line), "GO") {
			flush()
			continue
		}
		cur.WriteString(line)
		cur.WriteString("\n")
	}
	flush()
	return batches
}

// Runner is what Apply needs of a dialect: its history and a way to apply
// one migration with its history row in one transaction.
type Runner interface {
	// History reads the history table and the highest installed_rank,
	// counting rows without a version.
	History(ctx context.Context) ([]Applied, int, error)
	// Apply applies m and records it under rank.
	Apply(ctx context.Context, m Migration, rank int) error
}

// Apply plans known against the runner's history, logs the warnings and
// applies what is pending in order, each under the next rank. It returns
// the versions it applied, also those before a failure.
func Apply(ctx context.Context, r Runner, known []Migration, log *slog.Logger) ([]int, error) {
	history, rank, err := r.History(ctx)
	if err != nil {
		return nil, err
	}
	pending, warnings, err := Plan(known, history)
	if err != nil {
		return nil, err
	}
	for _, w := range warnings {
		log.Warn("migration history", "detail", w)
	}
	var applied []int
	for _, m := range pending {
		rank++
		if err := r.Apply(ctx, m, rank); err != nil {
			return applied, err
		}
		log.Info("applied migration", "version", m.Version, "script", m.Script)
		applied = append(applied, m.Version)
	}
	return applied, nil
}

// Status compares the history with the bundled files under the rules of
// Plan and returns one entry per version of either, in version order: what
// `queuebox migrate status` prints. It never refuses a history: a failed
// or skipped version is an entry, not an error.
func Status(known []Migration, history []Applied) []queuebox.MigrationStatus {
	byVersion := map[int]queuebox.MigrationStatus{}
	for _, m := range known {
		byVersion[m.Version] = queuebox.MigrationStatus{Version: m.Version, Script: m.Script,
			State: queuebox.MigrationPending, FileChecksum: &m.Checksum}
	}
	for _, h := range history {
		s, bundled := byVersion[h.Version]
		if !bundled {
			s = queuebox.MigrationStatus{Version: h.Version, Script: h.Script, State: queuebox.MigrationUnknown}
		}
		s.AppliedChecksum = h.Checksum
		switch {
		case !h.Success:
			s.State = queuebox.MigrationFailed
		case !bundled:
		case h.Checksum != nil && *h.Checksum != *s.FileChecksum:
			s.State = queuebox.MigrationMismatch
		default:
			s.State = queuebox.MigrationApplied
		}
		byVersion[h.Version] = s
	}
	out := make([]queuebox.MigrationStatus, 0, len(byVersion))
	for _, s := range byVersion {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	return out
}
