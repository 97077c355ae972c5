package doctor

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// migrationChecks judges the history against the bundled files.
func migrationChecks(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	status, err := d.Migrations(ctx)
	if err != nil {
		return []Check{unread("migrations", err)}
	}
	by := map[queuebox.MigrationState][]string{}
	latest := 0
	for _, s := range status {
		by[s.State] = append(by[s.State], fmt.Sprintf("V%d", s.Version))
		if s.State != queuebox.MigrationPending {
			latest = max(latest, s.Version)
		}
	}
	var checks []Check
	if failed := by[queuebox.MigrationFailed]; len(failed) > 0 {
		checks = append(checks, Check{Name: "migrations", Status: Fail,
			Detail: "marked failed in flyway_schema_history: " + strings.Join(failed, ", "),
			Fix:    "repair the schema by hand, delete the failed history row, then run queuebox migrate"})
	}
	if pending := by[queuebox.MigrationPending]; len(pending) > 0 {
		c := Check{Name: "migrations", Status: Fail, Detail: "pending: " + strings.Join(pending, ", "),
			Fix: "run queuebox migrate (database.migrate is false, so no role applies them)"}
		if opts.Migrate {
			c.Status, c.Fix = Warn, "run queuebox migrate, or let the next start apply them (database.migrate is true)"
		}
		checks = append(checks, c)
	}
	if changed := by[queuebox.MigrationMismatch]; len(changed) > 0 {
		checks = append(checks, Check{Name: "migrations", Status: Warn,
			Detail: "applied with another checksum than the bundled file: " + strings.Join(changed, ", "),
			Fix:    "compare the applied schema with the bundled file (queuebox migrate status); someone edited one of them"})
	}
	if len(checks) > 0 {
		return checks
	}
	detail := fmt.Sprintf("up to date at V%d", latest)
	if newer := by[queuebox.MigrationUnknown]; len(newer) > 0 {
		detail += "; a newer QueueBox also applied " + strings.Join(newer, ", ")
	}
	return []Check{{Name: "migrations", Status: OK, Detail: detail}}
}

// indexChecks warns for each missing index of the relay claim.
func indexChecks(ctx context.Context, d queuebox.Diagnostics) []Check {
	missing, err := d.MissingIndexes(ctx)
	if err != nil {
		return []Check{unread("indexes", err)}
	}
	if len(missing) == 0 {
		return []Check{{Name: "indexes", Status: OK, Detail: "the V12 relay claim indexes are present"}}
	}
	var checks []Check
	for _, m := range missing {
		// The store's warning reads "<problem>. Add it: <statement>".
		detail, fix, _ := strings.Cut(m, " Add it: ")
		checks = append(checks, Check{Name: "indexes", Status: Warn, Detail: strings.TrimSuffix(detail, "."), Fix: fix})
	}
	return checks
}

// captureChecks judges wal_level, the slot and its lag when logical
// capture is on.
func captureChecks(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	if !opts.Capture {
		return []Check{{Name: "capture", Status: Skip, Detail: "logical capture is off (outbox.capture.mode is not postgres-logical)"}}
	}
	c, err := d.Capture(ctx, opts.Slot)
	if err != nil {
		return []Check{unread("capture", err)}
	}
	checks := []Check{{Name: "wal_level", Status: OK, Detail: "wal_level is logical"}}
	if c.WALLevel != "logical" {
		checks[0] = Check{Name: "wal_level", Status: Fail, Detail: "wal_level is " + c.WALLevel + ", capture needs logical",
			Fix: "ALTER SYSTEM SET wal_level = logical; then restart PostgreSQL"}
	}
	switch {
	case !c.SlotExists:
		checks = append(checks, Check{Name: "slot", Status: Warn, Detail: fmt.Sprintf("replication slot %q does not exist", opts.Slot),
			Fix: "start the capture role (it creates the slot), or correct outbox.capture.slot"})
	case c.RetainedBytes > opts.SlotLag:
		checks = append(checks, Check{Name: "slot", Status: Warn,
			Detail: fmt.Sprintf("slot %q holds back %d MiB of write-ahead log (over %d MiB)", opts.Slot, c.RetainedBytes>>20, opts.SlotLag>>20),
			Fix:    "check that the capture role runs and reads the slot; drop the slot if capture is gone for good"})
	case !c.SlotActive:
		checks = append(checks, Check{Name: "slot", Status: Warn,
			Detail: fmt.Sprintf("slot %q is not read by any session (holds %d MiB)", opts.Slot, c.RetainedBytes>>20),
			Fix:    "start the capture role; an unread slot keeps write-ahead log until the disk fills"})
	default:
		checks = append(checks, Check{Name: "slot", Status: OK,
			Detail: fmt.Sprintf("slot %q is read, lag %d MiB", opts.Slot, c.RetainedBytes>>20)})
	}
	return checks
}

