package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/transform"
)

// devPort is one port queuebox dev listens on, with the setting that
// chose it, so a taken port is named with what moves it.
type devPort struct {
	port int
	// setting is the flag, variable or key that set the port.
	setting string
}

// devPorts are the ports of one queuebox dev run on 127.0.0.1.
type devPorts struct {
	data, receiver devPort
	// management is nil unless the configuration sets
	// server.managementPort; the health, metrics and admin routes move
	// there.
	management *devPort
}

// operational is the port of the health, metrics and admin routes.
func (p devPorts) operational() int {
	if p.management != nil {
		return p.management.port
	}
	return p.data.port
}

// planPorts loads the configuration dev is about to write, with the
// QUEUEBOX_ variables over it as the roles will read it, and returns the
// ports it names: a variable may move the data port away from
// --http-port, and a --config file may add a management port. It runs
// before the cluster exists, so a configuration that does not load stops
// dev before initdb too.
func planPorts(f devFlags) (devPorts, error) {
	text, err := devConfig(f, 5432, os.TempDir())
	if err != nil {
		return devPorts{}, &configError{text: err.Error()}
	}
	const file = "queuebox-dev.yml (planned)"
	cfg, err := config.Load(config.Options{
		Environ: withConfigFile(os.Environ(), file),
		ReadFile: func(name string) ([]byte, error) {
			if name == file {
				return text, nil
			}
			return os.ReadFile(name)
		},
		CompileExpression: transform.Check,
		LookupHost:        func(context.Context, string) ([]net.IP, error) { return nil, errNoLookup },
	})
	if err != nil {
		return devPorts{}, &configError{text: config.FormatError(err)}
	}
	p := devPorts{
		data:     devPort{cfg.Server.HTTPPort, settingOf("QUEUEBOX_SERVER_HTTPPORT", "--http-port")},
		receiver: devPort{f.receiverPort, "--receiver-port"},
	}
	if m := cfg.Server.ManagementPort; m != nil {
		p.management = &devPort{*m, settingOf("QUEUEBOX_SERVER_MANAGEMENTPORT", "server.managementPort of "+f.config)}
	}
	return p, nil
}

// settingOf names the variable when it is set (it wins over the file),
// else what sets the value otherwise.
func settingOf(variable, otherwise string) string {
	if v, ok := os.LookupEnv(variable); ok && v != "" {
		return variable
	}
	return otherwise
}

// check fails on the first port that is taken on 127.0.0.1, or named
// twice, naming the port and the setting that chose it. A port free now
// may be taken before dev binds it; the bind then fails, and the banner,
// printed only once every listener is up, never claims otherwise.
func (p devPorts) check() error {
	all := []devPort{p.data, p.receiver}
	if p.management != nil {
		all = append(all, *p.management)
	}
	for i, a := range all {
		for _, b := range all[:i] {
			if a.port == b.port {
				return fmt.Errorf("port %d is named by both %s and %s; give each its own", a.port, b.setting, a.setting)
			}
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(a.port)))
		if err != nil {
			return fmt.Errorf("port %d on 127.0.0.1 (%s) is taken: %w; stop what listens there or choose another port with %s",
				a.port, a.setting, err, a.setting)
		}
		_ = ln.Close()
	}
	return nil
}
