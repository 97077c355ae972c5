package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"
)

// machine records the conditions a run was measured under.
type machine struct {
	CPUs          int
	CPUModel      string
	GoVersion     string
	Postgres      string
	Date          time.Time
	LoadBefore    string
	LoadAfter     string
	TotalDuration time.Duration
	// TicksBefore is the machine's CPU counters when the run began, and
	// Share how the machine's CPU time divided over the whole run.
	TicksBefore machineTicks
	Share       string
}

func readMachine(ctx context.Context, srv *server) machine {
	m := machine{
		CPUs:        runtime.NumCPU(),
		CPUModel:    cpuModel(),
		GoVersion:   runtime.Version(),
		Date:        time.Now(),
		LoadBefore:  loadAverage(),
		TicksBefore: readMachineTicks(),
	}
	v, err := srv.version(ctx)
	if err != nil {
		v = "unknown (" + err.Error() + ")"
	}
	m.Postgres = v
	return m
}

// summary is the one-line description printed above both tables.
func (m machine) summary() string {
	s := fmt.Sprintf("nproc %d (%s), %s, PostgreSQL %s, %s, load average %s before",
		m.CPUs, m.CPUModel, m.GoVersion, m.Postgres, m.Date.UTC().Format("2006-01-02 15:04 UTC"), m.LoadBefore)
	if m.LoadAfter != "" {
		s += fmt.Sprintf(" / %s after", m.LoadAfter)
	}
	if m.TotalDuration > 0 {
		s += fmt.Sprintf(", took %s", m.TotalDuration.Round(time.Second))
	}
	if m.Share != "" {
		s += "; over the run " + m.Share
	}
	return s
}

// loadAverage returns the 1, 5 and 15 minute load averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return runtime.GOARCH
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return runtime.GOARCH
}
