package wiring

import (
	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/deliver"
	"github.com/alternayte/queuebox/pkg/run"
	"github.com/alternayte/queuebox/pkg/transform"
)

// MountAdmin registers POST /admin/replay and POST /admin/transform/test
// on the management router when admin.enabled is true. Both need only the
// database and the configuration, so every process mounts them once,
// whatever roles it runs: the replay resolves its destination filter with
// a router built from the routes, and the transform test evaluates the
// expression it is sent, with or without transforms in the configuration.
func MountAdmin(app *run.App) error {
	if !app.Config.Admin.Enabled {
		return nil
	}
	router, err := deliver.NewRouter(RouteSpecs(app.Config))
	if err != nil {
		return err
	}
	store, err := app.Stores.Replay()
	if err != nil {
		return err
	}
	opts, err := adminOptions(app.Config.Admin)
	if err != nil {
		return err
	}
	replay, err := admin.NewReplay(opts, store, router.DestinationOf, app.Log.With("component", "admin"))
	if err != nil {
		return err
	}
	test, err := admin.NewTransformTest(opts, transform.JSONata)
	if err != nil {
		return err
	}
	admin.Mount(app.Management, opts, admin.Routes{Replay: replay, TransformTest: test}, app.Log)
	return nil
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
	v, err := auth.New(a.Auth)
	if err != nil {
		return opts, err
	}
	opts.Auth = v
	return opts, nil
}
