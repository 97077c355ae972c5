package schema_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/schema"
)

func TestQuote(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, postgres, sqlserver string
	}{
		{"outbox", `"outbox"`, `[outbox]`},
		{"key", `"key"`, `[key]`},
		{"_private", `"_private"`, `[_private]`},
		{"Mixed_Case9", `"Mixed_Case9"`, `[Mixed_Case9]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tc.postgres, schema.Postgres.Quote(tc.name))
			require.Equal(t, tc.sqlserver, schema.SQLServer.Quote(tc.name))
		})
	}
}

func TestQuotePanicsOnANonIdentifier(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"", "1abc", "a b", "a-b", "a.b", `a"b`, "a]b", "[a]", `"a"`,
		"x; DROP TABLE outbox", "a--", "tab\tle", "ünïcode", "a\n",
	} {
		for _, d := range []schema.Dialect{schema.Postgres, schema.SQLServer} {
			require.PanicsWithValue(t, fmt.Sprintf("schema: %q is not a SQL identifier", name),
				func() { d.Quote(name) }, "dialect %d, name %q", d, name)
		}
	}
}

// customNames gives every column its own name, different from the
// default, so a mix-up of two fields shows.
func customNames() schema.Names {
	n := schema.DefaultNames()
	n.OutboxTable, n.InboxTable = "qb_outbox", "qb_inbox"
	setAll(&n.Outbox, "ob_")
	setAll(&n.Inbox, "ib_")
	return n
}

func setAll(columns any, prefix string) {
	v := reflect.ValueOf(columns).Elem()
	for i := range v.NumField() {
		v.Field(i).SetString(prefix + v.Type().Field(i).Name)
	}
}

func TestNewMapsEveryConfiguredColumn(t *testing.T) {
	t.Parallel()
	n := customNames()
	for _, tc := range []struct {
		dialect schema.Dialect
		quote   func(string) string
	}{
		{schema.Postgres, func(s string) string { return `"` + s + `"` }},
		{schema.SQLServer, func(s string) string { return "[" + s + "]" }},
	} {
		l := schema.New(tc.dialect, n)
		require.Equal(t, tc.dialect, l.Dialect)
		require.Equal(t, "qb_outbox", l.OutboxTable)
		require.Equal(t, "qb_inbox", l.InboxTable)
		require.Equal(t, tc.quote("qb_outbox"), l.O.Table)
		require.Equal(t, tc.quote("qb_inbox"), l.I.Table)
		for _, pair := range []struct {
			columns, quoted any
			prefix          string
		}{
			{n.Outbox, l.O, "ob_"},
			{n.Inbox, l.I, "ib_"},
		} {
			cv, qv := reflect.ValueOf(pair.columns), reflect.ValueOf(pair.quoted)
			// Every configured column has a quoted field and back; besides
			// them only Table and DiscardedAt, the workbench's column that
			// has no mapping, and on the outbox the Lanes flag.
			extra := 2
			if qv.FieldByName("Lanes").IsValid() {
				extra = 3
				require.True(t, qv.FieldByName("Lanes").Bool(), "a layout has lanes until the start finds no lane columns")
			}
			require.Equal(t, cv.NumField()+extra, qv.NumField(), "%T and %T differ", pair.columns, pair.quoted)
			require.Equal(t, tc.quote("discarded_at"), qv.FieldByName("DiscardedAt").String())
			for i := range cv.NumField() {
				name := cv.Type().Field(i).Name
				field := qv.FieldByName(name)
				require.True(t, field.IsValid(), "%T has no field %s", pair.quoted, name)
				require.Equal(t, tc.quote(pair.prefix+name), field.String(), "field %s", name)
			}
		}
	}
}

func TestNewWithDefaultNames(t *testing.T) {
	t.Parallel()
	l := schema.New(schema.SQLServer, schema.DefaultNames())
	require.Equal(t, "[outbox]", l.O.Table)
	require.Equal(t, "[key]", l.O.Key)
	require.Equal(t, "[idempotency_key]", l.I.IdempotencyKey)
	require.Equal(t, "[lease_expires_at]", l.I.LeaseExpiresAt)
}

func TestNewPanicsOnAnInjectedName(t *testing.T) {
	t.Parallel()
	n := schema.DefaultNames()
	n.Outbox.Payload = `payload"; DROP TABLE outbox; --`
	require.Panics(t, func() { schema.New(schema.Postgres, n) })
}

func TestRender(t *testing.T) {
	t.Parallel()
	l := schema.New(schema.Postgres, customNames())
	got, err := l.Render("select", "\n  SELECT {{.O.ID}}, {{.O.Key}} FROM {{.O.Table}} WHERE {{.O.State}} = $1\n")
	require.NoError(t, err)
	require.Equal(t, `SELECT "ob_ID", "ob_Key" FROM "qb_outbox" WHERE "ob_State" = $1`, got)

	for _, tc := range []struct {
		name, text string
		data       any
		want       string
	}{
		{"unknown layout field", "SELECT {{.O.Nope}}", l, "render statement t"},
		{"unknown map key", "SELECT {{.Flag}}", map[string]any{}, "render statement t"},
		{"parse error", "SELECT {{.O.ID", l, "parse statement t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := schema.RenderData("t", tc.text, tc.data)
			require.ErrorContains(t, err, tc.want)
		})
	}

	// Variants read flags next to the layout.
	type variant struct {
		schema.Layout
		Limit bool
	}
	got, err = schema.RenderData("v", "SELECT 1 FROM {{.I.Table}}{{if .Limit}} LIMIT 1{{end}}", variant{l, true})
	require.NoError(t, err)
	require.Equal(t, `SELECT 1 FROM "qb_inbox" LIMIT 1`, got)
}

// A statement includes a shared partial, handing it several values with
// args; the partial sees only what it is handed, and a missing value or a
// stray argument fails the render instead of writing wrong SQL.
func TestPartials(t *testing.T) {
	t.Parallel()
	l := schema.New(schema.Postgres, customNames())
	p, err := schema.ParsePartials(`-- shared pieces
{{define "held"}}{{.A}}.{{.T.State}} = 'processing' AND {{.A}}.{{.T.ClaimToken}} = $2{{end}}`)
	require.NoError(t, err)
	got, err := p.Render("s", `UPDATE {{.O.Table}} o SET x = 1 WHERE {{template "held" args "T" .O "A" "o"}}`, l)
	require.NoError(t, err)
	require.Equal(t, `UPDATE "qb_outbox" o SET x = 1 WHERE o."ob_State" = 'processing' AND o."ob_ClaimToken" = $2`, got)
	got, err = p.Render("s", `{{template "held" args "T" .I "A" "i"}}`, l)
	require.NoError(t, err)
	require.Equal(t, `i."ib_State" = 'processing' AND i."ib_ClaimToken" = $2`, got, "the same partial on the inbox")

	for _, tc := range []struct{ name, text, want string }{
		{"missing value", `{{template "held" args "T" .O}}`, "render statement t"},
		{"odd arguments", `{{template "held" args "T"}}`, "name and value pairs"},
		{"unknown partial", `{{template "nope" .}}`, "render statement t"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := p.Render("t", tc.text, l)
			require.ErrorContains(t, err, tc.want)
		})
	}
	_, err = schema.ParsePartials(`{{define "x"}}{{.A}`)
	require.ErrorContains(t, err, "parse partials")
}
