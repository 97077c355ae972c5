package main

import (
	"context"
	"strconv"
)

// poster sends the webhooks of the ingest loads to one queuebox-ingest.
//
// The default is the lean one (leanclient.go): each load client owns one
// raw-TCP HTTP/1.1 keep-alive connection and writes a pre-rendered
// request, because on the shared 2-core machine the clients' CPU is taken
// from queuebox-ingest and PostgreSQL, and it is the harness's cost, not
// QueueBox's. -http-stdlib selects net/http clients (stdclient.go) for
// comparison. Both send the same bytes that matter to the server: the
// same bodies and keys, and the header set of Go's client (Host,
// User-Agent, Content-Length, Content-Type, X-Signature when signed,
// Accept-Encoding), so queuebox-ingest stores the same rows either way.
type poster interface {
	// post sends the webhook of key with prefix to path on behalf of load
	// client number client; 202 (stored) and 200 (duplicate) succeed,
	// any other answer is an error.
	post(ctx context.Context, client int, path, prefix string, key int64, sign bool) error
	close()
}

// newPoster returns the poster of -http-stdlib for clients load clients
// against addr (host:port).
func newPoster(stdlib bool, addr string, clients int) poster {
	if stdlib {
		return newStdPoster(addr, clients)
	}
	return newLeanPoster(addr, clients)
}

// body is the small JSON webhook of key number key.
func body(prefix string, key int64) []byte { return appendBody(nil, prefix, key) }

// appendBody appends the webhook of key number key to dst:
// {"id":"<prefix><key>","type":"bench.created","customer":"cust-<key%1000>","amount":42}
func appendBody(dst []byte, prefix string, key int64) []byte {
	dst = append(dst, `{"id":"`...)
	dst = append(dst, prefix...)
	dst = strconv.AppendInt(dst, key, 10)
	dst = append(dst, `","type":"bench.created","customer":"cust-`...)
	dst = strconv.AppendInt(dst, key%1000, 10)
	return append(dst, `","amount":42}`...)
}
