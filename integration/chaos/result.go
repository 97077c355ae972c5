package chaos

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"
)

// Result is the outcome of one scenario: one JSON line of the report and
// one row of its table. Every count but Messages, Faults and Duplicates
// must be zero.
type Result struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	Size     string `json:"size"`
	Messages int    `json:"messages"`
	// Destinations is the number of destinations each message went to,
	// where a route fanned it out (scenario 8); lost and the duplicate
	// share then count deliveries, one per message and destination.
	Destinations int `json:"destinations,omitempty"`
	// Faults counts the injected faults by kind.
	Faults map[string]int `json:"faults"`
	Lost   int            `json:"lost"`
	// InboxNotOne counts accepted (source, key) pairs without exactly one
	// inbox row; OutboxNotOne, forwarded inbox rows without exactly one
	// outbox row. Both are zero on the outbox-only scenarios.
	InboxNotOne  int `json:"inbox_rows_not_one"`
	OutboxNotOne int `json:"outbox_rows_not_one"`
	OutOfOrder   int `json:"first_deliveries_out_of_key_order"`
	Duplicates   int `json:"duplicates"`
	// DuplicatesAfter counts the duplicates by the kind of fault each
	// follows; Unexplained, the duplicates that follow no fault.
	DuplicatesAfter map[string]int `json:"duplicates_after"`
	Unexplained     int            `json:"duplicates_after_no_fault"`
	// Late counts first deliveries after the scenario's delivery bound
	// (scenario 7 only; zero elsewhere).
	Late int `json:"late_deliveries,omitempty"`
	// BrokerReordered counts the inbox rows the first broker source stored
	// behind a later message of their key (scenario 3): the broker's
	// redelivery order, reported, not a broken guarantee (Ledger.RankBy).
	BrokerReordered int `json:"stored_out_of_broker_order,omitempty"`
	// WrongMessageID counts 2xx deliveries whose X-Message-Id is not the
	// id of the row the application wrote (scenario 8 only; zero
	// elsewhere).
	WrongMessageID int     `json:"deliveries_with_another_message_id,omitempty"`
	Seconds        float64 `json:"seconds"`
	// Commit is the commit the scenario ran on (with -dirty when the
	// worktree had changes), Date when it finished (UTC): a results file
	// may hold the rows of several runs.
	Commit string `json:"commit,omitempty"`
	Date   string `json:"date,omitempty"`
}

// DateFormat is the layout of Result.Date.
const DateFormat = "2006-01-02 15:04 MST"

// DuplicateShare is the share of deliveries that were duplicates: of
// the messages, or of the messages times their destinations in a
// fan-out.
func (r Result) DuplicateShare() float64 {
	if r.Messages == 0 {
		return 0
	}
	return float64(r.Duplicates) / float64(r.Messages*max(1, r.Destinations))
}

// Failed lists the broken guarantees, empty when the scenario passed.
func (r Result) Failed() []string {
	var out []string
	for name, n := range map[string]int{"lost": r.Lost, "inbox rows not one": r.InboxNotOne,
		"outbox rows not one": r.OutboxNotOne, "out of key order": r.OutOfOrder,
		"duplicates after no fault": r.Unexplained, "delivered after the bound": r.Late,
		"deliveries with another message id": r.WrongMessageID} {
		if n != 0 {
			out = append(out, fmt.Sprintf("%s: %d", name, n))
		}
	}
	sort.Strings(out)
	return out
}

// TableHeader is the header of the table that Row fills.
const TableHeader = "| scenario | size | messages | faults | lost | inbox rows ≠ 1 | outbox rows ≠ 1 | out of key order | broker reordered | duplicates (share) | duplicates after | after no fault | seconds | seed |\n" +
	"| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: |"

// Row is the result as a Markdown table row.
func (r Result) Row() string {
	return fmt.Sprintf("| %s | %s | %d | %s | %d | %d | %d | %d | %d | %d (%.3f %%) | %s | %d | %.0f | %d |",
		r.Scenario, r.Size, r.Messages, kinds(r.Faults), r.Lost, r.InboxNotOne, r.OutboxNotOne, r.OutOfOrder,
		r.BrokerReordered, r.Duplicates, 100*r.DuplicateShare(), kinds(r.DuplicatesAfter), r.Unexplained, r.Seconds, r.Seed)
}

func kinds(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for k, n := range m {
		parts = append(parts, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// Report logs the JSON line and the table row of r (dated now, and with
// the current commit unless r names the one it started on), appends the
// line to the file CHAOS_RESULTS names (when set), and fails the test for
// every broken guarantee.
func Report(t testing.TB, r Result, started time.Time) {
	t.Helper()
	r.Seconds = time.Since(started).Seconds()
	r.Date = time.Now().UTC().Format(DateFormat)
	if r.Commit == "" {
		r.Commit = Commit()
	}
	line, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("chaos result: %s", line)
	t.Logf("\n%s\n%s", TableHeader, r.Row())
	if path := os.Getenv("CHAOS_RESULTS"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		_, err = fmt.Fprintf(f, "%s\n", line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range r.Failed() {
		t.Errorf("%s (seed %d): %s", r.Scenario, r.Seed, f)
	}
}

// Commit is CHAOS_COMMIT, or the short hash of the checkout the suite runs
// in, with -dirty when tracked files changed; empty outside a checkout.
func Commit() string {
	if c := os.Getenv("CHAOS_COMMIT"); c != "" {
		return c
	}
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	commit := strings.TrimSpace(string(out))
	if changes, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(changes) > 0 {
		commit += "-dirty"
	}
	return commit
}
