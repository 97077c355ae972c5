package redact_test

import (
	"encoding/json"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/redact"
)

// The cases of testdata/cases.json are shared with the pull clients
// (clients/go and clients/typescript), which run those without secrets.
func TestRedactSharedCases(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/cases.json")
	require.NoError(t, err)
	var fixture struct {
		Cases []struct {
			Name    string   `json:"name"`
			Secrets []string `json:"secrets"`
			Input   string   `json:"input"`
			Want    string   `json:"want"`
		} `json:"cases"`
	}
	require.NoError(t, json.Unmarshal(data, &fixture))
	require.NotEmpty(t, fixture.Cases)
	for _, tc := range fixture.Cases {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.Want, redact.New(tc.Secrets...).Redact(tc.Input))
		})
	}
}

func TestNilRedactorAppliesKeyRules(t *testing.T) {
	t.Parallel()
	var r *redact.Redactor
	require.Equal(t, `{"token":"***"}`, r.Redact(`{"token":"t"}`))
	require.Equal(t, "a *** b", r.With("x1").Redact("a x1 b"))
}

func TestWithKeepsOriginal(t *testing.T) {
	t.Parallel()
	base := redact.New("alpha")
	ext := base.With("beta")
	require.Equal(t, "*** ***", ext.Redact("alpha beta"))
	require.Equal(t, "*** beta", base.Redact("alpha beta"))
}

func TestRedactTruncated(t *testing.T) {
	t.Parallel()
	r := redact.New("supersecret", "other")
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"split secret at end", "error: super", "error: ***"},
		{"longest prefix wins", "x supersecre", "x ***"},
		{"whole secret", "x supersecret", "x ***"},
		{"no prefix at end", "error: done", "error: done"},
		{"split key value", `{"access_token":"eyJhbG`, `{"access_token":"***`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.want, r.RedactTruncated(tc.in))
		})
	}
	// Redact alone cannot know that the text was cut.
	require.Equal(t, "error: super", r.Redact("error: super"))
}

func TestTruncate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		max  int
		want string
	}{
		{"short text", "abc", 10, "abc"},
		{"exact", "abc", 3, "abc"},
		{"ascii cut", "abcdef", 4, "abcd"},
		{"zero", "abc", 0, ""},
		{"negative", "abc", -1, ""},
		{"two byte rune not split", "aé", 2, "a"},
		{"two byte rune kept", "aéb", 3, "aé"},
		{"three byte rune not split", "a€", 3, "a"},
		{"four byte rune not split", "a😀", 4, "a"},
		{"four byte rune kept", "a😀b", 5, "a😀"},
		{"rune at start", "😀", 2, ""},
		{"invalid bytes cut as bytes", "a\xff\xfe\xfd", 2, "a\xff"},
		{"stray continuation bytes", "a\x80\x80\x80\x80\x80", 5, "a\x80\x80\x80\x80"},
		{"replacement character", "a\uFFFDb", 2, "a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := redact.Truncate(tc.in, tc.max)
			require.Equal(t, tc.want, got)
			require.LessOrEqual(t, len(got), max(tc.max, 0))
		})
	}
}

func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	r := redact.New("k3y-value")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				out := r.With("tok").Redact(`{"x":"k3y-value","y":"tok"} Authorization: Bearer z`)
				if strings.Contains(out, "k3y") || strings.Contains(out, "tok\"") {
					t.Errorf("leak: %s", out)
				}
			}
		})
	}
	wg.Wait()
}
