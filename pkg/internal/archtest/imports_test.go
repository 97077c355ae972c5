package archtest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/alternayte/queuebox/"

// pkg is the part of `go list -json` that the rule reads.
type pkg struct {
	ImportPath string
	Standard   bool
	Imports    []string
	Deps       []string
	Error      *struct{ Err string }
}

// goList runs `go list -json` with args and decodes its stream of
// packages. A package that fails to load fails the test.
func goList(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("decode go list: %v", err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// chain returns the import path from root to target, as `a -> b -> c`,
// read from the dependency graph of root.
func chain(t *testing.T, root, target string) string {
	t.Helper()
	imports := map[string][]string{}
	for _, p := range goList(t, "-deps", root) {
		imports[p.ImportPath] = p.Imports
	}
	from := map[string]string{root: ""}
	for queue := []string{root}; len(queue) > 0; queue = queue[1:] {
		for _, next := range imports[queue[0]] {
			if _, seen := from[next]; !seen {
				from[next] = queue[0]
				queue = append(queue, next)
			}
		}
	}
	path := []string{target}
	for at := from[target]; at != ""; at = from[at] {
		path = append([]string{at}, path...)
	}
	return strings.Join(path, " -> ")
}

// forbidden returns the violations of the packages of pattern: each
// package that reaches one of banned, with the chain that reaches it. A
// pattern that matches nothing is a violation too, so a rename cannot
// turn the check into one that passes on no package.
func forbidden(t *testing.T, pattern string, banned ...string) []string {
	t.Helper()
	pkgs := goList(t, pattern)
	if len(pkgs) == 0 {
		return []string{pattern + " matches no package"}
	}
	var out []string
	for _, p := range pkgs {
		for _, b := range banned {
			if slices.Contains(p.Deps, b) {
				out = append(out, chain(t, p.ImportPath, b))
			}
		}
	}
	return out
}

var storeAndHTTPServer = []string{
	module + "pkg/store/postgres",
	module + "pkg/store/sqlserver",
	"github.com/jackc/pgx/v5",
	"github.com/microsoft/go-mssqldb",
	"github.com/labstack/echo/v4",
}

func TestBrokerPackagesReachNoStoreNorHTTPServer(t *testing.T) {
	t.Parallel()
	for _, v := range forbidden(t, module+"pkg/broker/...", storeAndHTTPServer...) {
		t.Errorf("a broker package reaches a store dialect or the HTTP server: %s", v)
	}
}

func TestReceiveStepReachesNoTransportStoreOrConfig(t *testing.T) {
	t.Parallel()
	banned := append([]string{module + "pkg/run", module + "pkg/config"}, storeAndHTTPServer...)
	for _, v := range forbidden(t, module+"pkg/ingest", banned...) {
		t.Errorf("pkg/ingest reaches a transport, a store or the configuration: %s", v)
	}
}

// Capture and the wake-ups take their options and their database from
// the wiring and the store set: neither reads the configuration nor
// opens a store of its own.
func TestCaptureAndWakeReachNoConfigNorStore(t *testing.T) {
	t.Parallel()
	for _, pattern := range []string{module + "pkg/capture/...", module + "pkg/wake/..."} {
		for _, v := range forbidden(t, pattern, module+"pkg/config", module+"pkg/store/postgres", module+"pkg/store/sqlserver") {
			t.Errorf("capture or wake reaches the configuration or the store: %s", v)
		}
	}
}

// The drivers of each dialect. pgx/v5 alone would miss a package that
// takes only pgconn, so that is named too.
var (
	postgresDrivers  = []string{"github.com/jackc/pgx/v5", "github.com/jackc/pgx/v5/pgconn", "github.com/jackc/pglogrepl"}
	sqlServerDrivers = []string{"github.com/microsoft/go-mssqldb"}
)

// The two dialects are peers in the stores, capture and the wake-ups:
// the SQL Server packages compile no PostgreSQL driver and the PostgreSQL
// packages no SQL Server one, and the shared capture framework and wake
// package compile neither.
func TestDialectsReachNoOtherDialectsDriver(t *testing.T) {
	t.Parallel()
	for _, area := range []string{"store", "capture", "wake"} {
		for _, v := range forbidden(t, module+"pkg/"+area+"/sqlserver/...", postgresDrivers...) {
			t.Errorf("a SQL Server package reaches a PostgreSQL driver: %s", v)
		}
		for _, v := range forbidden(t, module+"pkg/"+area+"/postgres/...", sqlServerDrivers...) {
			t.Errorf("a PostgreSQL package reaches the SQL Server driver: %s", v)
		}
	}
	for _, neutral := range []string{"pkg/capture", "pkg/wake"} {
		for _, v := range forbidden(t, module+neutral, append(postgresDrivers, sqlServerDrivers...)...) {
			t.Errorf("%s, shared by both dialects, reaches a driver: %s", neutral, v)
		}
	}
}

func TestDomainImportsOnlyTheStandardLibrary(t *testing.T) {
	t.Parallel()
	root := module + "pkg/queuebox"
	pkgs := goList(t, "-deps", root)
	if len(pkgs) == 0 {
		t.Fatalf("%s matches no package", root)
	}
	for _, p := range pkgs {
		if p.ImportPath != root && !p.Standard {
			t.Errorf("pkg/queuebox imports something outside the standard library: %s", chain(t, root, p.ImportPath))
		}
	}
}

// The check finds a violation where there is one: pkg/run serves HTTP and
// opens the store, so it reaches every banned package.
func TestTheCheckSeesAViolation(t *testing.T) {
	t.Parallel()
	got := forbidden(t, module+"pkg/run", storeAndHTTPServer...)
	if len(got) != len(storeAndHTTPServer) {
		t.Fatalf("pkg/run reaches %d of the %d banned packages: %v", len(got), len(storeAndHTTPServer), got)
	}
	want := module + "pkg/run -> " + module + "pkg/store -> " + module + "pkg/store/postgres"
	if got[0] != want {
		t.Errorf("chain %q, want %q", got[0], want)
	}
	if v := forbidden(t, module+"pkg/no/such/package/..."); len(v) != 1 {
		t.Errorf("a pattern that matches nothing gave %v", v)
	}
}
