// Package health runs the readiness checks of a QueueBox process and
// renders the documented JSON answers of /health/live and /health/ready.
package health

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sort"
	"sync"
	"time"
)

// CheckTimeout bounds one component check. A check that takes longer
// counts as down, so a slow database gives 503 and not a probe timeout.
const CheckTimeout = 3 * time.Second

// Check reports whether a component is up. It must honour ctx.
type Check func(ctx context.Context) error

type component struct {
	name     string
	check    Check
	advisory bool
}

// Registry holds the components of one process. It is safe for concurrent
// use; components are usually added once during wiring.
type Registry struct {
	mu         sync.RWMutex
	components []component
	// timeout bounds one check: CheckTimeout, shorter in tests.
	timeout time.Duration
}

// New returns an empty registry.
func New() *Registry { return &Registry{timeout: CheckTimeout} }

// Add registers a component that decides readiness. A name that is
// already registered joins that component (see add).
func (r *Registry) Add(name string, check Check) { r.add(component{name: name, check: check}) }

// AddAdvisory registers a component that is shown but never makes the
// answer unhealthy (outbox-capture).
func (r *Registry) AddAdvisory(name string, check Check) {
	r.add(component{name: name, check: check, advisory: true})
}

// add appends c, or joins it to the component of the same name: a process
// that runs several roles reports one component per name (relay and
// deliver each add a retention-service), which is up only while every
// check of that name is up, and decides readiness when any of them does.
func (r *Registry) add(c component) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, old := range r.components {
		if old.name == c.name {
			first, second := old.check, c.check
			r.components[i] = component{name: c.name, advisory: old.advisory && c.advisory,
				check: func(ctx context.Context) error { return errors.Join(first(ctx), second(ctx)) }}
			return
		}
	}
	r.components = append(r.components, c)
}

// StatusDown is the status of a component that does not work.
const StatusDown = "down"

// StatusDegraded is the status of a component that works in part: it is
// shown in the body and never makes the answer unhealthy.
const StatusDegraded = "degraded"

// degraded is the error of Degraded.
type degraded struct{ reason string }

func (d degraded) Error() string { return d.reason }

// Degraded is the error a check returns for a component that works in
// part (a destination whose circuit breaker is open): the component shows
// as degraded with reason, and readiness stays up.
func Degraded(reason string) error { return degraded{reason: reason} }

// Status is one component in the JSON answer.
type Status struct {
	Status string `json:"status"`
	Error  string `json:"error,omitempty"`
}

// Report is the JSON answer of the health routes.
type Report struct {
	Status     string            `json:"status"`
	Components map[string]Status `json:"components"`
}

// Ready runs every check at once, each bounded by CheckTimeout, and
// reports whether every deciding component is up.
func (r *Registry) Ready(ctx context.Context) (Report, bool) {
	r.mu.RLock()
	comps := append([]component(nil), r.components...)
	r.mu.RUnlock()
	timeout := r.timeout
	if timeout <= 0 { // a zero Registry
		timeout = CheckTimeout
	}
	results := make([]Status, len(comps))
	var wg sync.WaitGroup
	for i, c := range comps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = runCheck(ctx, c.check, timeout)
		}()
	}
	wg.Wait()
	report := Report{Status: "healthy", Components: map[string]Status{}}
	healthy := true
	for i, c := range comps {
		report.Components[c.name] = results[i]
		if results[i].Status == StatusDown && !c.advisory {
			healthy = false
		}
	}
	if !healthy {
		report.Status = "unhealthy"
	}
	return report, healthy
}

func runCheck(parent context.Context, check Check, timeout time.Duration) Status {
	ctx, cancel := context.WithTimeout(parent, timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- check(ctx) }()
	select {
	case err := <-done:
		var d degraded
		if errors.As(err, &d) {
			return Status{Status: StatusDegraded, Error: d.reason}
		}
		if err != nil {
			return Status{Status: StatusDown, Error: err.Error()}
		}
		return Status{Status: "up"}
	case <-ctx.Done():
		return Status{Status: StatusDown, Error: "check did not answer within " + timeout.String()}
	}
}

// Names lists the registered component names, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.components))
	for _, c := range r.components {
		names = append(names, c.name)
	}
	sort.Strings(names)
	return names
}

// LiveHandler answers /health/live: always 200, touching no dependency.
func LiveHandler() http.Handler {
	body := []byte(`{"status":"healthy","components":{"process":{"status":"up"}}}`)
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// ReadyHandler answers /health/ready and /health: 200 when every deciding
// component is up, 503 otherwise.
func (r *Registry) ReadyHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		report, ok := r.Ready(req.Context())
		w.Header().Set("Content-Type", "application/json")
		if ok {
			w.WriteHeader(http.StatusOK)
		} else {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
		_ = json.NewEncoder(w).Encode(report)
	})
}
