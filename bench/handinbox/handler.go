package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"path"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"
)

// maxBody caps a request body; a larger one is refused with 413.
const maxBody = 1 << 20

// insert stores one event; a key already stored for the source returns no
// row. Autocommit makes it its own transaction.
const insert = `
INSERT INTO inbox (source, idempotency_key, aggregate_id, event_type, payload, headers, consumption, state)
VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, 'push', 'pending')
ON CONFLICT (source, idempotency_key) DO NOTHING`

// event is the part of a webhook body the inbox reads.
type event struct {
	ID       string `json:"id"`
	Type     string `json:"type"`
	Customer string `json:"customer"`
}

// handler is the one route. It is safe for concurrent use.
type handler struct {
	db     *pgxpool.Pool
	secret []byte
}

func newHandler(db *pgxpool.Pool, secret []byte) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /health/live", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusOK) })
	mux.Handle("POST /", &handler{db: db, secret: secret})
	return mux
}

// ServeHTTP implements http.Handler.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		http.Error(w, "body too large or unreadable", http.StatusRequestEntityTooLarge)
		return
	}
	source := path.Base(r.URL.Path)
	if source == "signed" && !h.signed(r.Header.Get("X-Signature"), body) {
		http.Error(w, "invalid signature", http.StatusUnauthorized)
		return
	}
	var e event
	if err := json.Unmarshal(body, &e); err != nil || e.ID == "" {
		http.Error(w, "a JSON body with an id is required", http.StatusBadRequest)
		return
	}
	headers, _ := json.Marshal(flatten(r.Header))
	tag, err := h.db.Exec(r.Context(), insert, source, e.ID, e.Customer, e.Type, body, headers)
	if err != nil {
		http.Error(w, "store failed", http.StatusServiceUnavailable)
		return
	}
	if tag.RowsAffected() == 0 {
		w.WriteHeader(http.StatusOK) // a duplicate: stored before
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

// signed checks "sha256=<hex HMAC-SHA256 of the body>" in constant time;
// without a secret nothing is signed correctly.
func (h *handler) signed(got string, body []byte) bool {
	if len(h.secret) == 0 {
		return false
	}
	mac := hmac.New(sha256.New, h.secret)
	mac.Write(body)
	want := "sha256=" + hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(got), []byte(want))
}

// flatten keeps the first value of each header under its lower-case name,
// the shape queuebox-ingest stores, so both rows weigh the same.
func flatten(h http.Header) map[string]string {
	out := make(map[string]string, len(h))
	for name, vals := range h {
		if len(vals) > 0 {
			out[strings.ToLower(name)] = vals[0]
		}
	}
	return out
}
