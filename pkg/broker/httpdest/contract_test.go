package httpdest_test

import (
	"testing"

	"github.com/alternayte/queuebox/pkg/broker/brokertest"
	"github.com/alternayte/queuebox/pkg/broker/httpdest"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/secret"
)

// TestPublisherContract runs the suite that every publisher passes, once
// without credentials and once with an auth header, so the auth path is
// held to the same contract.
func TestPublisherContract(t *testing.T) {
	t.Parallel()
	for name, auth := range map[string]*httpdest.Auth{
		"no auth":     nil,
		"header auth": {Kind: httpdest.AuthHeader, HeaderName: "X-Api-Key", HeaderValue: secret.New("k-1")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			brokertest.Exercise(t, contractFactory(auth))
		})
	}
}

func contractFactory(auth *httpdest.Auth) brokertest.Factory {
	build := func(baseURL string, cfg brokertest.Config) (*httpdest.Publisher, error) {
		return httpdest.New(httpdest.Options{Name: "contract", BaseURL: baseURL, Path: "/events",
			Timeout: cfg.Timeout, Auth: auth})
	}
	return brokertest.Factory{
		New: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, brokertest.Destination) {
			dest := brokertest.NewHTTPDestination(t)
			p, err := build(dest.URL, cfg)
			if err != nil {
				t.Fatal(err)
			}
			return p, dest
		},
		Unreachable: func(t *testing.T, cfg brokertest.Config) (queuebox.Publisher, error) {
			return build(brokertest.UnreachableURL(t), cfg)
		},
	}
}
