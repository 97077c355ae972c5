package cli

import (
	"context"
	"flag"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// parseFilter parses args as the flags of replay and returns its filter.
func parseFilter(t *testing.T, args ...string) (queuebox.MessageFilter, error) {
	t.Helper()
	flags := flag.NewFlagSet("test", flag.ContinueOnError)
	flags.SetOutput(io.Discard)
	var f filterFlags
	f.declare(flags, true)
	require.NoError(t, flags.Parse(args))
	return replayFilter(&f)
}

func TestReplayFilter(t *testing.T) {
	t.Parallel()
	after := time.Date(2026, 9, 24, 8, 0, 0, 0, time.UTC)
	id := "3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10"
	for _, tc := range []struct {
		name string
		args []string
		want queuebox.MessageFilter
	}{
		{"final states by default", []string{"--topic", "order.*"},
			queuebox.MessageFilter{Table: queuebox.TableOutbox, States: []queuebox.State{queuebox.StateSent, queuebox.StateDead}}},
		{"dead inbox rows of a source", []string{"--table", "inbox", "--source", "stripe"},
			queuebox.MessageFilter{Table: queuebox.TableInbox, Source: "stripe", States: []queuebox.State{queuebox.StateDead}}},
		{"ids, a state and a window", []string{"--id", id, "--state", "dead", "--created-after", "2026-09-24T08:00:00Z", "--error", "500", "--key", "k", "--discarded"},
			queuebox.MessageFilter{Table: queuebox.TableOutbox, IDs: []string{id}, States: []queuebox.State{queuebox.StateDead},
				CreatedAfter: &after, Error: "500", Key: "k", WithDiscarded: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseFilter(t, tc.args...)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestReplayFilterNamesTheBadFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no filter", nil, "a replay needs at least one filter"},
		{"unknown table", []string{"--table", "queue", "--key", "k"}, `--table "queue": use outbox or inbox`},
		{"unknown state", []string{"--state", "lost"}, `--state "lost" is not a state of the outbox table`},
		{"a state a replay cannot move", []string{"--state", "pending"}, "--state pending: a replay moves sent, dead outbox rows only"},
		{"processed inbox rows stay", []string{"--table", "inbox", "--state", "processed"}, "a replay moves dead inbox rows only"},
		{"bad id", []string{"--id", "42"}, `--id: bad id "42": a row id is a UUID`},
		{"bad instant", []string{"--created-before", "yesterday"}, `--created-before "yesterday": not an RFC 3339 instant`},
		{"topic on the inbox", []string{"--table", "inbox", "--topic", "a"}, "--topic and --destination select outbox rows"},
		{"source on the outbox", []string{"--source", "stripe"}, "--source selects inbox rows"},
		{"two problems at once", []string{"--id", "42", "--created-after", "then"}, `bad id "42": a row id is a UUID such as 3f2b1c1e-8d4a-4c1b-9a53-2d0f6f1e7a10; --created-after "then"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseFilter(t, tc.args...)
			require.ErrorContains(t, err, tc.want)
		})
	}
}

func TestCursorRoundTrip(t *testing.T) {
	t.Parallel()
	c := queuebox.Cursor{Sequence: 42}
	got, err := decodeCursor(encodeCursor(c))
	require.NoError(t, err)
	require.Equal(t, c, got)
	_, err = decodeCursor("not-a-cursor")
	require.ErrorContains(t, err, `--cursor "not-a-cursor"`)
}

func TestResendEdit(t *testing.T) {
	t.Parallel()
	edit, err := resendEdit(queuebox.TableOutbox, `{"n":2}`, `{"x-a":"b"}`)
	require.NoError(t, err)
	require.JSONEq(t, `{"n":2}`, string(edit.Payload))
	require.JSONEq(t, `{"x-a":"b"}`, string(edit.Headers))
	_, err = resendEdit(queuebox.TableOutbox, `{"n":`, "")
	require.ErrorContains(t, err, "--payload: not valid JSON")
	_, err = resendEdit(queuebox.TableOutbox, "", `[1]`)
	require.ErrorContains(t, err, "--headers: give a JSON object")
	_, err = resendEdit(queuebox.TableInbox, `{}`, "")
	require.ErrorContains(t, err, "outbox rows only")
}

// topicsOnly is a workbench store that answers Topics alone.
type topicsOnly struct {
	queuebox.WorkbenchStore
	topics []string
}

func (s topicsOnly) Topics(context.Context, queuebox.MessageFilter) ([]string, error) {
	return s.topics, nil
}

// --destination selects the destination column, and of the rows not
// routed yet the topics whose route names the destination; --topic still
// narrows the topics.
func TestDestinationFlagSelectsTheDestinationColumn(t *testing.T) {
	t.Parallel()
	store := topicsOnly{topics: []string{"payment.paid", "order.created", "audit.seen"}}
	routes := func(topic string) []string {
		switch topic {
		case "payment.paid":
			return []string{"ledger", "billing"}
		case "order.created":
			return []string{"billing"}
		}
		return nil
	}
	for _, tc := range []struct {
		name     string
		args     []string
		topics   []string
		unrouted []string
	}{
		{"destination alone", []string{"--destination", "billing"}, nil, []string{"payment.paid", "order.created"}},
		{"a fan-out's second destination", []string{"--destination", "ledger"}, nil, []string{"payment.paid"}},
		{"with a topic glob", []string{"--destination", "billing", "--topic", "order.*"}, []string{"order.created"}, []string{"order.created"}},
		{"no route names it", []string{"--destination", "nobody"}, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			flags := flag.NewFlagSet("test", flag.ContinueOnError)
			flags.SetOutput(io.Discard)
			var f filterFlags
			f.declare(flags, true)
			require.NoError(t, flags.Parse(tc.args))
			mf, err := replayFilter(&f)
			require.NoError(t, err)
			require.NoError(t, f.resolveTopics(context.Background(), store, &mf, routes))
			require.Equal(t, tc.args[1], mf.Destination)
			require.Equal(t, tc.topics, mf.Topics)
			require.Equal(t, tc.unrouted, mf.UnroutedTopics)
		})
	}
}
