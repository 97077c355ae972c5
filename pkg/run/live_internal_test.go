package run

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/health"
)

// While the process drains at shutdown, /health/live still answers 200
// (the HTTP API: liveness "always answers 200"), and readiness answers
// 503, on whichever port serves the health routes.
func TestLivenessAnswers200WhileDraining(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		management bool
	}{{"data port", false}, {"management port", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := config.Default()
			cfg.Server.HTTPPort = 0
			if tc.management {
				port := 0
				cfg.Server.ManagementPort = &port
			}
			app := &App{Config: &cfg, Log: quietInternal(), Registry: prometheus.NewRegistry(), Health: health.New()}
			servers := newServers(app, "127.0.0.1")
			// A request in flight on the health port holds the drain open.
			entered, release := make(chan struct{}), make(chan struct{})
			var once sync.Once
			open := func() { once.Do(func() { close(release) }) }
			t.Cleanup(open)
			app.Management.GET("/slow", func(c echo.Context) error {
				close(entered)
				<-release
				return c.String(http.StatusOK, "done")
			})
			for _, s := range servers {
				require.NoError(t, s.Listen())
			}
			base := "http://" + servers[len(servers)-1].Addr()

			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			comp := fakeComponent{name: "outbox-poller", run: func(ctx context.Context) error { <-ctx.Done(); return nil }}
			result := make(chan error, 1)
			go func() { result <- serve(ctx, quietInternal(), servers, []Component{comp}) }()

			c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 30 * time.Second}
			get := func(path string) (int, string) {
				resp, err := c.Get(base + path)
				if err != nil {
					return 0, err.Error()
				}
				defer resp.Body.Close()
				b, _ := io.ReadAll(resp.Body)
				return resp.StatusCode, strings.TrimSpace(string(b))
			}
			slow := make(chan int, 1)
			go func() { code, _ := get("/slow"); slow <- code }()
			<-entered

			cancel()
			require.Eventually(t, func() bool {
				code, _ := get("/health/ready")
				return code == http.StatusServiceUnavailable
			}, 10*time.Second, 5*time.Millisecond, "readiness turns 503 during the drain")
			code, body := get("/health/live")
			require.Equal(t, http.StatusOK, code, body)
			require.JSONEq(t, `{"status":"healthy","components":{"process":{"status":"up"}}}`, body)

			open()
			require.Equal(t, http.StatusOK, <-slow)
			select {
			case err := <-result:
				require.NoError(t, err)
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not return after the drain")
			}
		})
	}
}
