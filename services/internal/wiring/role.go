package wiring

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/alternayte/queuebox/pkg/run"
)

// Role is one part of QueueBox that a process can run: ingest, relay,
// deliver or capture. A queuebox-<role> binary runs one; the queuebox
// binary runs any set of them in one process, on one configuration, one
// database pool, one data port, one /metrics and one /health/ready.
//
// Wire must tolerate the other roles of the process: it registers its
// metrics through the shared-family helpers (metrics.MustRegister, or a
// constructor that uses them) where another role may register the same
// family, and a health component name it shares with another role (the
// retention-service of relay and deliver) joins that component.
type Role struct {
	// Name is the role's name in --roles and QUEUEBOX_ROLES.
	Name string
	// Runs says in one line what the role runs, for --help.
	Runs string
	// Wire adds the role's routes, health components and metrics to the
	// app and returns its components.
	Wire run.Wire
}

// Combine returns the wiring of a process that runs roles: the parts every
// process has once (the admin routes), then each role in the given order.
// The components of all roles run side by side; the first that fails
// stops the process, as it stops the role's own binary.
func Combine(roles ...Role) run.Wire {
	return func(ctx context.Context, app *run.App) ([]run.Component, error) {
		all, err := MountAdmin(app)
		if err != nil {
			return nil, err
		}
		for _, r := range roles {
			components, err := r.Wire(ctx, app)
			if err != nil {
				return nil, fmt.Errorf("%s role: %w", r.Name, err)
			}
			all = append(all, components...)
		}
		return all, nil
	}
}

// Binary describes an executable that runs roles, with the --help text
// that lists what each of them runs.
func Binary(name, about string, roles ...Role) run.Binary {
	var b strings.Builder
	b.WriteString(about)
	b.WriteString("\n\nWhat it runs:\n")
	for _, r := range roles {
		fmt.Fprintf(&b, "  %-8s %s\n", r.Name, r.Runs)
	}
	b.WriteString("\nThe configuration comes from QUEUEBOX_ variables and the YAML file that\n" +
		"QUEUEBOX_CONFIG_FILE names (default /etc/queuebox/queuebox.yml).")
	return run.Binary{Name: name, Roles: names(roles), About: b.String(), Wire: Combine(roles...)}
}

// Main runs the binary of one role and returns its exit code.
func Main(role Role) int {
	name := "queuebox-" + role.Name
	return run.Main(Binary(name, name+" runs the "+role.Name+" role of QueueBox.", role))
}

// Select returns the roles of all whose names are in the comma-separated
// list, in the order of all. An empty list selects every role. A name
// that is no role, or a list that names none, is an error that lists the
// roles.
func Select(all []Role, list string) ([]Role, error) {
	if strings.TrimSpace(list) == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n != "" {
			want[n] = true
		}
	}
	var out []Role
	for _, r := range all {
		if want[r.Name] {
			out = append(out, r)
			delete(want, r.Name)
		}
	}
	if len(want) > 0 || len(out) == 0 {
		return nil, fmt.Errorf("roles %q: each name must be one of %s", list, strings.Join(names(all), ", "))
	}
	return out, nil
}

func names(roles []Role) []string {
	out := make([]string, len(roles))
	for i, r := range roles {
		out[i] = r.Name
	}
	return out
}

// RolesVar is the variable that selects the roles of the queuebox binary
// when --roles is not given.
const RolesVar = "QUEUEBOX_ROLES"

// RolesFromEnv returns the value of QUEUEBOX_ROLES.
func RolesFromEnv() string { return os.Getenv(RolesVar) }
