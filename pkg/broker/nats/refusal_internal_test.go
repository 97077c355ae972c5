package nats

import (
	"errors"
	"fmt"
	"testing"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/require"
)

func TestStreamFullIsARefusal(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"store failed", &jetstream.APIError{Code: 503, ErrorCode: jsStreamStoreFailed, Description: "maximum messages exceeded"}, true},
		{"maximum bytes, wrapped", fmt.Errorf("publish: %w", &jetstream.APIError{Code: 400, ErrorCode: 10999, Description: "maximum bytes exceeded"}), true},
		{"no stream", &jetstream.APIError{Code: 404, ErrorCode: jetstream.JSErrCodeStreamNotFound, Description: "stream not found"}, false},
		{"other error", errors.New("connection closed"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, c.want, streamFull(c.err))
		})
	}
}
