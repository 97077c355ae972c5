package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
)

// healthCmd asks the health route once and exits 0 on a 2xx answer and 1
// on any other answer or none, so a container's HEALTHCHECK needs no curl.
func healthCmd(args []string, stdout, stderr io.Writer) int {
	b := run.Binary{Name: name + " health", About: "queuebox health probes the health route of a running QueueBox once.\n" +
		"It exits 0 when the route answers 2xx and 1 otherwise. Without --url it asks\n" +
		"/health on 127.0.0.1 at server.managementPort when set, else server.httpPort,\n" +
		"read from the same configuration as the server."}
	flags := run.NewFlagSet(b.Name, stderr)
	url := flags.String("url", "", "the URL to ask (default: /health on the management or data port of the configuration)")
	timeout := flags.Duration("timeout", 5*time.Second, "how long to wait for the answer")
	if code, stop := run.Parse(flags, b, args, stdout); stop {
		return code
	}
	if *url == "" {
		*url = defaultHealthURL()
	}
	code, err := probe(*url, *timeout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %s: %v\n", b.Name, *url, err)
		return 1
	}
	if code < 200 || code > 299 {
		fmt.Fprintf(stderr, "%s: %s answered %d\n", b.Name, *url, code)
		return 1
	}
	fmt.Fprintf(stdout, "%s answered %d\n", *url, code)
	return 0
}

// probe returns the status code of one GET of url.
func probe(url string, timeout time.Duration) (int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, nil
}

// errNoLookup keeps the probe off the network while it reads the
// configuration: a destination host it cannot resolve changes nothing of
// the ports.
var errNoLookup = errors.New("the health probe resolves no host")

// defaultHealthURL is /health on the port that serves it: the management
// port when the configuration sets one, else the data port. A
// configuration that does not load gives the default data port.
func defaultHealthURL() string {
	port := config.Default().Server.HTTPPort
	cfg, err := config.Load(config.Options{LookupHost: func(context.Context, string) ([]net.IP, error) {
		return nil, errNoLookup
	}})
	if err == nil {
		port = cfg.Server.HTTPPort
		if cfg.Server.ManagementPort != nil {
			port = *cfg.Server.ManagementPort
		}
	}
	return "http://" + net.JoinHostPort("127.0.0.1", strconv.Itoa(port)) + "/health"
}
