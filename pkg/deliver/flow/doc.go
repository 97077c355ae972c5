// Package flow paces the publishes to each destination of the outbox
// poller, so that one slow or failing destination never holds back the
// others. A Gate per destination decides, before each publish, whether
// the destination can take a row now:
//
//  1. A pause that the destination asked for (a 429 or 503 with
//     Retry-After, a broker's refusal) has not ended: retry_after.
//  2. The circuit breaker is open, or half-open with its one probe in
//     flight: circuit_open.
//  3. maxInFlight publishes are under way and none ends within a short
//     wait: in_flight.
//  4. The token bucket of ratePerSecond is empty: rate.
//
// A refused row gets a Deferral, the time at which the destination is
// expected to take it; the poller writes the row back to pending for
// that time without spending an attempt. An admitted row gets a Permit,
// and the poller reports the publish's Result on it, which feeds the
// breaker and the pause.
//
// The state lives in the process: each replica has its own gates, so the
// totals of maxInFlight and ratePerSecond grow with the replicas, and a
// replica that restarts starts with a closed breaker.
package flow
