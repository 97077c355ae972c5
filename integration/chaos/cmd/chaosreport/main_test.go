package main

import (
	"strings"
	"testing"

	"github.com/alternayte/queuebox/integration/chaos"
)

// TestPageNamesEachRowsCommitAndDate: a results file that gathers the rows
// of several runs gives each row its own commit and date, and the header
// says the rows ran on several commits; an older line without a commit
// takes the -commit flag, without a date "unknown".
func TestPageNamesEachRowsCommitAndDate(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rows     []chaos.Result
		header   string
		rowEnds  []string
		notInRow string
	}{
		{
			name: "one run",
			rows: []chaos.Result{
				{Scenario: "1 outbox path", Size: "full", Commit: "aaa1111", Date: "2026-12-01 10:00 UTC"},
				{Scenario: "2 inbox path", Size: "full", Commit: "aaa1111", Date: "2026-12-01 11:00 UTC"},
			},
			header:  "- Commit: aaa1111\n",
			rowEnds: []string{" aaa1111 | 2026-12-01 10:00 UTC |", " aaa1111 | 2026-12-01 11:00 UTC |"},
		},
		{
			name: "two runs on two commits, and an older line",
			rows: []chaos.Result{
				{Scenario: "1 outbox path", Size: "full", Commit: "aaa1111", Date: "2026-12-01 10:00 UTC"},
				{Scenario: "3 brokers", Size: "custom", Commit: "bbb2222-dirty", Date: "2026-12-02 07:00 UTC"},
				{Scenario: "4 PostgreSQL restart", Size: "full"},
			},
			header: "- Commits: the rows ran on several, aaa1111 (1 row), bbb2222-dirty (1 row), ccc3333 (1 row); see each row\n",
			rowEnds: []string{" aaa1111 | 2026-12-01 10:00 UTC |", " bbb2222-dirty | 2026-12-02 07:00 UTC |",
				" ccc3333 | unknown |"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := page(tc.rows, "ccc3333", "make chaos", "2026-12-02 08:00 UTC")
			if !strings.Contains(got, tc.header) {
				t.Fatalf("no header line %q in\n%s", tc.header, got)
			}
			var rows []string
			for _, line := range strings.Split(got, "\n") {
				if strings.HasPrefix(line, "| ") && !strings.HasPrefix(line, "| scenario") && !strings.HasPrefix(line, "| ---") {
					rows = append(rows, line)
				}
			}
			if len(rows) != len(tc.rowEnds) {
				t.Fatalf("rows %q, want %d", rows, len(tc.rowEnds))
			}
			for i, end := range tc.rowEnds {
				if !strings.HasSuffix(rows[i], end) {
					t.Errorf("row %d = %q, want it to end in %q", i, rows[i], end)
				}
			}
			header := strings.Split(got[strings.Index(got, "| scenario"):], "\n")
			if cols, sep := strings.Count(header[0], "|"), strings.Count(header[1], "|"); cols != sep || cols != strings.Count(rows[0], "|") {
				t.Errorf("header %d columns, separator %d, row %d", cols, sep, strings.Count(rows[0], "|"))
			}
		})
	}
}
