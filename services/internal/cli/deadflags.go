package cli

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/alternayte/queuebox/pkg/admin"
	"github.com/alternayte/queuebox/pkg/glob"
	"github.com/alternayte/queuebox/pkg/queuebox"
)

// filterFlags are the filters of the admin message list, as flags of
// `queuebox dead list` and `queuebox replay`.
type filterFlags struct {
	table         string
	states        listFlag
	ids           listFlag
	topic         string
	destination   string
	source        string
	key           string
	errorText     string
	createdAfter  string
	createdBefore string
	discarded     bool
}

// listFlag is a flag that may be given more than once.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// declare registers the filter flags; withIDs adds --id (replay).
func (f *filterFlags) declare(flags *flag.FlagSet, withIDs bool) {
	flags.StringVar(&f.table, "table", "outbox", "outbox or inbox")
	flags.Var(&f.states, "state", "a state of the table's rows; repeat for several")
	if withIDs {
		flags.Var(&f.ids, "id", "a row id (UUID); repeat for several")
	}
	flags.StringVar(&f.topic, "topic", "", "outbox rows whose topic matches this glob of routes: * is one segment without a dot, ** any text; "+
		"every other character, [ ? and { too, matches itself")
	flags.StringVar(&f.destination, "destination", "", "outbox rows routed to this destination (and rows not routed yet whose route names it)")
	flags.StringVar(&f.source, "source", "", "inbox rows of this source")
	flags.StringVar(&f.key, "key", "", "outbox rows of this key, inbox rows of this aggregate id")
	flags.StringVar(&f.errorText, "error", "", "rows whose last_error holds this text, in any case")
	flags.StringVar(&f.createdAfter, "created-after", "", "rows created strictly after this RFC 3339 instant")
	flags.StringVar(&f.createdBefore, "created-before", "", "rows created strictly before this RFC 3339 instant")
	flags.BoolVar(&f.discarded, "discarded", false, "also select dead rows an operator discarded")
}

var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// checkID names a row id that is not a UUID.
func checkID(id string) error {
	if !uuidPattern.MatchString(id) {
		return fmt.Errorf("bad id %q: a row id is a UUID such as 3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10", id)
	}
	return nil
}

// maxTopic is the length of the topic column, in characters.
const maxTopic = 255

// checkTopicGlob refuses a --topic that no topic can match: one with a
// control character or invalid UTF-8, longer than the topic column, or
// holding ***, which the glob syntax gives no meaning. Any other text is
// a glob in which only * and ** are special, so [ is a topic's own [.
func checkTopicGlob(pattern string) error {
	switch {
	case !utf8.ValidString(pattern):
		return fmt.Errorf("--topic %q: not valid UTF-8, which no topic is", pattern)
	case strings.IndexFunc(pattern, unicode.IsControl) >= 0:
		return fmt.Errorf("--topic %q: holds a control character, which no topic can have", pattern)
	case utf8.RuneCountInString(pattern) > maxTopic:
		return fmt.Errorf("--topic: %d characters, longer than any topic (%d)", utf8.RuneCountInString(pattern), maxTopic)
	}
	if _, err := glob.Compile(pattern); err != nil {
		return fmt.Errorf("--topic %q: %w", pattern, err)
	}
	return nil
}

// parseTable names a table that is neither outbox nor inbox.
func parseTable(s string) (queuebox.Table, error) {
	t := queuebox.Table(s)
	if t.States() == nil {
		return "", fmt.Errorf("--table %q: use outbox or inbox", s)
	}
	return t, nil
}

// filter checks the flags and returns the filter without its topics,
// which resolveTopics fills; every error names the flag at fault.
func (f *filterFlags) filter() (queuebox.MessageFilter, error) {
	t, err := parseTable(f.table)
	if err != nil {
		return queuebox.MessageFilter{}, err
	}
	mf := queuebox.MessageFilter{Table: t, Source: f.source, Key: f.key, Error: f.errorText, WithDiscarded: f.discarded}
	var errs []error
	for _, s := range f.states {
		if !slices.Contains(t.States(), queuebox.State(s)) {
			errs = append(errs, fmt.Errorf("--state %q is not a state of the %s table; use %s", s, t, joinStates(t.States())))
		}
		mf.States = append(mf.States, queuebox.State(s))
	}
	for _, id := range f.ids {
		if err := checkID(id); err != nil {
			errs = append(errs, fmt.Errorf("--id: %w", err))
		}
	}
	if len(f.ids) > 0 {
		mf.IDs = f.ids
	}
	if t == queuebox.TableInbox && (f.topic != "" || f.destination != "") {
		errs = append(errs, errors.New("--topic and --destination select outbox rows; the inbox has --source"))
	}
	if t == queuebox.TableOutbox && f.source != "" {
		errs = append(errs, errors.New("--source selects inbox rows; add --table inbox"))
	}
	if f.topic != "" {
		errs = append(errs, checkTopicGlob(f.topic))
	}
	mf.CreatedAfter, err = instant("--created-after", f.createdAfter)
	errs = append(errs, err)
	mf.CreatedBefore, err = instant("--created-before", f.createdBefore)
	errs = append(errs, err)
	return mf, joinErrors(errs)
}

