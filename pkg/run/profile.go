//go:build !pprof

package run

import "log/slog"

// startProfiling does nothing in a normal build: a shipped binary has no
// profiler and no endpoint that serves one. A build with -tags pprof gets
// the file profiles of profile_pprof.go instead.
func startProfiling(string, *slog.Logger) func() { return func() {} }
