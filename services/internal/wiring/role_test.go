package wiring

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/run"
)

type named string

func (n named) Name() string                  { return string(n) }
func (n named) Run(ctx context.Context) error { <-ctx.Done(); return nil }

func fakeRole(name string, err error, order *[]string) Role {
	return Role{Name: name, Runs: "the " + name + " part", Wire: func(context.Context, *run.App) ([]run.Component, error) {
		*order = append(*order, name)
		if err != nil {
			return nil, err
		}
		return []run.Component{named(name + "-worker")}, nil
	}}
}

func TestSelect(t *testing.T) {
	t.Parallel()
	var order []string
	all := []Role{fakeRole("ingest", nil, &order), fakeRole("relay", nil, &order), fakeRole("deliver", nil, &order)}
	for _, tc := range []struct {
		list string
		want []string
		err  string
	}{
		{"", []string{"ingest", "relay", "deliver"}, ""},
		{" ", []string{"ingest", "relay", "deliver"}, ""},
		{"deliver,ingest", []string{"ingest", "deliver"}, ""},
		{"relay, relay ,", []string{"relay"}, ""},
		{"ingest,router", nil, "one of ingest, relay, deliver"},
		{",", nil, "one of ingest, relay, deliver"},
	} {
		got, err := Select(all, tc.list)
		if tc.err != "" {
			require.ErrorContains(t, err, tc.err, tc.list)
			continue
		}
		require.NoError(t, err, tc.list)
		require.Equal(t, tc.want, names(got), tc.list)
	}
}

// Combine wires the roles in order and runs the components of all; the
// admin routes are off here, so no database is needed.
func TestCombineWiresEveryRoleInOrder(t *testing.T) {
	t.Parallel()
	var order []string
	cfg := config.Default()
	wire := Combine(fakeRole("relay", nil, &order), fakeRole("deliver", nil, &order))
	components, err := wire(context.Background(), &run.App{Config: &cfg})
	require.NoError(t, err)
	require.Equal(t, []string{"relay", "deliver"}, order)
	require.Equal(t, []run.Component{named("relay-worker"), named("deliver-worker")}, components)
}

func TestCombineNamesTheRoleThatFailed(t *testing.T) {
	t.Parallel()
	var order []string
	cfg := config.Default()
	wire := Combine(fakeRole("ingest", errors.New("sources.orders: bad"), &order), fakeRole("relay", nil, &order))
	_, err := wire(context.Background(), &run.App{Config: &cfg})
	require.EqualError(t, err, "ingest role: sources.orders: bad")
	require.Equal(t, []string{"ingest"}, order, "the start stops at the first failure")
}

func TestBinaryListsWhatItRuns(t *testing.T) {
	t.Parallel()
	var order []string
	b := Binary("queuebox", "queuebox runs roles.", fakeRole("ingest", nil, &order), fakeRole("relay", nil, &order))
	require.Equal(t, "queuebox", b.Name)
	require.Equal(t, []string{"ingest", "relay"}, b.Roles)
	require.Contains(t, b.About, "queuebox runs roles.")
	require.Contains(t, b.About, "ingest   the ingest part")
	require.Contains(t, b.About, "relay    the relay part")
}
