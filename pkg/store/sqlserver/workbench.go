package sqlserver

import (
	"errors"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/schema"
)

// errNoWorkbench is the answer of NewWorkbench until the SQL Server
// statements of the workbench land.
var errNoWorkbench = errors.New("the workbench store is not available on SQL Server yet")

// NewWorkbench returns the workbench store of layout l.
func NewWorkbench(_ *DB, _ schema.Layout) (queuebox.WorkbenchStore, error) {
	return nil, errNoWorkbench
}
