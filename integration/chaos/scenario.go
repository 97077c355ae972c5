package chaos

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"
)

// Scenario describes one run: the replicas of each role, the faults it
// may draw, and how it feeds messages in.
type Scenario struct {
	Name string
	// Roles lists the replicas to start, in start order (the first one
	// migrates the schema).
	Roles []string
	// Choices are the faults a step may draw (Delivered and Pick are
	// drawn by Plan).
	Choices []Step
	// ShortMessages and ShortFaults are the size of the short run.
	ShortMessages, ShortFaults int
	// Lease is the claim timeout of the outbox and the relay.
	Lease time.Duration
	// Inbox runs the webhook path: the poster feeds ingest, and the
	// inbox checks run. Otherwise a producer writes outbox rows.
	Inbox bool
	// Sources are inbox sources fed by the producer's own messages
	// through brokers: each gets the inbox checks against every produced
	// message.
	Sources []string
	// Bound, when set, is the time within which every message must reach
	// the receiver after it was produced; a later first delivery counts
	// as late.
	Bound time.Duration
	// Fanout, when set, routes every row through one `destinations:` route
	// to each of its destinations (one receiver path each) instead of to
	// the one webhook destination: the ledger then expects each message at
	// every destination, judges order per lane (key and destination), and
	// every delivery must carry the id of the row the application wrote.
	Fanout *Fanout
	// RepeatsInPlace judges every delivery of a lane, repeats included
	// (see Ledger.RepeatsInPlace): only for scenarios whose faults end a
	// process, never ones that pause it.
	RepeatsInPlace bool
	// Rate, when set, paces the producer to that many messages a second.
	// A latency bound holds only below what the replicas can deliver: a
	// producer that outruns them builds a backlog, and every message
	// behind it is late by the backlog, not by a fault.
	Rate int
	// Database creates the scenario's database; nil creates it on the
	// shared server.
	Database func(t testing.TB) *Database
	// Inject runs a step whose Kind the fleet does not know itself.
	Inject func(r *Run, s Step)
	// Env adds settings to the processes of a role; AfterFirst runs once
	// the first process (which migrates) is up.
	Env        func(role string) map[string]string
	AfterFirst func(r *Run)
}

// Run is a scenario in progress.
type Run struct {
	T      testing.TB
	DB     *Database
	Ledger *Ledger
	Fleet  *Fleet
	Lease  time.Duration
}

// hookSource is the webhook source of the inbox scenarios.
const hookSource = "hooks"

// env is the configuration every process of a scenario shares.
func (sc Scenario) env(db *Database, receiver, name string) map[string]string {
	env := db.Env(name)
	lease := fmt.Sprint(sc.Lease.Milliseconds())
	for k, v := range map[string]string{
		"QUEUEBOX_ROUTES_0_TOPICPATTERN":            "**",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS":            "20",
		"QUEUEBOX_OUTBOX_CONCURRENCY":               "8",
		"QUEUEBOX_OUTBOX_RETRYBASEDELAYMS":          "50",
		"QUEUEBOX_OUTBOX_CLAIMTIMEOUTMS":            lease,
		"QUEUEBOX_INBOX_RELAY_POLLINTERVALMS":       "20",
		"QUEUEBOX_INBOX_RELAY_CLAIMTIMEOUTMS":       lease,
		"QUEUEBOX_SOURCES_HOOKS_TYPE":               "http",
		"QUEUEBOX_SOURCES_HOOKS_PATH":               "/" + hookSource,
		"QUEUEBOX_SOURCES_HOOKS_IDEMPOTENCYKEYPATH": "$.id",
		"QUEUEBOX_SOURCES_HOOKS_AGGREGATEIDPATH":    "$.k",
		"QUEUEBOX_SOURCES_HOOKS_TOPIC":              "hooks.in",
	} {
		env[k] = v
	}
	dests := []string{"webhook"}
	if sc.Fanout != nil {
		dests = sc.Fanout.Destinations
		env["QUEUEBOX_ROUTES_0_DESTINATIONS"] = strings.Join(dests, ",")
	} else {
		env["QUEUEBOX_ROUTES_0_DESTINATION"] = "webhook"
	}
	for _, dest := range dests {
		prefix := "QUEUEBOX_DESTINATIONS_" + strings.ToUpper(dest) + "_"
		path := "/r/" + name
		if sc.Fanout != nil {
			path += "/" + dest
		}
		env[prefix+"TYPE"] = "http"
		env[prefix+"BASEURL"] = receiver
		env[prefix+"PATH"] = path
		// The receiver fails some requests on purpose; the breaker would
		// pause a replica for 30 s after a few in a row.
		env[prefix+"FLOWCONTROL_CIRCUITBREAKER_FAILURETHRESHOLD"] = "100000"
	}
	return env
}

