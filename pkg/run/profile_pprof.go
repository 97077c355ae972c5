//go:build pprof

package run

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// startProfiling, in a build with -tags pprof only, records a CPU profile
// from the start of the process to its exit and writes an allocation
// profile at exit, both into the temporary directory
// (<name>-<pid>.cpu.pprof and <name>-<pid>.allocs.pprof). It serves no
// endpoint: a profiling build is made on purpose, for a benchmark, and the
// files are read with go tool pprof. The returned function stops the CPU
// profile and writes the allocation one; a failure is logged, never fatal.
func startProfiling(name string, log *slog.Logger) func() {
	base := filepath.Join(os.TempDir(), fmt.Sprintf("%s-%d", name, os.Getpid()))
	cpu, err := os.Create(base + ".cpu.pprof")
	if err != nil {
		log.Warn("profiling build: no CPU profile", "err", err)
		return func() {}
	}
	if err := pprof.StartCPUProfile(cpu); err != nil {
		log.Warn("profiling build: no CPU profile", "err", err)
		_ = cpu.Close()
		return func() {}
	}
	log.Warn("profiling build: writing profiles at exit", "cpu", cpu.Name(), "allocs", base+".allocs.pprof")
	return func() {
		pprof.StopCPUProfile()
		_ = cpu.Close()
		runtime.GC() // the allocation profile counts up to the last GC
		f, err := os.Create(base + ".allocs.pprof")
		if err != nil {
			log.Warn("profiling build: no allocation profile", "err", err)
			return
		}
		defer f.Close()
		if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
			log.Warn("profiling build: no allocation profile", "err", err)
		}
	}
}
