package main

import (
	"net"
	"sync/atomic"
	"time"
)

// receiver is the loopback HTTP destination of the delivery scenarios:
// it reads each request body, answers 200 (at once, or after a set
// delay that stands for a real endpoint's work) and counts. It does as
// little as a server can, so it is not the limit of a delivery benchmark.
// The scenarios only count requests (and note when the first arrived);
// none looks at the message ids.
//
// The default server is the lean one (leanreceiver.go), because on the
// shared 2-core machine the receiver's CPU is taken from queuebox-deliver
// and PostgreSQL; -http-stdlib selects the net/http one
// (stdreceiver.go) for comparison.
type receiver struct {
	URL   string
	count atomic.Int64
	first atomic.Int64 // UnixNano of the first request since reset; 0 before
	// delay is how long each answer waits (time.Duration); connections
	// wait in parallel, so a delay bounds a client's rate by its
	// concurrency, not the receiver's.
	delay atomic.Int64
	stop  func() error
}

func newReceiver(stdlib bool) (*receiver, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	rc := &receiver{URL: "http://" + l.Addr().String()}
	if stdlib {
		rc.stop = serveStdlib(l, rc)
	} else {
		rc.stop = serveLean(l, rc)
	}
	return rc, nil
}

// hit counts one request whose body was read.
func (rc *receiver) hit() {
	if rc.first.Load() == 0 {
		rc.first.CompareAndSwap(0, time.Now().UnixNano())
	}
	rc.count.Add(1)
}

// answerDelay waits the set delay, if any, before an answer.
func (rc *receiver) answerDelay() {
	if d := time.Duration(rc.delay.Load()); d > 0 {
		time.Sleep(d)
	}
}

// reset zeroes the counters between runs.
func (rc *receiver) reset() {
	rc.count.Store(0)
	rc.first.Store(0)
}

// started reports whether a request arrived since the last reset.
func (rc *receiver) started() bool { return rc.first.Load() != 0 }

// close stops the server and closes its connections.
func (rc *receiver) close() { _ = rc.stop() }

// destinationEnv routes every topic to the receiver over HTTP and gives
// the poller the benchmark settings.
func (rc *receiver) destinationEnv(o opts) map[string]string {
	return map[string]string{
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE":    "http",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL": rc.URL,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_PATH":    "/webhook",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN":        "**",
		"QUEUEBOX_ROUTES_0_DESTINATION":         "webhook",
		"QUEUEBOX_OUTBOX_CONCURRENCY":           itoa(o.concurrency),
		"QUEUEBOX_OUTBOX_BATCHSIZE":             itoa(o.batchSize),
		"QUEUEBOX_OUTBOX_POLLINTERVALMS":        itoa(o.pollMs),
	}
}
