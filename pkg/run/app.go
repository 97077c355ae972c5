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
	"net/http"
	"os"
	"os/signal"
	"strconv"
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
}

// Wire adds the role's routes and health components to app and returns
// its components.
type Wire func(ctx context.Context, app *App) ([]Component, error)

// Main runs a binary and returns its exit code: 0 after a clean stop, 1
// when the start fails or a component fails, 2 on a bad flag.
func Main(name string, wire Wire) int {
	return MainWith(name, os.Args[1:], os.Stdout, os.Stderr, wire)
}

// MainWith is Main with explicit arguments and output, for tests.
func MainWith(name string, args []string, stdout, stderr io.Writer, wire Wire) int {
	flags := flag.NewFlagSet(name, flag.ContinueOnError)
	flags.SetOutput(stderr)
	showVersion := flags.Bool("version", false, "print the version and exit")
	if err := flags.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if flags.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q; the configuration comes from QUEUEBOX_ variables and QUEUEBOX_CONFIG_FILE\n", name, flags.Arg(0))
		return 2
	}
	if *showVersion {
		fmt.Fprintf(stdout, "%s %s\n", name, buildinfo.Version)
		return 0
	}
	boot, err := config.LoadBootstrap()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", name, err)
		return 1
	}
	log := NewLogger(stderr, boot.LogLevel, boot.LogFormat).With("service", name)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	if err := run(ctx, name, boot, log, wire); err != nil {
		log.Error("stopped with an error", "err", err)
		fmt.Fprintf(stderr, "%s: %s\n", name, config.FormatError(err))
		return 1
	}
	return 0
}

func run(ctx context.Context, name string, boot config.Bootstrap, log *slog.Logger, wire Wire) error {
	cfg, err := config.Load(config.Options{CompileExpression: transform.Check})
	if err != nil {
		return err
	}
	for _, w := range cfg.Warnings() {
		log.Warn("configuration", "warning", w)
	}
	app := &App{Name: name, Config: cfg, Log: log, Health: health.New()}
	app.Registry = metrics.NewRegistry(buildinfo.Version, time.Now())
	if err := openDatabase(ctx, app); err != nil {
		return err
	}
	defer app.Stores.Close()
	app.Health.Add("database", app.Stores.Ping)

	servers := newServers(app)
	components, err := wire(ctx, app)
	if err != nil {
		return err
	}
	for _, s := range servers {
		if err := s.Listen(); err != nil {
			return err
		}
	}
	log.Info("started", "version", buildinfo.Version, "components", componentNames(components),
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
func newServers(app *App) []*Server {
	cfg := app.Config
	data := NewServer("data", ":"+strconv.Itoa(cfg.Server.HTTPPort), app.Log)
	data.Echo.Use(httpbody.Limit(cfg.Inbox.MaxBodyBytes))
	data.Echo.Use(httpbody.Budget(httpbody.BudgetFactor*cfg.Inbox.MaxBodyBytes, cfg.Inbox.MaxBodyBytes))
	conns := metrics.NewConnectionsGauge(app.Registry)
	data.CountConnections(conns.WithLabelValues("data"))
	data.Echo.GET("/", func(c echo.Context) error { return c.String(http.StatusOK, "QueueBox is running!") })
	servers := []*Server{data}
	app.Data, app.Management = data.Echo, data.Echo
	healthPort := data
	if cfg.Server.ManagementPort != nil {
		mgmt := NewServer("management", ":"+strconv.Itoa(*cfg.Server.ManagementPort), app.Log)
		mgmt.CountConnections(conns.WithLabelValues("management"))
		app.Management = mgmt.Echo
		servers = append(servers, mgmt)
		healthPort = mgmt
	}
	// Liveness always answers 200, during the drain too; readiness is
	// what turns 503 while the process stops.
	healthPort.ServeWhileDraining("/health/live")
	m := app.Management
	m.GET("/health/live", echo.WrapHandler(health.LiveHandler()))
	m.GET("/health/ready", echo.WrapHandler(app.Health.ReadyHandler()))
	m.GET("/health", echo.WrapHandler(app.Health.ReadyHandler()))
	m.GET("/metrics", echo.WrapHandler(metrics.Handler(app.Registry)))
	return servers
}
