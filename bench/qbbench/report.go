package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Result values of a table row.
const (
	resultPass  = "PASS"
	resultMiss  = "MISS"
	resultInfo  = "INFO"
	resultError = "ERROR"
)

// row is one line of the final table. Memory is filled by report.add.
type row struct {
	Scenario, Measured, Baseline, Ratio, Target, Result, Memory, Notes string
}

// report collects the rows and the errors of every scenario.
type report struct {
	rows []row
	errs []error
	// mem is the peak resident memory per binary of the measurement the
	// rows being added come from (see add).
	mem map[string]int64
	// shares says, per scenario run, how the machine's CPU time divided
	// while it ran (see machineShare), in the order of the scenarios.
	shares []string
}

// scenarioShare records how the machine's CPU time divided while the
// named scenario ran; an empty share (no /proc/stat) is not recorded.
func (r *report) scenarioShare(scenario, share string) {
	if share != "" {
		r.shares = append(r.shares, scenario+": "+share)
	}
}

// writeShares lists the scenarios' shares of the machine below a table.
func (r *report) writeShares(w io.Writer) {
	if len(r.shares) == 0 {
		return
	}
	fmt.Fprintln(w, "\nThe machine's CPU time while each scenario ran:")
	for _, s := range r.shares {
		fmt.Fprintf(w, "- %s\n", s)
	}
}

// add appends a row with the peak resident memory of the binaries
// stopped since the previous row. Rows added one after the other with no
// binary stopped in between come from the same measurement (a ratio row
// and its INFO companions), so they repeat that measurement's peaks.
func (r *report) add(x row) {
	if got := rssPeaks.take(); got != nil {
		r.mem = got
	}
	x.Memory = formatPeaks(r.mem)
	r.rows = append(r.rows, x)
}

// newScenario forgets the peaks of the previous scenario, so that a row
// measured in-process does not show the memory of binaries it never ran.
func (r *report) newScenario() {
	rssPeaks.take()
	r.mem = nil
}

// fail records a scenario that could not be measured.
func (r *report) fail(scenario string, err error) {
	r.errs = append(r.errs, fmt.Errorf("%s: %w", scenario, err))
	msg := strings.SplitN(err.Error(), "\n", 2)[0]
	if len(msg) > 120 {
		msg = msg[:117] + "..."
	}
	r.add(row{Scenario: scenario, Result: resultError, Notes: msg})
}

// missed reports whether a row missed its target.
func (r *report) missed() bool {
	for _, x := range r.rows {
		if x.Result == resultMiss {
			return true
		}
	}
	return false
}

// verdict turns a comparison into PASS or MISS.
func verdict(ok bool) string {
	if ok {
		return resultPass
	}
	return resultMiss
}

// vsBaseline is a throughput compared with its baseline: PASS when
// measured/baseline reaches minShare.
func vsBaseline(scenario string, measured, baseline float64, unit, baseUnit string, minShare float64, notes string) row {
	share := 0.0
	if baseline > 0 {
		share = measured / baseline
	}
	return row{
		Scenario: scenario,
		Measured: rate(measured, unit),
		Baseline: rate(baseline, baseUnit),
		Ratio:    fmt.Sprintf("%.0f %%", share*100),
		Target:   fmt.Sprintf("≥ %.0f %% of baseline", minShare*100),
		Result:   verdict(share >= minShare),
		Notes:    notes,
	}
}

// atLeast is an absolute floor.
func atLeast(scenario string, measured float64, unit string, floor float64, notes string) row {
	return row{
		Scenario: scenario, Measured: rate(measured, unit), Baseline: "-", Ratio: "-",
		Target: "≥ " + rate(floor, unit), Result: verdict(measured >= floor), Notes: notes,
	}
}

// below is a latency ceiling in milliseconds.
func below(scenario string, measuredMs, ceilingMs float64, notes string) row {
	return row{
		Scenario: scenario, Measured: fmt.Sprintf("%.1f ms", measuredMs), Baseline: "-", Ratio: "-",
		Target: fmt.Sprintf("< %g ms", ceilingMs), Result: verdict(measuredMs < ceilingMs), Notes: notes,
	}
}

// rate formats a per-second figure with thousands separators.
func rate(v float64, unit string) string {
	return group(int64(v+0.5)) + " " + unit
}

func group(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + group(-n)
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// rates formats the per-run values of a note.
func rates(vs []float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = group(int64(v + 0.5))
	}
	return strings.Join(parts, ", ")
}

var header = row{"Scenario", "Measured", "Baseline", "Ratio", "Target", "Result", "Peak RSS", "Notes"}

func (x row) cells() []string {
	return []string{x.Scenario, x.Measured, x.Baseline, x.Ratio, x.Target, x.Result, x.Memory, x.Notes}
}

// text writes the table aligned for a terminal.
func (r *report) text(w io.Writer, m machine) {
	fmt.Fprintf(w, "\nQueueBox benchmark — %s\n\n", m.summary())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, x := range append([]row{header}, r.rows...) {
		fmt.Fprintln(tw, strings.Join(x.cells(), "\t"))
	}
	_ = tw.Flush()
	r.writeShares(w)
}

// markdown writes the same table as Markdown, ready for docs/performance.md.
func (r *report) markdown(w io.Writer, m machine) {
	fmt.Fprintf(w, "\n<!-- make bench output -->\n")
	fmt.Fprintf(w, "Machine: %s\n\n", m.summary())
	line := func(cells []string) {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line(header.cells())
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- | --- | ---: | --- |")
	for _, x := range r.rows {
		line(x.cells())
	}
	r.writeShares(w)
}
