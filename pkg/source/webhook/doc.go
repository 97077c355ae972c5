// Package webhook is the HTTP inbox source: one POST route per source of
// kind http, at inbox.basePath followed by the path of the source. Each
// route stores a received webhook once per (source, idempotency key),
// through the transport-neutral receive step of package ingest.
//
// A request runs these steps, in this order, and the first one that
// decides answers:
//
//  0. The rate limit of the source (rateLimit.requestsPerMinute): 429 with
//     Retry-After and no body. It runs before the body is read, so a
//     source over its limit costs neither a body read nor a database
//     write, which is what the limit protects. (A declared Content-Length
//     above the cap is answered 413 even earlier, by the data port
//     middleware, and spends no token.)
//     The headers that the row would store are then held to
//     MaxStoredHeaders and MaxStoredHeaderBytes: 431, before the body.
//  1. The body is read under inbox.maxBodyBytes, counting the bytes of a
//     chunked body as they arrive: 413. A bearer or api-key source checks
//     its credentials (step 2) before this read, since they need the
//     headers only; an hmac source and the
//     provider presets sign the body and keep this order.
//  2. The credentials of the auth block: 401 naming the failed check. A
//     provider preset (stripe, github, shopify, slack, standard-webhooks)
//     verifies the provider's signature here; Slack's url_verification
//     request is then answered 200 {"challenge": ...} and not stored.
//  3. The header filter: 202 {"status":"filtered"}, no row.
//  4. The X-Correlation-Id response header is set.
//  5. The body is parsed as JSON whatever Content-Type says: 400.
//  6. The idempotency key (required), event type and aggregate identifier
//     are extracted with their definite JSONPaths: 400 naming the path.
//  7. The source transform, when one is configured: 422 for Fail and Dead,
//     the original body for Skip.
//  8. The row is stored. The unique constraint decides: 202 with the new
//     row id, 200 {"status":"duplicate"}, or 500 when the write fails. A
//     value the database refuses for what it is (a data exception, such
//     as a number outside the numeric range) gets 400 instead, because it
//     would fail on every try.
//
// Steps 0 to 2 and 4 are HTTP's own (Handler). Steps 3 and 5 to 8 are
// ingest.Receiver.Receive, which the broker sources share; Handler maps
// its Decision to the answer above.
//
// The transform runs before the duplicate check, so every 4xx answer is a
// function of the request alone and does not change when a sender repeats
// it (apart from 429 and an HMAC timestamp that ages out).
//
// Received headers are kept one value per name (the last one), under the
// lower-case name, both in the headers column and in $headers of the
// source transform; the Host header is included. Authorization,
// Proxy-Authorization, Cookie and the header that the auth block reads its
// credential from are never stored.
package webhook
