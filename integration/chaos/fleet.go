package chaos

import (
	"fmt"
	"sort"
	"sync"
	"syscall"
	"testing"
)

// Fleet runs the replicas of every role of a scenario and replaces the
// ones a fault ends. Env gives the environment of a new replica from its
// role and name.
type Fleet struct {
	t      testing.TB
	Env    func(role, name string) map[string]string
	ledger *Ledger
	mu     sync.Mutex
	next   int
	live   map[string][]*Proc
	all    []*Proc
}

// NewFleet returns a fleet that records its faults in ledger.
func NewFleet(t testing.TB, ledger *Ledger, env func(role, name string) map[string]string) *Fleet {
	return &Fleet{t: t, Env: env, ledger: ledger, live: map[string][]*Proc{}}
}

// Start runs one more replica of role and returns it once it is live.
func (f *Fleet) Start(role string) *Proc {
	f.t.Helper()
	f.mu.Lock()
	f.next++
	name := fmt.Sprintf("%s%d", role, f.next)
	f.mu.Unlock()
	p := StartProc(f.t, role, name, f.Env(role, name))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.live[role] = append(f.live[role], p)
	f.all = append(f.all, p)
	return p
}

// Live returns the live replicas of role, in start order; of every role
// for "".
func (f *Fleet) Live(role string) []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	if role != "" {
		return append([]*Proc(nil), f.live[role]...)
	}
	var all []*Proc
	for _, ps := range f.live {
		all = append(all, ps...)
	}
	return all
}

// Pick returns the pick-th live replica of role, modulo their number.
func (f *Fleet) Pick(role string, pick int) *Proc {
	f.t.Helper()
	live := f.Live(role)
	if len(live) == 0 {
		f.t.Fatalf("no live %s replica", role)
	}
	return live[pick%len(live)]
}

// remove takes p out of the live set.
func (f *Fleet) remove(p *Proc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	live := f.live[p.Role]
	for i, q := range live {
		if q == p {
			f.live[p.Role] = append(live[:i:i], live[i+1:]...)
			return
		}
	}
}

// Kill9 kills p with SIGKILL, records the fault, and starts a replacement.
func (f *Fleet) Kill9(p *Proc) {
	f.t.Helper()
	f.remove(p)
	f.ledger.Fault("kill -9 "+p.Role, p.Name)
	p.Kill()
	f.Start(p.Role)
}

// Pause stops p with SIGSTOP and records the fault; the returned resume
// continues it and ends the fault.
func (f *Fleet) Pause(p *Proc) (resume func()) {
	end := f.ledger.Fault("SIGSTOP "+p.Role, p.Name)
	p.Signal(syscall.SIGSTOP)
	return func() { p.Signal(syscall.SIGCONT); end() }
}

// Revive starts a replacement for every replica that exited on its own,
// as an orchestrator would, and returns their names. A database fault may
// make a role exit non-zero by design.
func (f *Fleet) Revive() []string {
	f.t.Helper()
	var gone []*Proc
	f.mu.Lock()
	for _, ps := range f.live {
		for _, p := range ps {
			if p.Exited() {
				gone = append(gone, p)
			}
		}
	}
	f.mu.Unlock()
	var names []string
	for _, p := range gone {
		f.remove(p)
		names = append(names, fmt.Sprintf("%s (exit %d)", p.Name, p.ExitCode()))
		f.Start(p.Role)
	}
	sort.Strings(names)
	return names
}

// All returns every replica the fleet started, live or not.
func (f *Fleet) All() []*Proc {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*Proc(nil), f.all...)
}
