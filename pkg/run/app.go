// Package run is the lifecycle every QueueBox binary shares: flags, logs,
// configuration, the database pool and its migrations, the data and
// management HTTP servers, the health and metrics routes, the components
// of the role, and the documented shutdown order.
package run

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/sync/errgroup"

	"github.com/alternayte/queuebox/pkg/buildinfo"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/health"
	"github.com/alternayte/queuebox/pkg/httpbody"
	"github.com/alternayte/queuebox/pkg/metrics"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/transform"
)

// Component is a long-running part of a role: the poller, the relay, a
// broker consumer, the retention job. Run returns after ctx is cancelled
// and its own drain finished, or earlier with an error that stops the
// process.
type Component interface {
	Name() string
	Run(ctx context.Context) error
}

// App is what a role's wiring function receives. Everything on it is
// ready to use; the wiring adds routes, health components and components.
type App struct {
	Name     string
	Config   *config.Config
	Log      *slog.Logger
	Registry *prometheus.Registry
	Health   *health.Registry
	// Stores is the store set of database.type; the wiring asks it for
	// the stores of the role. run closes it after every component stopped.
	Stores queuebox.Stores
	// Data serves the inbox routes. Management serves health, metrics and
	// admin; it is the same router as Data without server.managementPort.
	Data       *echo.Echo
	Management *echo.Echo
	// Flow is the flow control of the deliver role, set by its wiring
	// when the process runs deliver, nil otherwise; the admin routes read
	// it at request time for the destinations page.
	Flow queuebox.FlowReader
}

// Wire adds the role's routes and health components to app and returns
// its components.
type Wire func(ctx context.Context, app *App) ([]Component, error)

// Binary describes one QueueBox executable: its name, the roles it runs
// and the wiring that adds them.
type Binary struct {
	// Name is the executable's name: queuebox or queuebox-<role>. It
	// prefixes every log line (service) and error message.
	Name string
	// Roles lists the roles the process runs, for --version, --help and
	// the start log.
	Roles []string
	// About is the text --help prints above the flags: what the binary
	// runs and where it takes its configuration from.
	About string
	// Wire adds the roles to the app.
	Wire Wire
	// Host is the address the HTTP servers listen on: empty for every
	// interface (the default of every binary), 127.0.0.1 for queuebox dev,
	// which must be reachable from this machine only.
	Host string
	// OnListen, when set, is called once, after every HTTP server of the
	// process has bound its port and before any of them serves or any
	// component runs; a start that fails earlier never calls it. It must
	// return quickly. queuebox dev prints its banner only after it.
	OnListen func()
}

// Main runs a binary and returns its exit code: 0 after a clean stop, 1
// when the start fails or a component fails, 2 on a bad flag or a
// configuration that does not load (nothing was started).
func Main(b Binary) int {
	return MainWith(b, os.Args[1:], os.Stdout, os.Stderr)
}

// MainWith is Main with explicit arguments and output, for tests.
func MainWith(b Binary, args []string, stdout, stderr io.Writer) int {
	flags := NewFlagSet(b.Name, stderr)
	showVersion := flags.Bool("version", false, "print the version and the roles, then exit")
	if code, stop := Parse(flags, b, args, stdout); stop {
		return code
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; the configuration comes from QUEUEBOX_ variables and QUEUEBOX_CONFIG_FILE\n", b.Name, flags.Arg(0))
		return 2
	}
	if *showVersion {
		PrintVersion(stdout, b)
		return 0
	}
	return Start(b, stderr)
}

// NewFlagSet returns an empty flag set that reports a bad flag on stderr
// and leaves --help to Parse.
func NewFlagSet(name string, stderr io.Writer) *flag.FlagSet {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.Usage = func() {}
	return flags
}

