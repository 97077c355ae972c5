package main

import (
	"fmt"
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
// /proc/stat, in clock ticks of every core: idle (idle + iowait), steal
// (the time the hypervisor gave the virtual CPUs to someone else) and
// total.
type machineTicks struct{ idle, steal, total uint64 }

// readMachineTicks reads /proc/stat; it returns zero where the file is
// missing or unreadable, and idleShare then reports 0.
func readMachineTicks() machineTicks {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return machineTicks{}
	}
	line, _, _ := strings.Cut(string(data), "\n")
	return parseMachineTicks(line)
}

// parseMachineTicks parses the aggregate "cpu" line of /proc/stat: user,
// nice, system, idle, iowait, irq, softirq and steal, then the guest
// times, which user and nice already hold (proc(5)) and which are
// therefore not added again. A line that is not the aggregate one, or
// that holds a field that is not a number, gives zero.
func parseMachineTicks(line string) machineTicks {
	fields := strings.Fields(line)
	if len(fields) < 5 || fields[0] != "cpu" {
		return machineTicks{}
	}
	var t machineTicks
	for i, f := range fields[1:min(len(fields), 9)] {
		v, err := strconv.ParseUint(f, 10, 64)
		if err != nil {
			return machineTicks{}
		}
		t.total += v
		switch i {
		case 3, 4: // idle, iowait
			t.idle += v
		case 7:
			t.steal += v
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

// machineShare describes how the machine's CPU time between two readings
// divided: busy, stolen by the hypervisor, and idle. Stolen time is the
// host's noise made visible: a run that lost a fifth of its CPU to other
// tenants is not comparable with one that had the cores to itself. It is
// "" when the readings are missing.
func machineShare(before, after machineTicks) string {
	if after.total <= before.total {
		return ""
	}
	total := float64(after.total - before.total)
	idle, steal := float64(after.idle-before.idle), float64(after.steal-before.steal)
	return fmt.Sprintf("CPU %.0f %% busy, %.0f %% stolen, %.0f %% idle",
		100*(total-idle-steal)/total, 100*steal/total, 100*idle/total)
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
