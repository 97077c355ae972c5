package flow

import "testing"

// BenchmarkAdmitWaitsForASlot measures an Admit that finds every slot
// busy and waits for one until InFlightWait: the path of the outbox
// workers beyond maxInFlight (half of them at the defaults). Here no slot
// frees, so each Admit ends in a deferral after the wait.
func BenchmarkAdmitWaitsForASlot(b *testing.B) {
	g := NewGate(Config{Name: "webhook", MaxInFlight: 1, InFlightWait: 1}, nil, nil, Hooks{})
	held, d := g.Admit(b.Context())
	if d != nil {
		b.Fatal("the first Admit was deferred")
	}
	defer held.Done(Result{})
	b.ReportAllocs()
	for b.Loop() {
		if _, d := g.Admit(b.Context()); d == nil {
			b.Fatal("a second Admit got a slot")
		}
	}
}
