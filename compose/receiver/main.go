// Command receiver is the demo HTTP destination of the local stack and the
// Compose stack: it answers 200 to every request and logs the method, the
// path, the QueueBox headers and the body of each one.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"
)

func main() {
	addr := flag.String("addr", envOr("RECEIVER_ADDR", ":8080"), "listen address")
	flag.Parse()
	http.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		var tags []string
		for _, h := range []string{"X-Message-Id", "X-Topic", "X-Attempt", "X-Message-Key", "X-Source", "X-Idempotency-Key"} {
			if v := r.Header.Get(h); v != "" {
				tags = append(tags, h+"="+v)
			}
		}
		log.Printf("delivered %s %s %s %s", r.Method, r.URL.Path, strings.Join(tags, " "), body)
		w.WriteHeader(http.StatusOK)
	})
	fmt.Fprintf(os.Stderr, "receiver listening on %s\n", *addr)
	log.Fatal(http.ListenAndServe(*addr, nil))
}

func envOr(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}
