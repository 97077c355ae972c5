package main

import (
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
