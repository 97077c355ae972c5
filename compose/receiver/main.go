// Command receiver is the demo HTTP destination of the local stack and the
// Compose stack: it answers 200 to every request and logs one line per
// request, "delivered <method> <path> <body>", the line the first
// tutorial shows. With -headers (RECEIVER_HEADERS=1) the QueueBox headers
// follow on a line of their own.
package main

import (
	"flag"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

// queueboxHeaders are the headers the -headers line shows.
var queueboxHeaders = []string{"X-Message-Id", "X-Topic", "X-Attempt", "X-Message-Key", "X-Source", "X-Idempotency-Key"}

func main() {
	addr := flag.String("addr", envOr("RECEIVER_ADDR", ":8080"), "listen address")
	headers := flag.Bool("headers", os.Getenv("RECEIVER_HEADERS") == "1", "also log the QueueBox headers of each request")
	flag.Parse()
	// docker compose logs and the local stack add their own prefix.
	logger := log.New(os.Stdout, "", 0)
	logger.Printf("receiver listening on %s", strings.TrimPrefix(*addr, ":"))
	logger.Fatal(http.ListenAndServe(*addr, handler(logger, *headers)))
}

// handler answers 200 to every request and logs it.
func handler(logger *log.Logger, headers bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		logger.Printf("delivered %s %s %s", r.Method, r.URL.Path, body)
		if headers {
			logger.Printf("  headers %s", headerLine(r.Header))
		}
		w.WriteHeader(http.StatusOK)
	}
}

func headerLine(h http.Header) string {
	var tags []string
	for _, name := range queueboxHeaders {
		if v := h.Get(name); v != "" {
			tags = append(tags, name+"="+v)
		}
	}
	return strings.Join(tags, " ")
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
