package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

const deadListAbout = `queuebox dead list prints rows of one table, newest first, a page at a
time: dead rows unless --state names others. The filters combine with AND,
as those of GET /admin/messages. Without payloads; see dead show. When
more rows follow, the last line gives the --cursor of the next page.`

// deadListCmd lists one page of rows.
func deadListCmd(args []string, stdout, stderr io.Writer) int {
	s := newSession("dead list", deadListAbout, stderr)
	var f filterFlags
	f.declare(s.flags, false)
	limit := s.flags.Int("limit", 50, "rows per page, 1 to 500")
	cursor := s.flags.String("cursor", "", "the cursor of the next page, as the previous page printed it")
	if _, code, stop := s.parse(args, 0, stdout, stderr); stop {
		return code
	}
	mf, err := f.filter()
	if err != nil {
		return s.usage(stderr, err)
	}
	if len(mf.States) == 0 {
		mf.States = []queuebox.State{queuebox.StateDead}
	}
	if *limit < 1 || *limit > 500 {
		return s.usage(stderr, fmt.Errorf("--limit %d: give 1 to 500", *limit))
	}
	after, err := decodeCursor(*cursor)
	if err != nil {
		return s.usage(stderr, err)
	}
	ctx, stop := commandContext()
	defer stop()
	w, err := openFiltered(ctx, *s.wait, &f, &mf, stderr)
	if err != nil {
		return s.fail(stderr, err)
	}
	defer w.close()
	page, err := w.wb.List(ctx, mf, *limit, after)
	if err != nil {
		return s.fail(stderr, err)
	}
	printPage(stdout, s.out, mf.Table, page, w.destinationsOf)
	return 0
}

const deadShowAbout = `queuebox dead show prints one whole row: every column, with the payload
and the headers as JSON. For an outbox row it adds the row's destination
(or, for a row not routed yet, where its topic routes now), the
deliveries of its message: the row the application wrote and the rows
QueueBox added for the other destinations of a fan-out, each with its
destination, state, attempt and last error, and the attempts of those
rows from the delivery ledger, newest first (at most 100): when each
started, its attempt number, destination, outcome, failure class, the
destination's status, how long it took and the start of its answer.`

// deadShowCmd prints one row.
func deadShowCmd(args []string, stdout, stderr io.Writer) int {
	s := newSession("dead show", deadShowAbout, stderr)
	table := s.flags.String("table", "outbox", "outbox or inbox")
	r, code, stop := s.openRow(args, table, nil, stdout, stderr)
	if stop {
		return code
	}
	defer r.close()
	var deliveries []queuebox.Message
	var attempts []queuebox.Attempt
	var more bool
	if r.t == queuebox.TableOutbox {
		var err error
		if deliveries, err = admin.Deliveries(r.ctx, r.w.wb, r.m); err != nil {
			return s.fail(stderr, err)
		}
		if attempts, more, err = admin.MessageAttempts(r.ctx, r.w.wb, r.m); err != nil {
			return s.fail(stderr, err)
		}
	}
	item := wholeRow(r.m, r.w.destinationsOf, deliveries)
	if r.t == queuebox.TableOutbox {
		addAttempts(item, attempts, more)
	}
	if s.out == "json" {
		writeJSON(stdout, item)
		return 0
	}
	printRow(stdout, item)
	return 0
}

// row is the one row a show, resend or discard command acts on, read
// from the open workbench; close releases both.
type row struct {
	ctx    context.Context
	cancel context.CancelFunc
	w      *workbench
	t      queuebox.Table
	id     string
	m      queuebox.Message
}

func (r *row) close() {
	r.w.close()
	r.cancel()
}

// openRow parses the flags and the one row id, runs check (nil: none) on
// the table before connecting, opens the workbench and reads the row.
// When stop is true the command ends with code, its reason printed.
func (s *session) openRow(args []string, table *string, check func(queuebox.Table) error, stdout, stderr io.Writer) (*row, int, bool) {
	return s.openDelivery(args, table, nil, check, stdout, stderr)
}

