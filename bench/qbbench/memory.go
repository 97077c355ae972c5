package main

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
)

// rssPeaks collects the peak resident memory of every binary this process
// started, as each one exits, so that the report can print it beside the
// rows measured with it.
var rssPeaks = &peakLog{}

// peakLog holds, per binary name, the largest peak resident set (KiB) of
// the processes that exited since the last take.
type peakLog struct {
	mu  sync.Mutex
	kib map[string]int64
}

// record notes the peak of one process that exited.
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
// them; nil when no process exited in between.
func (l *peakLog) take() map[string]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.kib
	l.kib = nil
	return out
}

// maxRSSKiB is the peak resident set of an exited child in KiB, from the
// rusage that wait4 returned for it (ru_maxrss, in kilobytes on Linux);
// 0 where the platform does not say.
func maxRSSKiB(cmd *exec.Cmd) int64 {
	if cmd.ProcessState == nil {
		return 0
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	return ru.Maxrss
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