// Parse parses args into flags. On --help it prints b.About, the roles
// and the flags to stdout and returns (0, true); on a bad flag it prints
// the error after b.Name, as every other error of the command, to the
// flag set's output and returns (2, true); otherwise (0, false) and the
// caller goes on.
func Parse(flags *flag.FlagSet, b Binary, args []string, stdout io.Writer) (int, bool) {
	// The flag package would print its error bare; it is printed below,
	// after the command's name.
	out := flags.Output()
	flags.SetOutput(io.Discard)
	err := flags.Parse(args)
	flags.SetOutput(out)
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, flag.ErrHelp):
		PrintHelp(stdout, b, flags)
		return 0, true
	default:
		fmt.Fprintf(out, "%s: %v; run %s --help for the flags\n", b.Name, err, b.Name)
		return 2, true
	}
}

// PrintHelp writes b.About, the roles of b and the flags to w; a command
// without flags gets no flag list at all.
func PrintHelp(w io.Writer, b Binary, flags *flag.FlagSet) {
	if b.About != "" {
		fmt.Fprintln(w, strings.TrimRight(b.About, "\n"))
	}
	if len(b.Roles) > 0 {
		fmt.Fprintf(w, "\nRoles: %s\n", strings.Join(b.Roles, ", "))
	}
	n := 0
	flags.VisitAll(func(*flag.Flag) { n++ })
	if n == 0 {
		return
	}
	fmt.Fprintf(w, "\nFlags of %s:\n", flags.Name())
	out := flags.Output()
	flags.SetOutput(w)
	flags.PrintDefaults()
	flags.SetOutput(out)
}

// PrintVersion writes the name, the version and the roles of b.
func PrintVersion(w io.Writer, b Binary) {
	fmt.Fprintf(w, "%s %s\n", b.Name, buildinfo.Version)
	if len(b.Roles) > 0 {
		fmt.Fprintf(w, "roles: %s\n", strings.Join(b.Roles, ","))
	}
}

// Start runs b after its flags were parsed: it reads the bootstrap
// variables, loads the configuration, wires the roles and serves until
// SIGTERM or SIGINT (then drains) or until a component fails. It returns
// the exit code: 0 after a clean stop, 2 when the configuration does not
// load, 1 otherwise.
func Start(b Binary, stderr io.Writer) int {
	boot, err := config.LoadBootstrap()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 2
	}
	log := NewLogger(stderr, boot.LogLevel, boot.LogFormat).With("service", b.Name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	stopTracing, err := startTracing(ctx, b.Name, os.Stdout)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", b.Name, err)
		return 1
	}
	defer stopTracing(log)
	defer startProfiling(b.Name, log)()
	if err := run(ctx, b, log); err != nil {
		log.Error("stopped with an error", "err", err)
		fmt.Fprintf(stderr, "%s: %s\n", b.Name, config.FormatError(err))
		if errors.As(err, new(*configError)) {
			return 2
		}
		return 1
	}
	return 0
}

// configError is a configuration that did not load: the start exits 2,
// as the operator commands do for the same cause.
type configError struct{ err error }

func (e *configError) Error() string { return e.err.Error() }
func (e *configError) Unwrap() error { return e.err }

