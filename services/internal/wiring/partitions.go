package wiring

import (
	"github.com/alternayte/queuebox/pkg/partition"
	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/run"
)

// Partitions returns the partition maintenance of table when the store
// set keeps partitions (database.partitioning.enabled), registered as an
// advisory health component: a missing partition slows the table (its
// rows go to the default partition), it never stops a write. It returns
// nothing otherwise.
func Partitions(app *run.App, table queuebox.Table) []run.Component {
	p, ok := app.Stores.(queuebox.Partitioner)
	if !ok {
		return nil
	}
	store, ok := p.Partitions()
	if !ok {
		return nil
	}
	job := partition.New(table, store, app.Config.Database.Partitioning.Interval.D, app.Log)
	app.Health.AddAdvisory(job.Name(), job.Check)
	return []run.Component{job}
}
