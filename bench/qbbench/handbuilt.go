package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
)

// handSrc is the bench module's directory, where the hand-written
// baselines (handrelay/, handinbox/) are built from; make bench runs
// qbbench from there.
var handSrc = flag.String("hand-src", ".", "the bench module directory holding handrelay/ and handinbox/, built once per invocation")

// handBuilt holds the temporary directory the hand-written baselines are
// built into, once per invocation; removeHand deletes it.
var handBuilt struct {
	once sync.Once
	dir  string
	err  error
}

// handBinary returns the path of the built hand-written baseline name
// (handrelay or handinbox), building both on the first call.
func handBinary(ctx context.Context, name string) (string, error) {
	handBuilt.once.Do(func() {
		handBuilt.dir, handBuilt.err = buildHand(ctx)
	})
	if handBuilt.err != nil {
		return "", handBuilt.err
	}
	return filepath.Join(handBuilt.dir, name), nil
}

// removeHand deletes the built baselines, if any were built.
func removeHand() {
	if handBuilt.dir != "" {
		_ = os.RemoveAll(handBuilt.dir)
	}
}

func buildHand(ctx context.Context) (string, error) {
	dir, err := os.MkdirTemp("", "qbbench-hand-")
	if err != nil {
		return "", err
	}
	for _, name := range []string{"handrelay", "handinbox"} {
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(dir, name), "./"+name)
		cmd.Dir = *handSrc
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("go build ./%s in %s: %w\n%s", name, *handSrc, err, out)
		}
	}
	logf("built the hand-written baselines into %s", dir)
	return dir, nil
}

// startHand starts a hand-written baseline with args. With port > 0 it
// waits until the process answers /health/live on it, as startBinary
// does for the QueueBox binaries.
func startHand(ctx context.Context, name string, port int, args ...string) (*proc, error) {
	path, err := handBinary(ctx, name)
	if err != nil {
		return nil, err
	}
	p := &proc{name: name, port: port, out: &tail{max: 16 << 10}, done: make(chan struct{})}
	p.cmd = exec.Command(path, args...)
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME")}
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() { p.err = p.cmd.Wait(); close(p.done) }()
	if port > 0 {
		if err := p.waitLive(ctx); err != nil {
			return nil, errors.Join(err, p.stop())
		}
	}
	return p, nil
}