// backlogChecks judges the oldest pending row per destination and per
// source, and lists the dead rows per destination and per source. Topics
// are the senders' choice and unbounded, so the outbox's are folded into
// the destinations of the routes: one line per destination, not per topic.
func backlogChecks(ctx context.Context, d queuebox.Diagnostics, opts Options) []Check {
	b, err := d.Backlog(ctx)
	if err != nil {
		return []Check{unread("backlog", err)}
	}
	var checks []Check
	checks = append(checks, pendingChecks("pending destination", byDestination(b.PendingByTopic, opts.DestinationOf), opts.PendingAge,
		"read runbook scenarios 3 and 5: is the destination up, are the deliver replicas running?")...)
	checks = append(checks, pendingChecks("pending source", b.PendingBySource, opts.PendingAge,
		"read runbook scenario 7: a push backlog waits for the relay, a pull backlog for your workers")...)
	checks = append(checks, deadChecks("dead destination", byDestination(b.DeadByTopic, opts.DestinationOf), func(name string) string {
		if name == noRoute {
			return "queuebox dead list --state dead"
		}
		return "queuebox dead list --state dead --destination " + name
	})...)
	checks = append(checks, deadChecks("dead source", b.DeadBySource, func(name string) string {
		return "queuebox dead list --table inbox --source " + name
	})...)
	return checks
}

// noRoute names the topics no route matches.
const noRoute = "(no route)"

// byDestination folds the groups into destinations: a group routed to a
// destination counts there (each delivery of a fan-out under its own),
// one not routed yet under the first destination its topic's route names,
// and a topic no route matches is "(no route)".
func byDestination(topics []queuebox.Group, destinationOf func(string) string) []queuebox.Group {
	by := map[string]queuebox.Group{}
	for _, t := range topics {
		name := t.Destination
		if name == "" {
			name = destinationOf(t.Name)
		}
		if name == "" {
			name = noRoute
		}
		g := by[name]
		g.Name, g.Count, g.OldestAge = name, g.Count+t.Count, max(g.OldestAge, t.OldestAge)
		by[name] = g
	}
	out := make([]queuebox.Group, 0, len(by))
	for _, g := range by {
		out = append(out, g)
	}
	return out
}

// pendingChecks gives one check per group, oldest first, or one ok check
// when nothing is pending.
func pendingChecks(name string, groups []queuebox.Group, limit time.Duration, fix string) []Check {
	if len(groups) == 0 {
		return []Check{{Name: name, Status: OK, Detail: "nothing pending"}}
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].OldestAge > groups[j].OldestAge })
	checks := make([]Check, 0, len(groups))
	for _, g := range groups {
		c := Check{Name: name + " " + g.Name, Status: OK,
			Detail: fmt.Sprintf("%s pending, the oldest for %s", plural(g.Count, "row"), age(g.OldestAge))}
		if g.OldestAge > limit {
			c.Status, c.Fix = Warn, fix
			c.Detail += fmt.Sprintf(" (over %s)", age(limit))
		}
		checks = append(checks, c)
	}
	return checks
}

// deadChecks warns once per group that holds dead rows, most first, or
// gives one ok check when there are none.
func deadChecks(name string, groups []queuebox.Group, list func(name string) string) []Check {
	if len(groups) == 0 {
		return []Check{{Name: name, Status: OK, Detail: "no dead rows"}}
	}
	sort.Slice(groups, func(i, j int) bool { return groups[i].Count > groups[j].Count })
	checks := make([]Check, 0, len(groups))
	for _, g := range groups {
		checks = append(checks, Check{Name: name + " " + g.Name, Status: Warn,
			Detail: fmt.Sprintf("%s dead, the oldest created %s ago", plural(g.Count, "row"), age(g.OldestAge)),
			Fix:    "read the reasons (" + list(g.Name) + "), fix the cause, then replay or discard them"})
	}
	return checks
}