// openDelivery is openRow for a command with --destination (dest; nil:
// none): given a destination, the row is the delivery of the message to
// it, whichever row of the message the id names.
func (s *session) openDelivery(args []string, table, dest *string, check func(queuebox.Table) error, stdout, stderr io.Writer) (*row, int, bool) {
	pos, code, stop := s.parse(args, 1, stdout, stderr)
	if stop {
		return nil, code, true
	}
	t, err := parseTable(*table)
	if err == nil {
		err = checkID(pos[0])
	}
	if err == nil && check != nil {
		err = check(t)
	}
	if err == nil && dest != nil && *dest != "" && t != queuebox.TableOutbox {
		err = fmt.Errorf("--destination selects a delivery of an outbox row; the inbox has none")
	}
	if err != nil {
		return nil, s.usage(stderr, err), true
	}
	r := &row{t: t, id: pos[0]}
	r.ctx, r.cancel = commandContext()
	if r.w, err = openWorkbench(r.ctx, *s.wait, stderr); err != nil {
		r.cancel()
		return nil, s.fail(stderr, err), true
	}
	if dest != nil && *dest != "" {
		r.m, err = admin.DeliveryTo(r.ctx, r.w.wb, r.id, *dest, r.w.destinationsOf)
	} else {
		r.m, err = r.w.wb.Get(r.ctx, t, r.id)
	}
	if errors.Is(err, queuebox.ErrNotFound) && (dest == nil || *dest == "") {
		err = r.inOtherTable(err)
	}
	if err != nil {
		r.close()
		return nil, s.fail(stderr, rowError(t, r.id, err)), true
	}
	r.id = r.m.ID
	return r, 0, false
}

// inOtherTable is the error of an id that r's table lacks: when the other
// table holds it (an inbox id given to an outbox command, the default),
// it says so and names the --table to add; otherwise notFound as it is.
func (r *row) inOtherTable(notFound error) error {
	other := queuebox.TableInbox
	if r.t == queuebox.TableInbox {
		other = queuebox.TableOutbox
	}
	if _, err := r.w.wb.Get(r.ctx, other, r.id); err != nil {
		return notFound
	}
	return fmt.Errorf("no %s row has id %s, but an %s row has: add --table %s", r.t, r.id, other, other)
}

const deadResendAbout = `queuebox dead resend moves one row back to pending, as a replay does:
state pending, attempt 0, due now, its error and claim cleared; it keeps
its id. A sent or dead outbox row may take a corrected --payload and
--headers (JSON, or @FILE to read it from a file); a dead inbox row goes
back as stored. A row in any other state moves nothing (exit 1).
--destination NAME resends the delivery of the message to NAME only, so
the other destinations of a fan-out receive nothing again; ID may name
any row of the message. --dry-run reads the row and says what would
happen.`

// deadResendCmd resends one row.
func deadResendCmd(args []string, stdout, stderr io.Writer) int {
	s := newSession("dead resend", deadResendAbout, stderr)
	table := s.flags.String("table", "outbox", "outbox or inbox")
	payload := s.flags.String("payload", "", "a corrected payload: JSON text, or @FILE (outbox only)")
	headers := s.flags.String("headers", "", "corrected headers: a JSON object, or @FILE (outbox only)")
	dest := s.flags.String("destination", "", "resend the delivery of the message to this destination (outbox only)")
	dryRun := s.flags.Bool("dry-run", false, "read the row and say what would happen, change nothing")
	var edit queuebox.ResendEdit
	r, code, stop := s.openDelivery(args, table, dest, func(t queuebox.Table) (err error) {
		edit, err = resendEdit(t, *payload, *headers)
		return err
	}, stdout, stderr)
	if stop {
		return code
	}
	defer r.close()
	ctx, w, t, id, m := r.ctx, r.w, r.t, r.id, r.m
	if !slices.Contains(t.FinalStates(), m.State) {
		return s.fail(stderr, fmt.Errorf("%s row %s is %s: resend moves %s rows only", t, id, m.State, joinStates(t.FinalStates())))
	}
	if !*dryRun {
		var res queuebox.ResendResult
		var err error
		if *dest == "" {
			res, err = w.wb.Resend(ctx, t, id, edit)
		} else {
			res, err = admin.ResendTo(ctx, w.wb, m, *dest, edit, w.destinationsOf)
		}
		if err != nil {
			return s.fail(stderr, rowError(t, id, err))
		}
		attrs := []any{"table", string(t), "ids", []string{id}, "count", 1}
		if *dest != "" {
			attrs = append(attrs, "destination", *dest)
		}
		if edit.Payload != nil || edit.Headers != nil {
			attrs = append(attrs, "edited", true, "old_payload_sha256", payloadDigest(res.OldPayload),
				"new_payload_sha256", payloadDigest(res.NewPayload), "headers_edited", edit.Headers != nil)
		}
		audit(stderr, "dead resend", attrs...)
	}
	report(stdout, s.out, withDestination(map[string]any{"id": id, "table": t, "state": queuebox.StatePending, "dryRun": *dryRun}, *dest),
		fmt.Sprintf("%s row %s%s: %s -> pending", t, id, toDestination(*dest), m.State), *dryRun)
	return 0
}