// Execute runs the scenario: it starts the fleet, feeds the messages,
// plays the seeded schedule, waits for quiet and reports the checks.
func Execute(t *testing.T, sc Scenario) Result {
	started, commit := time.Now(), Commit()
	seed := Seed(t)
	size := SizeFor(t, sc.ShortMessages, sc.ShortFaults)
	t.Logf("%s: seed %d (CHAOS_SEED=%d replays the schedule), %d messages, %d faults", sc.Name, seed, seed, size.Messages, size.Faults)
	newDB := sc.Database
	if newDB == nil {
		newDB = func(t testing.TB) *Database { return NewDatabase(t, SharedServer()) }
	}
	r := &Run{T: t, DB: newDB(t), Ledger: NewLedger(0.02, NewRand(seed+100)), Lease: sc.Lease}
	if sc.Fanout != nil {
		r.Ledger.Fanout(*sc.Fanout)
	}
	if sc.RepeatsInPlace {
		r.Ledger.RepeatsInPlace()
	}
	// The faults fall at points of the deliveries: one per message and
	// destination.
	deliveries := size.Messages * r.Ledger.Destinations()
	steps := Plan(NewRand(seed), deliveries, size.Faults, sc.Choices)
	receiver := r.Ledger.Receiver(t)
	t.Cleanup(func() {
		if t.Failed() {
			r.logStates()
		}
	})
	r.Fleet = NewFleet(t, r.Ledger, func(role, name string) map[string]string {
		env := sc.env(r.DB, receiver, name)
		if sc.Env != nil {
			maps.Copy(env, sc.Env(role))
		}
		return env
	})
	for i, role := range sc.Roles {
		r.Fleet.Start(role)
		if i == 0 && sc.AfterFirst != nil {
			sc.AfterFirst(r)
		}
	}
	fed := make(chan error, 1)
	var poster *Poster
	if sc.Inbox {
		poster = &Poster{Ledger: r.Ledger, URL: func(n int) string {
			return r.Fleet.Pick("ingest", n).URL("/inbox/" + hookSource)
		}}
		t.Cleanup(func() { keepLog(t, "poster-answers", poster.Answers()) })
		go func() { fed <- poster.Run(seed, size.Messages, 8, 10) }()
	} else {
		go func() { fed <- ProduceOutbox(r.DB, r.Ledger, size.Messages, 40, sc.Rate) }()
	}
	budget := 3*time.Minute + time.Duration(deliveries)*10*time.Millisecond
	for i, s := range steps {
		WaitFor(t, budget, fmt.Sprintf("step %d: %d messages delivered", i, s.Delivered), func() bool {
			return r.Ledger.Delivered() >= s.Delivered
		})
		r.inject(sc, s)
	}
	if err := <-fed; err != nil {
		t.Fatalf("feeding the messages: %v", err)
	}
	r.T.Logf("every message fed and every fault injected after %v", time.Since(started).Round(time.Millisecond))
	r.quiet(budget)
	res := Result{Scenario: sc.Name, Seed: seed, Size: size.Name, Commit: commit}
	if len(sc.Sources) > 0 {
		r.Ledger.RankBy(InboxRank(t, r.DB, sc.Sources[0]))
	}
	r.Ledger.Check(&res, sc.Lease)
	if res.OutOfOrder > 0 {
		ExplainDisorder(t, r.DB, r.Ledger)
	}
	t.Logf("receiver: %s", r.Ledger.Answers())
	for _, pair := range r.Ledger.unexplained {
		t.Logf("duplicate after no fault: %s%s first from %s at %s, again from %s at %s", pair[0].ID,
			destSuffix(pair[0].Dest), pair[0].Replica, pair[0].At.Format("15:04:05.000"), pair[1].Replica, pair[1].At.Format("15:04:05.000"))
	}
	for _, f := range r.Ledger.faults {
		// How long a fault lasted against the lease tells which of its
		// duplicates no replica could avoid.
		t.Logf("fault %s on %q at %s for %v", f.Kind, f.Target, f.At.Format("15:04:05.000"),
			f.End.Sub(f.At).Round(time.Millisecond))
	}
	if sc.Fanout != nil {
		r.Ledger.CheckMessageIDs(WrittenIDs(t, r.DB), &res)
	}
	if sc.Inbox {
		CheckInbox(t, r.DB, hookSource, poster.Accepted(), &res)
		res.InboxNotOne += poster.Restored
	}
	for _, source := range sc.Sources {
		CheckInbox(t, r.DB, source, r.Ledger.ProducedIDs(), &res)
		reordered := StoredOutOfOrder(t, r.DB, source)
		t.Logf("inbox rows of source %s stored out of key order: %d", source, reordered)
		if source == sc.Sources[0] {
			// The later sources inherit this hop's order; the order
			// check judges every hop after it.
			res.BrokerReordered = reordered
		}
	}
	if sc.Bound > 0 {
		var worst time.Duration
		res.Late, worst = r.Ledger.Late(sc.Bound)
		t.Logf("slowest first delivery %v after its message was produced (bound %v)", worst.Round(time.Millisecond), sc.Bound)
	}
	Report(t, res, started)
	return res
}

