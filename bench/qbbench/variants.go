package main

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// variantFigures are one inbox server's results over the four ingest
// variants, each field in ingestVariants order: the load, and per request
// the server process's CPU, this process's (the load clients) and every
// postgres process's.
type variantFigures struct {
	res                 []loadResult
	cpu, loadCPU, dbCPU []time.Duration
}

// measureVariants drives the four variants against the server p behind
// pp, in an order that rotates with run so that no variant always comes
// first, and truncates the inbox after each. tag prefixes the keys of the
// run; who names the server in errors. logged reports each variant once
// measured. An error leaves p running: the caller stops it.
func (b *bench) measureVariants(ctx context.Context, run int, p *proc, pp poster, tag, who string,
	truncate func() error, logged func(vi int, f variantFigures)) (variantFigures, error) {
	n := len(ingestVariants)
	f := variantFigures{res: make([]loadResult, n), cpu: make([]time.Duration, n),
		loadCPU: make([]time.Duration, n), dbCPU: make([]time.Duration, n)}
	for k := range ingestVariants {
		vi := (k + run) % n
		v := ingestVariants[vi]
		prefix := fmt.Sprintf("r%d-%s-%v-", run, tag, v.dup)
		path := "/inbox/bench"
		if v.hmac {
			path = "/inbox/signed"
		}
		l := load{clients: b.o.clients, warmup: b.o.ingestWarmup, measure: b.o.ingestTime, dup: v.dup}
		cpu0, self0, db0 := p.cpuTime(), selfCPU(), commandsCPU("postgres")
		res := l.run(ctx, func(ctx context.Context, client int, key int64) error {
			return pp.post(ctx, client, path, prefix, key, v.hmac)
		})
		sent := time.Duration(max(res.Sent, 1))
		f.cpu[vi] = (p.cpuTime() - cpu0) / sent
		f.loadCPU[vi] = (selfCPU() - self0) / sent
		f.dbCPU[vi] = (commandsCPU("postgres") - db0) / sent
		if err := errors.Join(res.check(who+", "+v.name), p.exited(), truncate()); err != nil {
			return f, err
		}
		f.res[vi] = res
		logged(vi, f)
	}
	return f, nil
}
