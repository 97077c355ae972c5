package capture

import (
	"embed"
	"strings"
	"text/template"
)

// queries holds every statement of the connector, one per file, named
// after what it does.
//
//go:embed queries/*.sql
var queries embed.FS

// query returns the statement of queries/<name>.sql.
func query(name string) string {
	b, err := queries.ReadFile("queries/" + name + ".sql")
	if err != nil {
		panic(err) // the file list is fixed at build time
	}
	return string(b)
}

// replicationQuery renders the statement of queries/<name>.sql for the
// replication connection, which speaks only the simple query protocol:
// each {{literal .Field}} becomes the quoted value of that setting.
func replicationQuery(name string, s Settings) (string, error) {
	t, err := template.New(name).Option("missingkey=error").
		Funcs(template.FuncMap{"literal": literal}).Parse(query(name))
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := t.Execute(&b, s); err != nil {
		return "", err
	}
	return b.String(), nil
}

// literal quotes a value for the simple query protocol. The names it
// quotes are validated identifiers; doubling the quote keeps any other
// text inert too.
func literal(v string) string { return "'" + strings.ReplaceAll(v, "'", "''") + "'" }
