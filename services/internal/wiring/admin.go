package wiring

import (
	"slices"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/transform"
)

// MountAdmin registers the admin routes on the management router when
// admin.enabled is true: POST /admin/replay, POST /admin/transform/test
// and the workbench's message routes, and returns the runner of the
// replay jobs. They need only the database and the configuration, so
// every process mounts them once, whatever roles it runs: the replay and
// the workbench resolve destinations with a router built from the routes,
// and the transform test evaluates the expression it is sent.
func MountAdmin(app *run.App) ([]run.Component, error) {
	if !app.Config.Admin.Enabled {
		return nil, nil
	}
	router, err := deliver.NewRouter(RouteSpecs(app.Config))
	if err != nil {
		return nil, err
	}
	store, err := app.Stores.Workbench()
	if err != nil {
		return nil, err
	}
	opts, err := adminOptions(app.Config.Admin)
	if err != nil {
		return nil, err
	}
	log := app.Log.With("component", "admin")
	replay, err := admin.NewReplay(opts, store, router.DestinationsOf, log)
	if err != nil {
		return nil, err
	}
	test, err := admin.NewTransformTest(opts, transform.JSONata)
	if err != nil {
		return nil, err
	}
	routeOf := func(topic string) (string, []string) {
		r, ok := router.Match(topic)
		if !ok {
			return "", nil
		}
		return r.Pattern.String(), r.Names()
	}
	wb, err := admin.NewWorkbench(opts, store, routeOf, log)
	if err != nil {
		return nil, err
	}
	// The roles are wired after the admin routes: the flow control is
	// read at request time, once the deliver role (if any) has set it.
	wb.SetDestinations(destinationNames(app), func() queuebox.FlowReader { return app.Flow })
	admin.Mount(app.Management, opts, admin.Routes{Replay: replay, TransformTest: test, Workbench: wb}, app.Log)
	return []run.Component{admin.NewJobRunner(store, log)}, nil
}

// adminOptions maps the admin block onto the options of the admin routes.
// The credentials of admin.auth are checked only when admin.insecure is
// false: an insecure admin ignores the block.
func adminOptions(a config.Admin) (admin.Options, error) {
	opts := admin.Options{Enabled: a.Enabled, Insecure: a.Insecure, MaxPayloadBytes: a.MaxPayloadBytes,
		MaxTransformTimeout: config.Ms(a.MaxTransformTimeoutMs)}
	if a.Auth == nil {
		return opts, nil
	}
	opts.AuthKind = a.Auth.Kind
	if a.Insecure {
		return opts, nil
	}
	v, err := auth.NewAdmin(AuthOptions(a.Auth))
	if err != nil {
		return opts, err
	}
	opts.Auth = v
	if a.Viewer != nil {
		if opts.Viewer, err = auth.NewAdmin(AuthOptions(a.Viewer)); err != nil {
			return opts, err
		}
	}
	return opts, nil
}

// destinationNames lists the configured destinations, sorted.
func destinationNames(app *run.App) []string {
	_, dests := RouteSpecs(app.Config)
	names := make([]string, 0, len(dests))
	for _, d := range dests {
		names = append(names, d.Name)
	}
	slices.Sort(names)
	return names
}
