package jsonata

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// conformanceFloor is the minimum share of the official suite that must
// pass. It only ever goes up.
const conformanceFloor = 0.999

// suiteFallback is where the shared JSONata reference material lies when
// QUEUEBOX_JSONATA_SHARED is unset: beside the checkout, never inside it.
var suiteFallback = filepath.Join("..", "..", "..", "shared", "jsonata")

// suiteAt says where the official suite's material is: the directory that
// the variable's value names, or fallback when it is empty. A missing
// suite is a failure when the variable names it (the caller asked for it)
// and a skip otherwise (a clone on its own has no suite to run).
func suiteAt(variable, fallback string) (dir string, skip bool, err error) {
	dir = variable
	if dir == "" {
		dir = fallback
	}
	if _, statErr := os.Stat(filepath.Join(dir, "test-suite", "groups")); statErr != nil {
		if variable == "" {
			return dir, true, nil
		}
		return dir, false, fmt.Errorf("JSONata conformance suite not found in %s (QUEUEBOX_JSONATA_SHARED): %w", dir, statErr)
	}
	return dir, false, nil
}

// sharedDir locates the shared JSONata reference material, skips the test
// when it is absent and QUEUEBOX_JSONATA_SHARED is unset, and fails it when
// the variable names a directory without the suite.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir, skip, err := suiteAt(os.Getenv("QUEUEBOX_JSONATA_SHARED"), suiteFallback)
	if skip {
		t.Skipf("%s skipped: the JSONata conformance suite is absent (no %s, QUEUEBOX_JSONATA_SHARED unset); set the variable to its directory to run it", t.Name(), dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// suiteCase is one case of the official suite.
type suiteCase struct {
	group, name string
	expr        string
	input       any
	bindings    map[string]any
	timeLimit   time.Duration
	depth       int
	result      any
	hasResult   bool
	undefined   bool
	code        string
	message     string
	unordered   bool
}

func loadSuite(t testing.TB) []suiteCase {
	t.Helper()
	dir := filepath.Join(sharedDir(t), "test-suite")
	files, err := filepath.Glob(filepath.Join(dir, "groups", "*", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no suite files in %s: %v", dir, err)
	}
	sort.Strings(files)
	datasets := map[string]any{}
	var cases []suiteCase
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		doc, err := DecodeJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		list, ok := doc.([]any)
		if !ok {
			list = []any{doc}
		}
		for i, item := range list {
			c := parseCase(t, dir, f, item.(*Object), datasets)
			if len(list) > 1 {
				c.name = fmt.Sprintf("%s[%d]", c.name, i)
			}
			cases = append(cases, c)
		}
	}
	return cases
}

func parseCase(t testing.TB, dir, file string, o *Object, datasets map[string]any) suiteCase {
	t.Helper()
	c := suiteCase{group: filepath.Base(filepath.Dir(file)), name: strings.TrimSuffix(filepath.Base(file), ".json"), input: Undefined}
	if e, ok := o.Get("expr"); ok {
		c.expr = e.(string)
	} else if ef, ok := o.Get("expr-file"); ok {
		b, err := os.ReadFile(filepath.Join(filepath.Dir(file), ef.(string)))
		if err != nil {
			t.Fatal(err)
		}
		c.expr = string(b)
	}
	if d, ok := o.Get("data"); ok {
		c.input = d
	} else if ds, ok := o.Get("dataset"); ok && ds != nil {
		name := ds.(string)
		if _, seen := datasets[name]; !seen {
			b, err := os.ReadFile(filepath.Join(dir, "datasets", name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if datasets[name], err = DecodeJSON(b); err != nil {
				t.Fatal(err)
			}
		}
		c.input = datasets[name]
	}
	if b, ok := o.Get("bindings"); ok {
		c.bindings = map[string]any{}
		b.(*Object).Range(func(k string, v any) bool { c.bindings[k] = v; return true })
	}
	if tl, ok := o.Get("timelimit"); ok && tl != nil {
		c.timeLimit = time.Duration(tl.(float64)) * time.Millisecond
	}
	if d, ok := o.Get("depth"); ok && d != nil {
		c.depth = int(d.(float64))
	}
	c.result, c.hasResult = o.Get("result")
	if u, ok := o.Get("undefinedResult"); ok {
		c.undefined = u == true
	}
	if code, ok := o.Get("code"); ok {
		c.code = code.(string)
	}
	if e, ok := o.Get("error"); ok {
		eo := e.(*Object)
		if code, ok := eo.Get("code"); ok {
			c.code = code.(string)
		}
		if msg, ok := eo.Get("message"); ok {
			c.message = msg.(string)
		}
	}
	if u, ok := o.Get("unordered"); ok {
		c.unordered = u == true
	}
	return c
}

// suiteDepthPerCall converts the suite's depth, which counts evaluator
// frames of the reference implementation (three per level of recursion
// in its test cases), into our limit on nested function calls.
const suiteDepthPerCall = 3

// runCase evaluates one case and returns "" when it passes or a reason.
func runCase(c suiteCase) (reason string) {
	limit := c.timeLimit
	if limit == 0 {
		limit = 10 * time.Second
	}
	if raceDetector {
		// The suite's limits are for a normal build; the race detector
		// makes the allocation-heavy cases (ten million items) ~10x slower.
		limit *= 5
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	var opts []Option
	if c.depth > 0 {
		opts = append(opts, WithMaxDepth(c.depth/suiteDepthPerCall))
	}
	x, err := Compile(c.expr, opts...)
	var got any
	if err == nil {
		got, err = x.Evaluate(ctx, c.input, c.bindings)
	}
	switch {
	case c.code != "":
		return checkError(c, err)
	case c.undefined:
		if errors.Is(err, ErrUndefined) {
			return ""
		}
		return fmt.Sprintf("want undefined, got %s (err %v)", describeValue(got), err)
	case err != nil:
		return fmt.Sprintf("unexpected error: %v", err)
	case !c.hasResult:
		return "case has no expected result"
	}
	if equalResult(c.result, got, c.unordered) {
		return ""
	}
	want, _ := EncodeJSON(c.result)
	have, _ := EncodeJSON(got)
	return fmt.Sprintf("want %s, got %s", want, have)
}

func checkError(c suiteCase, err error) string {
	if err == nil {
		return "want error " + c.code + ", got success"
	}
	code := ErrorCode(err)
	if c.code == "U1001" {
		if errors.Is(err, ErrDepth) || errors.Is(err, ErrTimeout) {
			return ""
		}
	}
	if code != c.code {
		return fmt.Sprintf("want error %s, got %v", c.code, err)
	}
	if c.message != "" {
		var je *Error
		if errors.As(err, &je) && je.Message != c.message {
			return fmt.Sprintf("want message %q, got %q", c.message, je.Message)
		}
	}
	return ""
}

// equalResult compares an expected result with ours; unordered compares
// arrays as multisets.
func equalResult(want, got any, unordered bool) bool {
	if !unordered {
		return deepEqual(want, got)
	}
	wa, ok1 := want.([]any)
	ga, ok2 := got.([]any)
	if !ok1 || !ok2 || len(wa) != len(ga) {
		return deepEqual(want, got)
	}
	used := make([]bool, len(ga))
	for _, w := range wa {
		found := false
		for j, g := range ga {
			if !used[j] && deepEqual(w, g) {
				used[j], found = true, true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestConformance(t *testing.T) {
	cases := loadSuite(t)
	start := time.Now()
	failedGroups := map[string]int{}
	var failures []string
	for _, c := range cases {
		if reason := runCase(c); reason != "" {
			failedGroups[c.group]++
			failures = append(failures, fmt.Sprintf("%s/%s: %s\n    expr: %s", c.group, c.name, reason, oneLine(c.expr)))
		}
	}
	passed := len(cases) - len(failures)
	rate := float64(passed) / float64(len(cases))
	t.Logf("JSONata conformance: %d/%d cases pass (%.2f%%) in %s", passed, len(cases), rate*100, time.Since(start).Round(time.Millisecond))
	groups := make([]string, 0, len(failedGroups))
	for g, n := range failedGroups {
		groups = append(groups, fmt.Sprintf("%s (%d)", g, n))
	}
	sort.Strings(groups)
	if len(groups) > 0 {
		t.Logf("failing groups: %s", strings.Join(groups, ", "))
	}
	if out := os.Getenv("JSONATA_FAILURES"); out != "" {
		_ = os.WriteFile(out, []byte(strings.Join(failures, "\n")+"\n"), 0o644)
	}
	for _, f := range failures {
		t.Log(f)
	}
	if rate < conformanceFloor {
		t.Fatalf("conformance %.2f%% is below the floor of %.2f%%", rate*100, conformanceFloor*100)
	}
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

// TestSuiteAt pins when the conformance suite skips: only when nobody
// asked for it by the variable and nothing lies at the fallback.
func TestSuiteAt(t *testing.T) {
	t.Parallel()
	present := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(present, "test-suite", "groups"), 0o755))
	absent := filepath.Join(t.TempDir(), "none")
	for _, tc := range []struct {
		name, variable, fallback, dir string
		skip, fails                   bool
	}{
		{"variable names the suite", present, absent, present, false, false},
		{"variable names nothing", absent, present, absent, false, true},
		{"fallback holds the suite", "", present, present, false, false},
		{"neither", "", absent, absent, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir, skip, err := suiteAt(tc.variable, tc.fallback)
			require.Equal(t, tc.dir, dir)
			require.Equal(t, tc.skip, skip)
			require.Equal(t, tc.fails, err != nil, "error: %v", err)
		})
	}
}
