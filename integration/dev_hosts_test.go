package integration

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// devToken finds the admin token that queuebox dev printed.
var devToken = regexp.MustCompile(`Admin token of this run: (\S+)`)

// TestDevGuardsAdminWithATokenOfTheRunAndLoopbackHosts: queuebox dev no
// longer opens its admin routes to the fixed demo-admin-token, but to a
// token printed in its banner, and it answers 421 to a request whose Host
// is not a loopback name, as a page that reached it by DNS rebinding
// sends.
func TestDevGuardsAdminWithATokenOfTheRunAndLoopbackHosts(t *testing.T) {
	t.Parallel()
	port, receiverPort := freePort(t), freePort(t)
	p := start(t, "queuebox", nil, "dev", "--http-port", fmt.Sprint(port), "--receiver-port", fmt.Sprint(receiverPort))
	p.port = port
	p.waitHTTP(t, "/health/ready", http.StatusOK)
	var m []string
	require.Eventually(t, func() bool { m = devToken.FindStringSubmatch(p.out.String()); return m != nil },
		30*time.Second, 20*time.Millisecond, "the banner names the token")
	token := m[1]

	whoami := func(host, bearer string) int {
		req, err := http.NewRequest(http.MethodGet, p.url("/admin/whoami"), nil)
		require.NoError(t, err)
		if host != "" {
			req.Host = host
		}
		req.Header.Set("Authorization", "Bearer "+bearer)
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		require.NoError(t, resp.Body.Close())
		return resp.StatusCode
	}
	require.Equal(t, http.StatusUnauthorized, whoami("", "demo-admin-token"))
	require.Equal(t, http.StatusOK, whoami("", token))
	require.Equal(t, http.StatusOK, whoami(fmt.Sprintf("localhost:%d", port), token))
	require.Equal(t, http.StatusMisdirectedRequest, whoami(fmt.Sprintf("rebind.attacker.example:%d", port), token))
	require.Equal(t, http.StatusMisdirectedRequest, whoami("rebind.attacker.example", "demo-admin-token"))
}
