package deliver

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config"
)

func TestRouterFirstMatchWins(t *testing.T) {
	t.Parallel()
	dests := map[string]*config.Destination{
		"billing": {Name: "billing", Kind: config.KindHTTP},
		"archive": {Name: "archive", Kind: config.KindHTTP},
	}
	r, err := NewRouter([]config.Route{
		{TopicPattern: "invoice.*", Destination: "billing"},
		{TopicPattern: "**", Destination: "archive"},
		{TopicPattern: "invoice.paid", Destination: "billing"},
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
	_, err := NewRouter([]config.Route{{TopicPattern: "a.***", Destination: "x"}}, map[string]*config.Destination{"x": {}})
	require.ErrorContains(t, err, "routes[0].topicPattern")
	_, err = NewRouter([]config.Route{{TopicPattern: "a.*", Destination: "missing"}}, nil)
	require.ErrorContains(t, err, "routes[0].destination")
}