// destSuffix names a fan-out destination in a log line.
func destSuffix(dest string) string {
	if dest == "" {
		return ""
	}
	return " to " + dest
}

// inject plays one step.
func (r *Run) inject(sc Scenario, s Step) {
	r.T.Helper()
	switch s.Kind {
	case "kill":
		r.Fleet.Kill9(r.Fleet.Pick(s.Role, s.Pick))
	default:
		if sc.Inject == nil {
			r.T.Fatalf("no injector for %q", s.Kind)
		}
		sc.Inject(r, s)
	}
	r.T.Logf("%s %s at %d delivered", s.Kind, s.Role, r.Ledger.Delivered())
}

// quiet waits until every message reached the receiver and no outbox or
// inbox row is left to work on.
func (r *Run) quiet(budget time.Duration) {
	r.T.Helper()
	WaitFor(r.T, budget, "every message delivered and both tables settled", func() bool {
		if gone := r.Fleet.Revive(); len(gone) > 0 {
			r.T.Logf("exited on their own and started again: %v", gone)
		}
		if !r.Ledger.AllDelivered() {
			return false
		}
		n, err := r.DB.TryCount(`SELECT (SELECT count(*) FROM outbox WHERE state IN ('pending', 'processing'))
			+ (SELECT count(*) FROM inbox WHERE state IN ('pending', 'processing'))`)
		return err == nil && n == 0
	})
}

// logStates logs how many outbox and inbox rows each state holds, for a
// failed run: a dead row is a message that will not arrive.
func (r *Run) logStates() {
	for _, table := range []string{"outbox", "inbox"} {
		rows, err := r.DB.Pool.Query(context.Background(), "SELECT state, count(*) FROM "+table+" GROUP BY 1 ORDER BY 1")
		if err != nil {
			r.T.Logf("%s rows by state: %v", table, err)
			continue
		}
		var states []string
		for rows.Next() {
			var state string
			var n int
			if rows.Scan(&state, &n) == nil {
				states = append(states, fmt.Sprintf("%s %d", state, n))
			}
		}
		rows.Close()
		r.T.Logf("%s rows by state: %v", table, states)
	}
}
