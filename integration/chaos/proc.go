package chaos

import (
	"bytes"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Proc is one running QueueBox binary. Its output is kept in memory and
// printed when the test fails.
type Proc struct {
	Name, Role string
	Port       int
	cmd        *exec.Cmd
	out        SyncBuffer
	exited     chan struct{}
}

// SyncBuffer collects a process's output: the process writes it while
// the test reads it. The zero value is ready to use.
type SyncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p.
func (b *SyncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String returns everything written so far.
func (b *SyncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

var (
	binOnce sync.Once
	binDir  string
	binErr  error
)

// BinDir is where the binaries are: QUEUEBOX_BIN_DIR (make sets it), or a
// temporary directory they are built into once per test process.
func BinDir(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("QUEUEBOX_BIN_DIR"); dir != "" {
		return dir
	}
	binOnce.Do(func() {
		binDir, binErr = os.MkdirTemp("", "queuebox-chaos-bin-")
		if binErr == nil {
			cmd := exec.Command("go", "build", "-o", binDir+string(os.PathSeparator), "./services/...")
			cmd.Dir = filepath.Join("..", "..")
			if out, err := cmd.CombinedOutput(); err != nil {
				binErr = fmt.Errorf("go build ./services/...: %v\n%s", err, out)
			}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binDir
}

// roleBinary maps a role to its file: the role binaries are
// queuebox-<role>; go build names them after their directory.
func roleBinary(t testing.TB, role string) string {
	t.Helper()
	dir := BinDir(t)
	if p := filepath.Join(dir, "queuebox-"+role); fileExists(p) {
		return p
	}
	return filepath.Join(dir, role)
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// StartProc runs the binary of role on a free HTTP port with exactly env
// (plus PATH and HOME) and waits until it answers /health/live. It is
// killed when the test ends.
func StartProc(t testing.TB, role, name string, env map[string]string) *Proc {
	t.Helper()
	p := &Proc{Name: name, Role: role, Port: FreePort(t), exited: make(chan struct{})}
	p.cmd = exec.Command(roleBinary(t, role))
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"QUEUEBOX_CONFIG_FILE=/nonexistent/queuebox.yml", fmt.Sprintf("QUEUEBOX_SERVER_HTTPPORT=%d", p.Port)}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() { _ = p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.Kill()
		if t.Failed() {
			t.Logf("output of %s:\n%s", name, p.out.String())
		}
		keepLog(t, name, p.out.String())
	})
	WaitFor(t, 90*time.Second, name+" answers /health/live", func() bool {
		if p.Exited() {
			t.Fatalf("%s exited at start:\n%s", name, p.out.String())
		}
		resp, err := http.Get(p.URL("/health/live"))
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	return p
}

// keepLog writes the output of the process name to NAME.log in the
// directory CHAOS_LOG_DIR names, when it is set: the logs of a run that
// passed still tell why each duplicate happened (a claim lost after the
// publish, a lease given up before it).
func keepLog(t testing.TB, name, out string) {
	dir := os.Getenv("CHAOS_LOG_DIR")
	if dir == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(dir, name+".log"), []byte(out), 0o644); err != nil {
		t.Logf("keep the log of %s: %v", name, err)
	}
}

// URL is the address of path on the process's HTTP port.
func (p *Proc) URL(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", p.Port, path) }

// Ready reports whether /health/ready answers 200.
func (p *Proc) Ready() bool {
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(p.URL("/health/ready"))
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// Exited reports whether the process ended.
func (p *Proc) Exited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// ExitCode is the exit status once the process ended (-1 for a signal).
func (p *Proc) ExitCode() int { <-p.exited; return p.cmd.ProcessState.ExitCode() }

// Output is everything the process wrote so far.
func (p *Proc) Output() string { return p.out.String() }

// Kill sends SIGKILL (after a SIGCONT, so a stopped process dies too) and
// waits for the exit.
func (p *Proc) Kill() {
	if p.Exited() {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	_ = p.cmd.Process.Signal(syscall.SIGCONT)
	<-p.exited
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig syscall.Signal) { _ = p.cmd.Process.Signal(sig) }

// WaitExit waits up to d for the process to end and reports whether it did.
func (p *Proc) WaitExit(d time.Duration) bool {
	select {
	case <-p.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// FreePort returns a loopback TCP port that nothing listens on and that
// this test process has not handed out before.
func FreePort(t testing.TB) int {
	t.Helper()
	ports.Lock()
	defer ports.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close()
		if !ports.given[port] {
			ports.given[port] = true
			return port
		}
	}
}

var ports = struct {
	sync.Mutex
	given map[int]bool
}{given: map[int]bool{}}

// WaitFor polls cond until it holds, failing the test after d. The
// deadline is generous on purpose: the suite must pass on a busy machine.
func WaitFor(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting until %s", d, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
