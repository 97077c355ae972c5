package deliver

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRouterFirstMatchWins(t *testing.T) {
	t.Parallel()
	dests := map[string]DestinationSpec{
		"billing": {Name: "billing", Kind: "http"},
		"archive": {Name: "archive", Kind: "http"},
	}
	r, err := NewRouter([]RouteSpec{
		{TopicPattern: "invoice.*", Destinations: []string{"billing"}},
		{TopicPattern: "**", Destinations: []string{"archive"}},
		{TopicPattern: "invoice.paid", Destinations: []string{"billing"}},
	}, dests)
	require.NoError(t, err)
	for topic, want := range map[string]string{
		"invoice.paid": "billing", "invoice.item.added": "archive", "order.created": "archive",
	} {
		require.Equal(t, want, r.DestinationOf(topic), topic)
	}
	empty, err := NewRouter(nil, dests)
	require.NoError(t, err)
	_, ok := empty.Match("order.created")
	require.False(t, ok)
}

func TestRouterRefusesBadRoutes(t *testing.T) {
	t.Parallel()
	_, err := NewRouter([]RouteSpec{{TopicPattern: "a.***", Destinations: []string{"x"}}}, map[string]DestinationSpec{"x": {}})
	require.ErrorContains(t, err, "routes[0].topicPattern")
	_, err = NewRouter([]RouteSpec{{TopicPattern: "a.*", Destinations: []string{"missing"}}}, nil)
	require.ErrorContains(t, err, "routes[0].destination")
}
