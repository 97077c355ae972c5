package chaos

import "testing"

// TestPlanHoldsEveryChoice: a schedule with at least as many faults as
// choices tries each choice, whatever the seed; every point lies between
// 5 % and 90 % of the deliveries, in order.
func TestPlanHoldsEveryChoice(t *testing.T) {
	choices := []Step{{Kind: "restart", Role: "a"}, {Kind: "cut", Role: "a"}, {Kind: "kill", Role: "b"}}
	for seed := range uint64(50) {
		steps := Plan(NewRand(seed), 1000, len(choices), choices)
		seen := map[Step]bool{}
		last := 0
		for _, s := range steps {
			if s.Delivered < 50 || s.Delivered > 900 || s.Delivered < last {
				t.Fatalf("seed %d: point %d out of range or order in %v", seed, s.Delivered, steps)
			}
			last = s.Delivered
			seen[Step{Kind: s.Kind, Role: s.Role}] = true
		}
		if len(seen) != len(choices) {
			t.Fatalf("seed %d: schedule %v misses a choice", seed, steps)
		}
	}
}
