package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// receiver is the demo destination of queuebox dev: it answers 200 to
// every request and prints "delivered <method> <path> <body>", the line
// the first tutorial shows, like the receiver of the Compose stack.
type receiver struct {
	srv  *http.Server
	ln   net.Listener
	wg   sync.WaitGroup
	out  io.Writer
	lock sync.Mutex
}

func startReceiver(addr string, out io.Writer) (*receiver, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("demo receiver on %s: %w", addr, err)
	}
	r := &receiver{ln: ln, out: out}
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		if err := r.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(out, "demo receiver stopped: %v\n", err)
		}
	}()
	return r, nil
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	r.lock.Lock()
	fmt.Fprintf(r.out, "receiver: delivered %s %s %s\n", req.Method, req.URL.Path, body)
	r.lock.Unlock()
	w.WriteHeader(http.StatusOK)
}

// stop ends the server and waits for its goroutine.
func (r *receiver) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = r.srv.Shutdown(ctx)
	r.wg.Wait()
}
