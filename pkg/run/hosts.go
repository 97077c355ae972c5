package run

import (
	"net"
	"net/http"
	"strings"

	"github.com/labstack/echo/v4"
)

// allowHosts answers 421 Misdirected Request to every request whose Host
// header names a host outside allowed (server.allowedHosts), port aside
// and in any letter case, before any route runs; the /health probes
// always answer. A web page that reaches QueueBox through DNS rebinding
// sends its own host name, so it gets no admin route, inbox or metric. An
// empty allowed lets every host in.
func allowHosts(allowed []string) echo.MiddlewareFunc {
	set := map[string]bool{}
	for _, h := range allowed {
		set[canonicalHost(h)] = true
	}
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		if len(set) == 0 {
			return next
		}
		return func(c echo.Context) error {
			r := c.Request()
			// The probes read no data and change nothing, and a kubelet
			// sends the pod's address as Host.
			if !set[canonicalHost(hostOnly(r.Host))] && !strings.HasPrefix(r.URL.Path, "/health") {
				return c.JSON(http.StatusMisdirectedRequest,
					map[string]string{"error": "The Host header names a host that server.allowedHosts does not list"})
			}
			return next(c)
		}
	}
}

// hostOnly drops the port of a Host header value.
func hostOnly(hostport string) string {
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		return host
	}
	return hostport
}

// canonicalHost is h in lower case without the brackets of an IPv6
// literal or a final dot.
func canonicalHost(h string) string {
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	return strings.TrimSuffix(strings.ToLower(h), ".")
}
