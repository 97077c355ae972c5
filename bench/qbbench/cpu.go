package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// selfCPU returns the user plus system CPU time this process used so far.
// Read around a phase in which the binary under test runs, it is the CPU
// of the load side (the receiver or the ingest clients, plus this
// process's light polling of the database), which competes with the
// binary for the machine's cores.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadSide names the load side in the notes: lean or net/http.
func (b *bench) loadSide() string {
	if b.o.httpStdlib {
		return "net/http"
	}
	return "lean"
}

// machineTicks is a reading of the machine-wide CPU counters of
// /proc/stat: idle (idle + iowait) and total ticks of every core.
type machineTicks struct{ idle, total uint64 }

// readMachineTicks reads /proc/stat; it returns zero where the file is
// missing or unreadable, and idleShare then reports 0.
func readMachineTicks() machineTicks {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTicks{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return machineTicks{}
	}
	var t machineTicks
	for i, f := range fields[1:] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return machineTicks{}
		}
		t.total += v
		if i == 3 || i == 4 { // idle, iowait
			t.idle += v
		}
	}
	return t
}

// idleShare is the share of the machine's CPU time that stayed idle
// between two readings: near 0 means the cores were saturated.
func idleShare(before, after machineTicks) float64 {
	if after.total <= before.total {
		return 0
	}
	return float64(after.idle-before.idle) / float64(after.total-before.total)
}

// commandsCPU sums the CPU time of every running process whose command
// name is in names (postgres for the server and all its backends,
// beam.smp for RabbitMQ). Read before and after a phase, the difference
// is that phase's CPU of those processes, less whatever a process that
// ended during the phase had used: a lower bound.
func commandsCPU(names ...string) time.Duration {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var sum time.Duration
	for _, p := range paths {
		comm, cpu := statCPU(p)
		for _, n := range names {
			if comm == n {
				sum += cpu
			}
		}
	}
	return sum
}
