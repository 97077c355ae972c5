package ingest

import (
	"log/slog"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// Store writes received messages; see queuebox.InboxStore.
type Store = queuebox.InboxStore

// Options are the dependencies that every source of a process shares.
type Options struct {
	// Store is required.
	Store Store
	// Metrics is required; see NewMetrics.
	Metrics *Metrics
	// Log receives storage failures, a dead row that the database refuses
	// (warn) and, at debug level, rejections and dead rows. It never
	// receives a body or a credential. Nil discards.
	Log *slog.Logger
	// Transforms builds source transforms. Nil refuses a source that
	// configures one, rather than storing payloads it was told to reshape.
	Transforms TransformFactory
	// MaxTransformOutputBytes is the size bound of every source transform
	// whose TransformSpec.MaxOutputBytes is 0: the binaries pass
	// inbox.maxBodyBytes, so a stored payload is never larger than a body
	// the source accepts. 0 leaves DefaultTransformOutputBytes.
	MaxTransformOutputBytes int
	// Now is the receipt time of a message that brings none (and, for the
	// HTTP source, the clock of its rate limit and HMAC timestamp check).
	// Nil uses time.Now.
	Now func() time.Time
}
