package main

import (
	"context"
	"fmt"
	"time"
)

// signingEnv gives the bench destination a signing block with a current
// and a previous key, so every delivery computes two HMACs, a rotation's
// worst case short of more previous keys.
var signingEnv = map[string]string{
	"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_SECRET":            "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
	"QUEUEBOX_DESTINATIONS_WEBHOOK_SIGNING_PREVIOUSSECRETS_0": "whsec_cHJldmlvdXMta2V5LW9mLXRoZS1yb3RhdGlvbi0wMQ==",
}

// signing measures what Standard Webhooks signing costs per delivery:
// unsigned and signed queuebox-deliver drains of -deliver-rows null-key
// rows, alternated run by run on fresh databases. The row passes when
// the signed rate is within 10 % of the unsigned one, about the run to
// run spread of the deliver rows on this machine.
func (b *bench) signing(ctx context.Context) error {
	var plain, signed []drain
	for i := range b.o.runs {
		p, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1)
		if err != nil {
			return fmt.Errorf("unsigned: %w", err)
		}
		s, err := b.deliverDrain(ctx, b.o.deliverRows, 0, 1, signingEnv)
		if err != nil {
			return fmt.Errorf("signed: %w", err)
		}
		plain, signed = append(plain, p), append(signed, s)
		logf("signing run %d: unsigned %.0f rows/s (CPU %v/row), signed %.0f rows/s (CPU %v/row)",
			i+1, p.Rate, p.CPUPerRow, s.Rate, s.CPUPerRow)
	}
	b.rep.add(vsBaseline(fmt.Sprintf("deliver signed (2 keys) vs unsigned, %s rows", group(int64(b.o.deliverRows))),
		median(drainRates(signed)), median(drainRates(plain)), "rows/s", "rows/s", 0.90,
		fmt.Sprintf("runs %s vs %s; signed CPU %s/row, unsigned %s/row", rates(drainRates(signed)), rates(drainRates(plain)),
			medianCPU(signed), medianCPU(plain))))
	return nil
}

// medianCPU is the median deliver CPU per row of ds.
func medianCPU(ds []drain) time.Duration {
	us := make([]float64, len(ds))
	for i, d := range ds {
		us[i] = float64(d.CPUPerRow)
	}
	return time.Duration(median(us)).Round(time.Microsecond)
}
