package jsonata

import (
	"context"
	"encoding/json"
	"runtime"
	"testing"

	blues "github.com/blues/jsonata-go"
)

// benchPayload is a ~1 KB order event, the size of a typical QueueBox
// payload.
var benchPayload = []byte(`{"orderId":"ord-1001","customer":{"id":"c-77","name":"Ada Lovelace","email":"ada@example.com","address":{"street":"12 Analytical Way","city":"London","postcode":"N1 9GU","country":"GB"}},"items":[{"sku":"SKU-1","name":"Difference Engine Manual","price":25.5,"quantity":2},{"sku":"SKU-2","name":"Punch Cards (100)","price":9.99,"quantity":5},{"sku":"SKU-3","name":"Brass Gear Set","price":120,"quantity":1}],"payment":{"method":"card","last4":"4242","status":"captured","amount":220.95,"currency":"GBP","capturedAt":"2026-11-30T09:15:02Z","reference":"pay_8f3a9c2e1b7d4a60"},"shipping":{"method":"express","carrier":"RoyalMail","tracking":"RM123456789GB","eta":"2026-12-03","instructions":"Leave with the concierge"},"tags":["priority","gift","repeat-customer"],"notes":"Leave at the door if nobody answers. Ring twice; the bell is quiet.","channel":"web","locale":"en-GB","createdAt":"2026-11-30T09:15:00Z","version":3}`)

const envelopeExpr = `{ "id": $messageId, "type": $topic, "data": $ }`

var benchBindings = map[string]any{"messageId": "6b1f0c1e-9a7d-4f0e-8a1c-2f3d4e5f6a7b", "topic": "order.created"}

func benchDecoded(b *testing.B) any {
	var data any
	if err := json.Unmarshal(benchPayload, &data); err != nil {
		b.Fatal(err)
	}
	return data
}

// BenchmarkEnvelope compares the evaluation of the envelope expression on
// a decoded payload: this package against github.com/blues/jsonata-go.
func BenchmarkEnvelope(b *testing.B) {
	data := benchDecoded(b)
	b.Run("queuebox", func(b *testing.B) {
		x := MustCompile(envelopeExpr)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x.Evaluate(ctx, data, benchBindings); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("blues", func(b *testing.B) {
		x := blues.MustCompile(envelopeExpr)
		if err := x.RegisterVars(benchBindings); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x.Eval(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkEnvelopeJSON compares the JSON bytes in, JSON bytes out path
// that QueueBox uses: EvaluateJSON against blues' EvalBytes.
func BenchmarkEnvelopeJSON(b *testing.B) {
	b.Run("queuebox", func(b *testing.B) {
		x := MustCompile(envelopeExpr)
		ctx := context.Background()
		b.ReportAllocs()
		b.SetBytes(int64(len(benchPayload)))
		for b.Loop() {
			if _, err := x.EvaluateJSON(ctx, benchPayload, benchBindings); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("blues", func(b *testing.B) {
		x := blues.MustCompile(envelopeExpr)
		if err := x.RegisterVars(benchBindings); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(benchPayload)))
		for b.Loop() {
			if _, err := x.EvalBytes(benchPayload); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkReshape compares a typical route transform (paths, a mapped
// product and an aggregate) on a decoded payload.
func BenchmarkReshape(b *testing.B) {
	const expr = `{ "orderId": orderId, "customer": customer.name, "total": $sum(items.(price * quantity)) }`
	data := benchDecoded(b)
	b.Run("queuebox", func(b *testing.B) {
		x := MustCompile(expr)
		ctx := context.Background()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x.Evaluate(ctx, data, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("blues", func(b *testing.B) {
		x := blues.MustCompile(expr)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x.Eval(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestAllocationsNotAboveBlues checks the allocation side of the benchmark
// bar deterministically: on the envelope expression this package must not
// allocate more (count and bytes) than blues/jsonata-go. It cannot run in
// parallel: testing.AllocsPerRun refuses to.
func TestAllocationsNotAboveBlues(t *testing.T) {
	var data any
	if err := json.Unmarshal(benchPayload, &data); err != nil {
		t.Fatal(err)
	}
	ours := MustCompile(envelopeExpr)
	theirs := blues.MustCompile(envelopeExpr)
	if err := theirs.RegisterVars(benchBindings); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	pairs := []struct {
		name        string
		ours, blues func()
	}{
		{"decoded", func() { _, _ = ours.Evaluate(ctx, data, benchBindings) }, func() { _, _ = theirs.Eval(data) }},
		{"bytes", func() { _, _ = ours.EvaluateJSON(ctx, benchPayload, benchBindings) }, func() { _, _ = theirs.EvalBytes(benchPayload) }},
	}
	for _, p := range pairs {
		oursAllocs, bluesAllocs := testing.AllocsPerRun(50, p.ours), testing.AllocsPerRun(50, p.blues)
		oursBytes, bluesBytes := bytesPerRun(p.ours), bytesPerRun(p.blues)
		t.Logf("%s: %v allocs, %d B per evaluation (blues: %v allocs, %d B)", p.name, oursAllocs, oursBytes, bluesAllocs, bluesBytes)
		if oursAllocs > bluesAllocs || oursBytes > bluesBytes {
			t.Errorf("%s: this package allocates more than blues/jsonata-go", p.name)
		}
	}
}

// bytesPerRun measures the bytes f allocates, averaged over 200 runs.
func bytesPerRun(f func()) int64 {
	f()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const runs = 200
	for range runs {
		f()
	}
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc-before.TotalAlloc) / runs
}
