package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// proc is a running QueueBox binary with the tail of its output kept for
// error messages.
type proc struct {
	name string
	port int
	cmd  *exec.Cmd
	out  *tail
	done chan struct{}
	err  error // the Wait result, set before done closes
}

// startTimeout bounds the wait for /health/live after a start.
const startTimeout = 60 * time.Second

// stopTimeout bounds the wait for an exit after SIGTERM.
const stopTimeout = 45 * time.Second

// startAttempts bounds the starts of one binary whose data port was taken.
const startAttempts = 3

// singleRole names the one-process binary bin/queuebox to startBinary.
const singleRole = "single"

// startBinary starts bin/queuebox-<role> (bin/queuebox for singleRole) with exactly env (plus PATH and
// HOME, no configuration file, warn-level logs) on a free data port and
// waits until it answers /health/live. A binary that exits or does not
// answer in time is an error.
//
// The free port is only free when freePort looks: another process may
// take it before the binary binds it (an outgoing connection gets its
// port from the same ephemeral range, and the benchmark opens many). A
// binary that fails to bind is started again on another port.
func startBinary(ctx context.Context, binDir, role string, env map[string]string) (*proc, error) {
	for attempt := 1; ; attempt++ {
		p, err := startOnce(ctx, binDir, role, env)
		if err == nil || attempt == startAttempts || !strings.Contains(err.Error(), "address already in use") {
			return p, err
		}
		logf("queuebox-%s: its data port was taken before it could bind it; starting it again on another", role)
	}
}

// startOnce is one attempt of startBinary.
func startOnce(ctx context.Context, binDir, role string, env map[string]string) (*proc, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	name := "queuebox-" + role
	if role == singleRole {
		name = "queuebox" // every role in one process
	}
	p := &proc{name: name, port: port, out: &tail{max: 16 << 10}, done: make(chan struct{})}
	p.cmd = exec.Command(filepath.Join(binDir, p.name))
	p.cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"),
		"QUEUEBOX_CONFIG_FILE=/nonexistent/queuebox.yml",
		"QUEUEBOX_LOG_LEVEL=warn",
		fmt.Sprintf("QUEUEBOX_SERVER_HTTPPORT=%d", port),
	}
	for k, v := range env {
		p.cmd.Env = append(p.cmd.Env, k+"="+v)
	}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", p.name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	if err := p.waitLive(ctx); err != nil {
		_ = p.stop()
		return nil, err
	}
	return p, nil
}

// url returns the address of path on the data port.
// role is the process's role: its binary's name without queuebox-.
func (p *proc) role() string { return strings.TrimPrefix(p.name, "queuebox-") }

func (p *proc) url(path string) string { return fmt.Sprintf("http://127.0.0.1:%d%s", p.port, path) }

func (p *proc) waitLive(ctx context.Context) error {
	deadline := time.Now().Add(startTimeout)
	client := &http.Client{Timeout: time.Second}
	for time.Now().Before(deadline) {
		if err := p.exited(); err != nil {
			return err
		}
		resp, err := client.Get(p.url("/health/live"))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s did not answer /health/live within %v; output:\n%s", p.name, startTimeout, p.out)
}

// exited returns an error when the process is no longer running.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return fmt.Errorf("%s exited (%v); output:\n%s", p.name, p.err, p.out)
	default:
		return nil
	}
}

// stop sends SIGTERM and waits for the exit. A process that does not exit
// within stopTimeout is killed and reported; a non-zero exit is reported.
func (p *proc) stop() error {
	select {
	case <-p.done:
		return p.exitError()
	default:
	}
	// The peak is read just before the signal: once the process is
	// gone, so is its /proc entry. The shutdown is not in it.
	rssPeaks.record(p.name, peakRSSKiB(p))
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
		return p.exitError()
	case <-time.After(stopTimeout):
		_ = p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("%s did not exit within %v of SIGTERM and was killed; output:\n%s", p.name, stopTimeout, p.out)
	}
}

func (p *proc) exitError() error {
	if p.err != nil {
		return fmt.Errorf("%s exited with %v; output:\n%s", p.name, p.err, p.out)
	}
	return nil
}

// stopAll stops every process and joins the errors.
func stopAll(ps ...*proc) error {
	errs := make([]error, len(ps))
	var wg sync.WaitGroup
	for i, p := range ps {
		if p == nil {
			continue
		}
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = p.stop() }()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// freePort asks the kernel for a free loopback port.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(string(t.b))
}

// clockTick is the unit of the CPU times in /proc/<pid>/stat (USER_HZ),
// 100 per second on every Linux configuration Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime returns the user plus system CPU time the process used so far,
// read from /proc/<pid>/stat; 0 where that file does not exist.
func (p *proc) cpuTime() time.Duration {
	_, cpu := statCPU(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	return cpu
}

// statCPU reads the command name and the user plus system CPU time from
// a /proc/<pid>/stat file; "" and 0 where it cannot.
func statCPU(path string) (comm string, cpu time.Duration) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", 0
	}
	// The command name is in parentheses and may hold spaces; the fields
	// after it are fixed: state is field 3, utime 14 and stime 15.
	open, end := strings.IndexByte(string(b), '('), strings.LastIndexByte(string(b), ')')
	if open < 0 || end < open {
		return "", 0
	}
	f := strings.Fields(string(b[end+1:]))
	if len(f) < 13 {
		return "", 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return "", 0
	}
	return string(b[open+1 : end]), time.Duration(utime+stime) * clockTick
}

// cpuTimes sums cpuTime over processes.
func cpuTimes(ps []*proc) time.Duration {
	var d time.Duration
	for _, p := range ps {
		d += p.cpuTime()
	}
	return d
}