// resendEdit reads --payload and --headers, which must be JSON (headers
// an object) and apply to outbox rows only.
func resendEdit(t queuebox.Table, payload, headers string) (queuebox.ResendEdit, error) {
	var edit queuebox.ResendEdit
	if (payload != "" || headers != "") && t != queuebox.TableOutbox {
		return edit, fmt.Errorf("--payload and --headers edit outbox rows only; an inbox row goes back as stored")
	}
	var err error
	if edit.Payload, err = jsonArg("--payload", payload, false); err != nil {
		return edit, err
	}
	edit.Headers, err = jsonArg("--headers", headers, true)
	return edit, err
}

// jsonArg reads a JSON flag value, from a file after @; nil when unset.
func jsonArg(flagName, v string, object bool) ([]byte, error) {
	if v == "" {
		return nil, nil
	}
	b := []byte(v)
	if file, ok := strings.CutPrefix(v, "@"); ok {
		var err error
		if b, err = os.ReadFile(file); err != nil {
			return nil, fmt.Errorf("%s: %w", flagName, err)
		}
	}
	if !json.Valid(b) {
		return nil, fmt.Errorf("%s: not valid JSON", flagName)
	}
	if object {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil {
			return nil, fmt.Errorf("%s: give a JSON object of header names and values", flagName)
		}
	}
	return b, nil
}

const deadDiscardAbout = `queuebox dead discard marks one dead row discarded: it stays dead and
keeps every column, lists and the doctor leave it out (dead list
--discarded shows it), and retention deletes it later like any dead row.
A row that is not dead, or already discarded, moves nothing (exit 1).
--destination NAME discards the delivery of the message to NAME only;
ID may name any row of the message. --dry-run reads the row and says
what would happen.`

// deadDiscardCmd discards one dead row.
func deadDiscardCmd(args []string, stdout, stderr io.Writer) int {
	s := newSession("dead discard", deadDiscardAbout, stderr)
	table := s.flags.String("table", "outbox", "outbox or inbox")
	dest := s.flags.String("destination", "", "discard the delivery of the message to this destination (outbox only)")
	dryRun := s.flags.Bool("dry-run", false, "read the row and say what would happen, change nothing")
	r, code, stop := s.openDelivery(args, table, dest, nil, stdout, stderr)
	if stop {
		return code
	}
	defer r.close()
	ctx, w, t, id, m := r.ctx, r.w, r.t, r.id, r.m
	if m.State != queuebox.StateDead || m.DiscardedAt != nil {
		return s.fail(stderr, fmt.Errorf("%s row %s is %s%s: discard marks dead rows only, once", t, id, m.State, discardedNote(m)))
	}
	if !*dryRun {
		if err := w.wb.Discard(ctx, t, id); err != nil {
			return s.fail(stderr, rowError(t, id, err))
		}
		attrs := []any{"table", string(t), "ids", []string{id}, "count", 1}
		if *dest != "" {
			attrs = append(attrs, "destination", *dest)
		}
		audit(stderr, "dead discard", attrs...)
	}
	report(stdout, s.out, withDestination(map[string]any{"id": id, "table": t, "discarded": true, "dryRun": *dryRun}, *dest),
		fmt.Sprintf("%s row %s%s: discarded", t, id, toDestination(*dest)), *dryRun)
	return 0
}

func discardedNote(m queuebox.Message) string {
	if m.DiscardedAt != nil {
		return " and already discarded"
	}
	return ""
}

// report prints the outcome of one write as JSON or as a line.
func report(w io.Writer, out output, v map[string]any, line string, dryRun bool) {
	if out == "json" {
		writeJSON(w, v)
		return
	}
	if dryRun {
		line = "dry run, nothing changed: " + line
	}
	fmt.Fprintln(w, line)
}

// withDestination names the destination of a write through --destination
// in its JSON report.
func withDestination(v map[string]any, dest string) map[string]any {
	if dest != "" {
		v["destination"] = dest
	}
	return v
}

// toDestination is the words of a report line for a write through
// --destination.
func toDestination(dest string) string {
	if dest == "" {
		return ""
	}
	return " (the delivery to " + dest + ")"
}
