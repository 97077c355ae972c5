package main

import (
	"strings"
	"testing"
	"time"
)

func TestReportRowsCarryThePeaksOfTheirMeasurement(t *testing.T) {
	r := &report{}
	r.newScenario()
	rssPeaks.record("queuebox-deliver", 30*1024)
	rssPeaks.record("queuebox-deliver", 40*1024) // a second run: the larger peak counts
	rssPeaks.record("queuebox-ingest", 20*1024)
	r.add(row{Scenario: "ratio"})
	r.add(row{Scenario: "its INFO companion"})
	rssPeaks.record("queuebox-relay", 10*1024)
	r.add(row{Scenario: "next measurement"})
	r.newScenario()
	r.add(row{Scenario: "in-process"})
	want := []string{"deliver 40, ingest 20 MiB", "deliver 40, ingest 20 MiB", "relay 10 MiB", "-"}
	for i, x := range r.rows {
		if x.Memory != want[i] {
			t.Errorf("row %q: memory %q, want %q", x.Scenario, x.Memory, want[i])
		}
	}
}

func TestSerialRate(t *testing.T) {
	for _, tc := range []struct{ sql, raw, want float64 }{
		{1000, 1000, 500},
		{3000, 1500, 1000},
		{1000, 0, 0},
		{0, 1000, 0},
	} {
		if got := serialRate(tc.sql, tc.raw); got != tc.want {
			t.Errorf("serialRate(%v, %v) = %v, want %v", tc.sql, tc.raw, got, tc.want)
		}
	}
}

func TestCPUVsHTTP(t *testing.T) {
	runs := func(us ...int) []drain {
		var ds []drain
		for _, u := range us {
			ds = append(ds, drain{CPUPerRow: time.Duration(u) * time.Microsecond})
		}
		return ds
	}
	for _, tc := range []struct {
		name         string
		broker, http []drain
		result       string
		ratio        string
	}{
		{"same cost", runs(100, 90, 110), runs(100, 100, 100), resultPass, "1.00×"},
		{"at the limit", runs(150), runs(100), resultPass, "1.50×"},
		{"above it", runs(151, 200, 160), runs(100, 100, 100), resultMiss, "1.60×"},
		{"no reference", runs(100), nil, resultMiss, "-"},
	} {
		x := cpuVsHTTP("cpu", tc.broker, tc.http, brokerCPUShare)
		if x.Result != tc.result || x.Ratio != tc.ratio {
			t.Errorf("%s: %s %s, want %s %s", tc.name, x.Result, x.Ratio, tc.result, tc.ratio)
		}
	}
}

func TestReportListsEachScenariosShareOfTheMachine(t *testing.T) {
	r := &report{}
	r.scenarioShare("deliver", "CPU 80 % busy, 12 % stolen, 8 % idle")
	r.scenarioShare("ingest", "") // no /proc/stat: nothing to say
	var text, md strings.Builder
	r.text(&text, machine{Share: "CPU 75 % busy, 10 % stolen, 15 % idle"})
	r.markdown(&md, machine{})
	for _, out := range []string{text.String(), md.String()} {
		if !strings.Contains(out, "\n- deliver: CPU 80 % busy, 12 % stolen, 8 % idle\n") {
			t.Fatalf("no share of deliver in:\n%s", out)
		}
		if strings.Contains(out, "- ingest") {
			t.Fatalf("an empty share is listed:\n%s", out)
		}
	}
	if !strings.Contains(text.String(), "; over the run CPU 75 % busy, 10 % stolen, 15 % idle") {
		t.Fatalf("the run's share is not in the summary:\n%s", text.String())
	}
}
