package run

import (
	"io"
	"log/slog"
	"strings"

	"github.com/alternayte/queuebox/pkg/tracing"
)

// NewLogger returns the process logger: JSON lines by default, text when
// format is "text". Level is debug, info (default), warn or error.
func NewLogger(w io.Writer, level, format string) *slog.Logger {
	var lvl slog.Level
	switch strings.ToLower(level) {
	case "debug":
		lvl = slog.LevelDebug
	case "warn", "warning":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		lvl = slog.LevelInfo
	}
	opts := &slog.HandlerOptions{Level: lvl}
	// Every line logged with a traced context carries trace_id and span_id.
	if strings.EqualFold(format, "text") {
		return slog.New(tracing.NewLogHandler(slog.NewTextHandler(w, opts)))
	}
	return slog.New(tracing.NewLogHandler(slog.NewJSONHandler(w, opts)))
}
