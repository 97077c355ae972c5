package run_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/run"
)

func TestNewLoggerLevels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		level string
		least slog.Level // the lowest level that is written
	}{
		{"debug", slog.LevelDebug},
		{"DEBUG", slog.LevelDebug},
		{"info", slog.LevelInfo},
		{"", slog.LevelInfo},
		{"verbose", slog.LevelInfo}, // unknown: the default
		{"warn", slog.LevelWarn},
		{"warning", slog.LevelWarn},
		{"Warn", slog.LevelWarn},
		{"error", slog.LevelError},
	} {
		t.Run(tc.level, func(t *testing.T) {
			t.Parallel()
			log := run.NewLogger(&bytes.Buffer{}, tc.level, "json")
			for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
				require.Equal(t, l >= tc.least, log.Enabled(context.Background(), l), "level %s at %s", l, tc.level)
			}
		})
	}
}

func TestNewLoggerFormats(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		format string
		json   bool
	}{
		{"json", true},
		{"", true},
		{"logfmt", true}, // unknown: the default
		{"text", false},
		{"TEXT", false},
	} {
		t.Run(tc.format, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			run.NewLogger(&buf, "info", tc.format).Info("started", "service", "queuebox-deliver")
			line := strings.TrimSpace(buf.String())
			require.NotContains(t, line, "\n", "one line per record")
			if tc.json {
				var rec map[string]any
				require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
				require.Equal(t, "INFO", rec["level"])
				require.Equal(t, "started", rec["msg"])
				require.Equal(t, "queuebox-deliver", rec["service"])
				return
			}
			require.Contains(t, line, "level=INFO msg=started service=queuebox-deliver")
			require.False(t, json.Valid([]byte(line)), line)
		})
	}
}