func run(ctx context.Context, b Binary, log *slog.Logger) error {
	cfg, err := config.Load(config.Options{CompileExpression: transform.Check})
	if err != nil {
		return &configError{err: err}
	}
	for _, w := range cfg.Warnings() {
		log.Warn("configuration", "warning", w)
	}
	app := &App{Name: b.Name, Config: cfg, Log: log, Health: health.New()}
	app.Registry = metrics.NewRegistry(buildinfo.Version, time.Now())
	if err := openDatabase(ctx, app); err != nil {
		return err
	}
	defer app.Stores.Close()
	app.Health.Add("database", app.Stores.Ping)

	servers, components, err := Assemble(ctx, b, app)
	if err != nil {
		return err
	}
	for _, s := range servers {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	if b.OnListen != nil {
		b.OnListen()
	}
	log.Info("started", "version", buildinfo.Version, "roles", b.Roles, "components", componentNames(components),
		"health", app.Health.Names())
	return serve(ctx, log, servers, components)
}

// serve runs the servers and components until ctx ends or one fails, then
// stops them in the documented order: HTTP first, then the components.
func serve(ctx context.Context, log *slog.Logger, servers []*Server, components []Component) error {
	workCtx, stopWork := context.WithCancel(context.Background())
	defer stopWork()
	failed := make(chan error, len(servers)+len(components))
	var httpGroup, workGroup errgroup.Group
	for _, s := range servers {
		httpGroup.Go(func() error { return report(failed, s.Serve()) })
	}
	for _, c := range components {
		workGroup.Go(func() error {
			err := c.Run(workCtx)
			if err != nil {
				err = fmt.Errorf("%s: %w", c.Name(), err)
			}
			return report(failed, err)
		})
	}
	var cause error
	select {
	case <-ctx.Done():
		log.Info("shutdown requested")
	case cause = <-failed:
		log.Error("a component failed; stopping", "err", cause)
	}
	for _, s := range servers {
		s.Shutdown()
	}
	_ = httpGroup.Wait()
	stopWork()
	_ = workGroup.Wait()
	log.Info("stopped")
	return cause
}

// Assemble builds the servers of app (their root, health and metrics
// routes) and wires b onto them, exactly as the binary does before it
// listens. Nothing listens and no component runs yet: a test can call it
// to list every route the binary serves (Server.Routes). app needs every
// field except Data and Management, which Assemble sets.
func Assemble(ctx context.Context, b Binary, app *App) ([]*Server, []Component, error) {
	servers := newServers(app, b.Host)
	traceInbox(app.Data, app.Config)
	components, err := b.Wire(ctx, app)
	if err != nil {
		return nil, nil, err
	}
	return servers, components, nil
}

func report(failed chan<- error, err error) error {
	if err != nil {
		failed <- err
	}
	return err
}

func componentNames(cs []Component) []string {
	names := make([]string, 0, len(cs))
	for _, c := range cs {
		names = append(names, c.Name())
	}
	return names
}

// newServers builds the data server and, with server.managementPort, the
// management server; then mounts the shared routes.
func newServers(app *App, host string) []*Server {
	cfg := app.Config
	data := NewServer("data", net.JoinHostPort(host, strconv.Itoa(cfg.Server.HTTPPort)), app.Log)
	data.Echo.Pre(allowHosts(cfg.Server.AllowedHosts))
	data.Echo.Use(httpbody.Limit(cfg.Inbox.MaxBodyBytes))
	data.Echo.Use(httpbody.Budget(httpbody.BudgetFactor*cfg.Inbox.MaxBodyBytes, cfg.Inbox.MaxBodyBytes))
	conns := metrics.NewConnectionsGauge(app.Registry)
	data.CountConnections(conns.WithLabelValues("data"))
	data.Echo.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "QueueBox is running!") })
	servers := []*Server{data}
	app.Data, app.Management = data.Echo, data.Echo
	healthPort := data
	if cfg.Server.ManagementPort != nil {
		mgmt := NewServer("management", net.JoinHostPort(host, strconv.Itoa(*cfg.Server.ManagementPort)), app.Log)
		mgmt.Echo.Pre(allowHosts(cfg.Server.AllowedHosts))
		mgmt.CountConnections(conns.WithLabelValues("management"))
		app.Management = mgmt.Echo
		servers = append(servers, mgmt)
		healthPort = mgmt
	}
	// Liveness always answers 200, during the drain too; readiness is
	// what turns 503 while the process stops.
	healthPort.ServeWhileDraining("/health/live")
	// HEAD answers as GET without the body: load balancers and uptime
	// checks probe with it.
	m, getOrHead := app.Management, []string{http.MethodGet, http.MethodHead}
	m.Match(getOrHead, "/health/live", echo.WrapHandler(health.LiveHandler()))
	m.Match(getOrHead, "/health/ready", echo.WrapHandler(app.Health.ReadyHandler()))
	m.Match(getOrHead, "/health", echo.WrapHandler(app.Health.ReadyHandler()))
	m.Match(getOrHead, "/metrics", echo.WrapHandler(metrics.Handler(app.Registry)))
	return servers
}
