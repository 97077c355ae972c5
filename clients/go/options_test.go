package queuebox

import (
	"database/sql"
	"strings"
	"testing"
	"time"
)

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	o, err := Options{Source: "orders"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.BatchSize != 10 || o.LeaseMS != 30_000 || o.MaxConcurrency != 1 || o.PollInterval != time.Second ||
		o.ShutdownGrace != 30*time.Second || o.Dialect != DialectPostgreSQL || *o.Schema != DefaultSchema() ||
		o.RetryPolicy == nil || o.Logger == nil {
		t.Errorf("defaults: %+v", o)
	}
	if candLimit(1) != 50 || candLimit(10) != 50 || candLimit(100) != 300 || candLimit(500) != 500 {
		t.Error("cand_limit is not LEAST(GREATEST(3 * batch, 50), 500)")
	}
}

func TestNewInboxWorkerReportsEverySettingThatCannotWork(t *testing.T) {
	t.Parallel()
	db := &sql.DB{} // never used: validation comes first
	bad := DefaultSchema()
	bad.Payload = "payload; --"
	_, err := NewInboxWorker(db, Options{
		BatchSize: 501, LeaseMS: 50, MaxConcurrency: -1, PollInterval: -time.Second,
		ShutdownGrace: -time.Second, Dialect: "oracle", Schema: &bad,
	})
	if err == nil {
		t.Fatal("no error")
	}
	for _, want := range []string{"Source is required", "BatchSize 501", "LeaseMS 50", "MaxConcurrency -1",
		"PollInterval", "ShutdownGrace", `Dialect "oracle"`, "Schema.Payload"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error does not name %q: %v", want, err)
		}
	}
	if _, err := NewInboxWorker(nil, Options{Source: "orders"}); err == nil {
		t.Error("a nil db passed")
	}
	w, err := NewInboxWorker(db, Options{Source: "orders"})
	if err != nil || w == nil {
		t.Fatalf("a valid worker: %v", err)
	}
	if err := w.Run(t.Context(), nil); err == nil {
		t.Error("Run took a nil handler")
	}
}
