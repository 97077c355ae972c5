package metrics

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"
)

// Register registers c on reg and returns it. When reg already holds an
// equal collector of the same type (same name, help and labels: another
// component of the process registered the family first), Register
// returns that one instead, so every component counts into one family.
// Any other refusal, such as a collector of the same name with another
// help or label set, comes back as the error with c. A nil reg registers
// nothing and returns c.
//
// Register is as safe for concurrent use as reg is.
func Register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	if reg == nil {
		return c, nil
	}
	err := reg.Register(c)
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// MustRegister is Register for families whose definition is fixed in the
// code: it panics, as prometheus.MustRegister does, where Register would
// return an error.
func MustRegister[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	c, err := Register(reg, c)
	if err != nil {
		panic(err)
	}
	return c
}
