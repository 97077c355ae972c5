package ingest_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/ingest"
)

func TestBrokerAttributesWithControlCharactersGoDead(t *testing.T) {
	t.Parallel()
	ev := newReceiver(t, brokerSource("q"), broker, &memStore{})
	d, err := ev.r.Receive(context.Background(), msg(`{"id":"a"}`, "x-event-type", "evt\x00"))
	require.NoError(t, err)
	require.Equal(t, ingest.Dead, d.Outcome)
	require.Equal(t, "extract: Event type holds a control character", d.Message)
}
