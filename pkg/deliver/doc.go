// Package deliver is the outbox poller of queuebox-deliver: it claims due
// rows, routes them by topic, runs the transforms, publishes them and
// writes each outcome with the claim fence. It takes its settings as
// Options and its routes and destinations as RouteSpec and
// DestinationSpec; the wiring maps the configuration onto them.
//
// One outbox row takes these steps, in this order. Each names the file
// and function where it happens, so that the path reads top to bottom:
//
//  1. Claim. The Poller is a claim.Loop over the outbox (poller.go,
//     NewPoller). Its source, laneSource.Claim (lanes.go), runs the
//     store's Claim (queries/outbox_claim.sql of each store): due rows go
//     to processing under a new claim token and lease, the head of each
//     lane and rows without a key. The loop renews the leases of the rows
//     in work and reclaims the expired ones (package claim).
//  2. Route and lanes. A keyed row gets its destination soon after it is
//     written, before its claim (keyRouter in lanes.go: the store's
//     Unrouted, then Assign), so that the claim keeps each lane, a key
//     and a destination, in order. A claimed row without a key whose
//     route names several destinations is fanned out at its claim
//     (laneSource.fanOutClaimed). Poller.handle (deliver.go) then runs
//     attempt, whose prepare step finds the row's target (resolve, over
//     Router.Match of router.go): no route, or a route that no longer
//     sends the row where it was routed, makes it dead; a fan-out still
//     to be written defers it. A destination without a publisher, or
//     headers that the store could not decode, make it dead too.
//  3. Flow control. prepare asks the destination's gate for a permit
//     (admit; package flow). A row the destination cannot take now (a
//     pause it asked for, an open breaker, maxInFlight, the rate) is
//     deferred without spending an attempt, and the destination's other
//     due rows move to the end of the pause (postpone.go).
//  4. Transform. transform runs the route's, then the destination's
//     JSONata transform (Transforms.Apply in transforms.go). A failure
//     follows the stage's onError: Skip sends the stage's input, Fail is
//     a failed attempt, Dead makes the row dead.
//  5. Publish. prepare checks last that enough of the lease is left
//     (claim.Loop.Live); when it is not, nothing is sent and the row
//     waits for its lease to end. publish hands the queuebox.Delivery to
//     the destination's queuebox.Publisher (package broker's httpdest,
//     rabbitmq, kafka and nats). release ends the permit, the only place
//     that does, with what the publish did, which feeds the gate's
//     breaker and pause; a publish that reached nothing (a blocked
//     connection) becomes a deferral like one of the gate's.
//  6. Outcome and finish. handle hands the outcome (sent, retry, dead or
//     deferred) to the finisher (finisher.go), which writes the outcomes
//     waiting at that moment in one fenced statement (the store's Finish,
//     queries/outbox_finish.sql; FinishAgain for a later try), and
//     finished counts and logs what the write kept. The outcome carries
//     the facts of the attempt (when the publish started, how long it
//     took, the destination's receipt, the failure's class; completed by
//     facts in ledger.go), which the same statement records in the
//     delivery ledger for each row whose fence held. When the row's
//     context ended first (its lease lost or about to end, or the
//     shutdown timeout), handle writes nothing and the reclaim returns
//     the row to pending once its lease runs out.
//  7. Retry or dead. failure is the one place that decides a failed
//     attempt: a retry after RetryDelay (doubling from RetryBaseDelay,
//     with jitter, at most MaxRetryDelay) until the row's max_attempts,
//     then dead. An undeliverable row (queuebox.ErrUndeliverable) is dead
//     at once, and a deferral spends no attempt. lastError redacts and
//     cuts the text that reaches last_error and the logs.
//
// The gauges (gauges.go) and the metrics (metrics.go) watch from the
// side; they decide nothing.
package deliver
