package chaos

import (
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"
)

// Size is the scale of a run: the short run of `go test`, or the full run
// of `make chaos` (CHAOS_SIZE=full).
type Size struct {
	Name             string
	Messages, Faults int
}

// SizeFor returns the size of a scenario whose short run sends short
// messages with shortFaults faults. A full run sends CHAOS_MESSAGES
// (default 100,000) with CHAOS_FAULTS faults (default 50); both variables
// also scale a reduced run.
func SizeFor(t testing.TB, short, shortFaults int) Size {
	t.Helper()
	s := Size{Name: "short", Messages: short, Faults: shortFaults}
	if os.Getenv("CHAOS_SIZE") == "full" {
		s = Size{Name: "full", Messages: 100_000, Faults: 50}
	}
	if v := envInt(t, "CHAOS_MESSAGES"); v > 0 {
		s.Messages, s.Name = v, "custom"
	}
	if v := envInt(t, "CHAOS_FAULTS"); v > 0 {
		s.Faults, s.Name = v, "custom"
	}
	return s
}

// envOr is the variable name, or def when it is empty.
func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

func envInt(t testing.TB, name string) int {
	v := os.Getenv(name)
	if v == "" {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s=%q: %v", name, v, err)
	}
	return n
}

// Seed is CHAOS_SEED (make chaos SEED=…) or the clock. Every run logs it,
// so a schedule can be replayed.
func Seed(t testing.TB) uint64 {
	t.Helper()
	if v := os.Getenv("CHAOS_SEED"); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("CHAOS_SEED=%q: %v", v, err)
		}
		return n
	}
	return uint64(time.Now().UnixNano())
}

// Step is one fault of a schedule: when enough messages reached the
// receiver (Delivered), Kind hits the Pick-th live process of Role (modulo
// their number).
type Step struct {
	Delivered int
	Kind      string
	Role      string
	Pick      int
}

// Plan draws a schedule of n faults over a run of messages from rng: each
// fault a kind and a role drawn from choices, each at a point between 5 %
// and 90 % of the deliveries. A schedule of at least as many faults as
// choices holds every choice at least once, so a short run tries every
// kind of fault. The points are conditions, not times, so a slow machine
// stretches the run instead of moving the faults.
func Plan(rng *rand.Rand, messages, n int, choices []Step) []Step {
	steps := make([]Step, n)
	for i := range steps {
		s := choices[rng.IntN(len(choices))]
		if n >= len(choices) && i < len(choices) {
			s = choices[i]
		}
		s.Delivered = messages/20 + rng.IntN(messages*85/100+1)
		s.Pick = rng.IntN(1 << 16)
		steps[i] = s
	}
	sort.SliceStable(steps, func(i, j int) bool { return steps[i].Delivered < steps[j].Delivered })
	return steps
}

// NewRand is the scenario's random source, fixed by seed.
func NewRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }
