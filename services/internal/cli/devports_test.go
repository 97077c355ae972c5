package cli

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestDevNamesATakenPortBeforeItStarts: each port dev will listen on is
// checked before the cluster exists, and a taken one (or one named
// twice) is named with the flag, variable or key that chose it.
func TestDevNamesATakenPortBeforeItStarts(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { _ = ln.Close() })
	taken := ln.Addr().(*net.TCPAddr).Port
	ports := freeLoopback(t, 2)
	free, other := ports[0], ports[1]

	err = devPorts{data: devPort{taken, "--http-port"}, receiver: devPort{free, "--receiver-port"}}.check()
	require.ErrorContains(t, err, "is taken")
	require.ErrorContains(t, err, "(--http-port)")
	require.ErrorContains(t, err, net.JoinHostPort("127.0.0.1", itoa(taken)))

	err = devPorts{data: devPort{free, "--http-port"}, receiver: devPort{other, "--receiver-port"},
		management: &devPort{taken, "server.managementPort of my.yml"}}.check()
	require.ErrorContains(t, err, "(server.managementPort of my.yml) is taken")

	err = devPorts{data: devPort{free, "--http-port"}, receiver: devPort{free, "--receiver-port"}}.check()
	require.ErrorContains(t, err, "is named by both --http-port and --receiver-port")
}

// TestDevPlansThePortsOfItsConfiguration: the ports come from the
// configuration dev writes, with a --config file's management port.
func TestDevPlansThePortsOfItsConfiguration(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "my.yml")
	require.NoError(t, os.WriteFile(file, []byte("server:\n  managementPort: 9191\n"), 0o600))
	p, err := planPorts(devFlags{httpPort: 8181, receiverPort: 9998, config: file, adminToken: newDevToken()})
	require.NoError(t, err)
	require.Equal(t, devPort{8181, "--http-port"}, p.data)
	require.Equal(t, devPort{9998, "--receiver-port"}, p.receiver)
	require.Equal(t, &devPort{9191, "server.managementPort of " + file}, p.management)
	require.Equal(t, 9191, p.operational(), "health, metrics and admin move to the management port")

	require.NoError(t, os.WriteFile(file, []byte("server:\n  managementPort: many\n"), 0o600))
	_, err = planPorts(devFlags{httpPort: 8181, receiverPort: 9998, config: file, adminToken: newDevToken()})
	require.ErrorAs(t, err, new(*configError), "a file that does not load stops dev before initdb, exit 2")
}

// TestDevBannerPointsTheCLIAtTheRun: the banner says how to point the
// operator commands at this run's database (its configuration file, or
// the URL and user without a password) and names doctor, dead, replay
// and the admin UI with its token.
func TestDevBannerPointsTheCLIAtTheRun(t *testing.T) {
	t.Parallel()
	ports := devPorts{data: devPort{8080, "--http-port"}, receiver: devPort{9999, "--receiver-port"}}
	text := devTry(54321, devFlags{httpPort: 8080, adminToken: "tok"}, ports, "/tmp/qb-dev", false)
	for _, want := range []string{
		"export QUEUEBOX_CONFIG_FILE=/tmp/qb-dev/queuebox.yml",
		"export QUEUEBOX_DATABASE_URL=jdbc:postgresql://127.0.0.1:54321/queuebox QUEUEBOX_DATABASE_USERNAME=postgres",
		" doctor ", " dead list ", " replay --topic 'order.*' --dry-run ",
		"Admin token of this run: tok (the UI: http://127.0.0.1:8080/admin/ui/)",
	} {
		require.Contains(t, text, want)
	}
	require.NotContains(t, text, "QUEUEBOX_DATABASE_PASSWORD")

	mgmt := 8090
	ports.management = &devPort{mgmt, "server.managementPort of my.yml"}
	text = devTry(54321, devFlags{httpPort: 8080, adminToken: "tok", config: "my.yml"}, ports, "/tmp/qb-dev", true)
	require.Contains(t, text, "the UI: http://127.0.0.1:8090/admin/ui/")
	require.Contains(t, text, "curl -s http://127.0.0.1:8090/health/ready")
}

// freeLoopback returns n distinct ports of 127.0.0.1 that were free a
// moment ago: all are held open until each is known.
func freeLoopback(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		defer ln.Close()
		ports = append(ports, ln.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func itoa(n int) string { return strconv.Itoa(n) }
