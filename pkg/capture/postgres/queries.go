package postgres

import (
	_ "embed"
	"strings"
	"text/template"

	"github.com/alternayte/queuebox/pkg/capture"
)

// The statements of the connector, one per file, named after what they
// do. The replication connection's ones are templates (see
// replicationQuery).
var (
	//go:embed queries/capture_state_find.sql
	captureStateFindSQL string
	//go:embed queries/capture_state_insert.sql
	captureStateInsertSQL string
	//go:embed queries/capture_state_touch.sql
	captureStateTouchSQL string
	//go:embed queries/owner_lock_try.sql
	ownerLockTrySQL string
	//go:embed queries/publication_find.sql
	publicationFindSQL string
	//go:embed queries/publication_table_find.sql
	publicationTableFindSQL string
	//go:embed queries/slot_find.sql
	slotFindSQL string
	//go:embed queries/slot_lag.sql
	slotLagSQL string
	//go:embed queries/slot_position.sql
	slotPositionSQL string
)

// replicationQuery renders a statement for the replication connection,
// which speaks only the simple query protocol: each {{literal .Field}}
// becomes the quoted value of that setting.
func replicationQuery(text string, s capture.Settings) (string, error) {
	t, err := template.New("").Option("missingkey=error").
		Funcs(template.FuncMap{"literal": literal}).Parse(text)
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
