package ingest

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// storeDead keeps a message that cannot be processed as a dead row, with
// the reason in last_error (dead-letter mode), inserted alone; see
// deadRow and settleDead. A repeat of the message is a Duplicate, like
// the repeat of a stored one.
func (r *Receiver) storeDead(ctx context.Context, rc receipt, a attributes, f *failure) (Decision, error) {
	p := r.deadRow(rc, a, f)
	id, inserted, err := r.inbox.Insert(ctx, p.row)
	return r.settleDead(ctx, p, id, inserted, err)
}

// deadRow is the dead row of a message that failed with f. Its key is the
// one that was extracted, or the digest of the body when there is none.
// The payload is the original body, or {"raw": text} when the body
// itself cannot be stored as JSON, or {"raw": its first DeadBodyPrefix
// bytes} when it is past Transport.MaxBodyBytes.
func (r *Receiver) deadRow(rc receipt, a attributes, f *failure) *pending {
	if a.key == "" {
		a.key = bodyDigest(rc.body)
	}
	payload := rc.body
	switch {
	case f.cut:
		payload = rawPayload(prefix(rc.body, DeadBodyPrefix))
	case f.raw:
		payload = rawPayload(rc.body)
	}
	row := rc.rowFor(a, payload)
	lastError := f.lastError()
	row.State, row.LastError = queuebox.StateDead, &lastError
	return &pending{rc: rc, a: a, row: row, dead: f}
}

// settleDead decides a dead row from the answer of its insert.
func (r *Receiver) settleDead(ctx context.Context, p *pending, id string, inserted bool, err error) (Decision, error) {
	rc, a, f := p.rc, p.a, p.dead
	var refused *queuebox.RefusedValueError
	switch {
	case errors.As(err, &refused) && !f.raw:
		// The body holds a value that the database refuses (a number
		// outside the numeric range): keep it as text instead.
		asText := *f
		asText.raw = true
		return r.storeDead(ctx, rc, a, &asText)
	case errors.As(err, &refused):
		// A value outside the payload (a header, an attribute) is what
		// the database refuses, so no row can keep the message.
		r.metrics.rejected(f.reason)
		r.log.WarnContext(ctx, "message rejected: the database refused its dead row", "reason", f.reason,
			"detail", f.detail, "refused", refused.Reason, "correlation_id", rc.row.CorrelationID)
		return f.rejected(rc.row.CorrelationID), nil
	case err != nil:
		return r.storageFailed(ctx, rc, err)
	case !inserted:
		r.metrics.message(StatusDuplicate)
		return rc.decide(Duplicate, ""), nil
	}
	r.metrics.rejected(f.reason)
	r.log.DebugContext(ctx, "message stored dead", "reason", f.reason, "detail", f.detail,
		"correlation_id", rc.row.CorrelationID, "message_id", id)
	d := rc.decide(Dead, id)
	d.Reason, d.Message, d.Permanent = f.reason, *p.row.LastError, true
	return d, nil
}

// rawPayload wraps a body that cannot be stored as JSON: {"raw": text},
// with the text "base64:" and the Base64 of the body when it is not valid
// UTF-8 or holds a NUL, which a JSON column refuses.
func rawPayload(body []byte) []byte {
	text := string(body)
	if !utf8.Valid(body) || strings.IndexByte(text, 0) >= 0 {
		text = "base64:" + base64.StdEncoding.EncodeToString(body)
	}
	out, _ := json.Marshal(map[string]string{"raw": text}) // a map of strings always encodes
	return out
}