// logAttrs are the filters of a replay for its audit line, under the
// keys of the admin API's replay request (camelCase, as in its own
// "admin write" line): the states the replay moves (mf's, so the final
// states when --state named none), then each filter flag that was given,
// the topic glob as written.
func (f *filterFlags) logAttrs(mf queuebox.MessageFilter) []any {
	states := make([]string, len(mf.States))
	for i, s := range mf.States {
		states[i] = string(s)
	}
	attrs := []any{"states", states}
	if len(f.ids) > 0 {
		attrs = append(attrs, "ids", []string(f.ids))
	}
	for _, kv := range [][2]string{{"topic", f.topic}, {"destination", f.destination}, {"source", f.source}, {"key", f.key},
		{"error", f.errorText}, {"createdAfter", f.createdAfter}, {"createdBefore", f.createdBefore}} {
		if kv[1] != "" {
			attrs = append(attrs, kv[0], kv[1])
		}
	}
	if f.discarded {
		attrs = append(attrs, "discarded", true)
	}
	return attrs
}

// joinErrors joins the non-nil errors on one line, so each names its flag
// after the command's name.
func joinErrors(errs []error) error {
	var parts []string
	for _, err := range errs {
		if err != nil {
			parts = append(parts, err.Error())
		}
	}
	if len(parts) == 0 {
		return nil
	}
	return errors.New(strings.Join(parts, "; "))
}

// instant parses an RFC 3339 flag value; "" is no bound.
func instant(name, v string) (*time.Time, error) {
	if v == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return nil, fmt.Errorf("%s %q: not an RFC 3339 instant such as 2026-09-24T08:00:00Z", name, v)
	}
	return &t, nil
}

func joinStates(states []queuebox.State) string {
	s := make([]string, len(states))
	for i, st := range states {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

// resolveTopics turns --topic (a glob) into the filter's topic list, from
// the topics the other filters select, and --destination into the
// filter's destination: the rows routed there, and those not routed yet
// whose topic the routes send there. A glob that no topic meets leaves an
// empty list: the filter then selects nothing.
func (f *filterFlags) resolveTopics(ctx context.Context, wb queuebox.WorkbenchStore, mf *queuebox.MessageFilter, destinationsOf admin.DestinationsOf) error {
	if f.topic == "" && f.destination == "" {
		return nil
	}
	candidates, err := wb.Topics(ctx, *mf)
	if err != nil {
		return err
	}
	if f.topic != "" {
		pattern := glob.MustCompile(f.topic)
		mf.Topics = []string{}
		for _, topic := range candidates {
			if pattern.Match(topic) {
				mf.Topics = append(mf.Topics, topic)
			}
		}
		candidates = mf.Topics
	}
	if f.destination != "" {
		mf.Destination = f.destination
		mf.UnroutedTopics = admin.UnroutedTopicsOf(candidates, f.destination, destinationsOf)
	}
	return nil
}

// openFiltered opens the workbench and resolves the topic filters of mf
// with it; the caller closes the workbench.
func openFiltered(ctx context.Context, wait time.Duration, f *filterFlags, mf *queuebox.MessageFilter, stderr io.Writer) (*workbench, error) {
	w, err := openWorkbench(ctx, wait, stderr)
	if err != nil {
		return nil, err
	}
	if err := f.resolveTopics(ctx, w.wb, mf, w.destinationsOf); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

// encodeCursor and decodeCursor make the opaque --cursor of dead list.
func encodeCursor(c queuebox.Cursor) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursor(s string) (queuebox.Cursor, error) {
	var c queuebox.Cursor
	if s == "" {
		return c, nil
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil {
		return c, fmt.Errorf("--cursor %q: not a cursor that dead list printed", s)
	}
	return c, nil
}
