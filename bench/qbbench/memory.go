package main

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
)

// rssPeaks collects the peak resident memory of every binary this process
// started, read as each one is stopped, so that the report can print it
// beside the rows measured with it.
var rssPeaks = &peakLog{}

// peakLog holds, per binary name, the largest peak resident set (KiB) of
// the processes that exited since the last take.
type peakLog struct {
	mu  sync.Mutex
	kib map[string]int64
}

// record notes the peak of one process about to be stopped.
func (l *peakLog) record(name string, kib int64) {
	if kib <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.kib == nil {
		l.kib = map[string]int64{}
	}
	l.kib[name] = max(l.kib[name], kib)
}

// take returns the peaks recorded since the previous take and forgets
// them; nil when no process was stopped in between.
func (l *peakLog) take() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.kib
	l.kib = nil
	return out
}

// peakRSSKiB is the peak resident set of a running process in KiB, its
// VmHWM in /proc/<pid>/status; 0 where it cannot be read. The rusage of
// a child after its exit is no substitute: Go starts a child with
// CLONE_VM, and Linux carries the parent's high-water mark through the
// exec, so ru_maxrss reports at least the bench's own peak.
func peakRSSKiB(p *proc) int64 { return procStatusKiB(p, "VmHWM") }

// procStatusKiB reads a kB field of /proc/<pid>/status; 0 where it
// cannot.
func procStatusKiB(p *proc, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		return 0
	}
	return statusKiB(string(b), field)
}

// formatPeaks prints the peaks of a row: one MiB figure per binary, in
// name order, the queuebox- prefix dropped ("deliver 31, relay 22 MiB");
// "-" for a row measured without any binary.
func formatPeaks(kib map[string]int64) string {
	if len(kib) == 0 {
		return "-"
	}
	names := make([]string, 0, len(kib))
	for n := range kib {
		names = append(names, n)
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		parts[i] = fmt.Sprintf("%s %.0f", strings.TrimPrefix(n, "queuebox-"), float64(kib[n])/1024)
	}
	return strings.Join(parts, ", ") + " MiB"
}
