package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

const replayAbout = `queuebox replay moves the rows a filter selects back to pending, as
POST /admin/replay does: sent and dead outbox rows (or the --state you
name of those), dead inbox rows. It needs at least one filter. It first
counts the rows; --dry-run stops there. Otherwise it records a replay job
in the database and runs it in batches of --batch rows, each batch and
its progress in one transaction, so no row moves twice and an
interrupted job keeps its progress: any runner (a QueueBox serving the
admin routes, or the next queuebox replay) finishes it. On a terminal, a
progress bar goes to stderr.

--destination NAME moves one destination's deliveries only: the rows
routed to NAME, and the rows not routed yet whose route names it, which
then go to NAME alone. The other destinations of a fan-out receive
nothing again, so a repaired or new receiver can be backfilled, as in
queuebox replay --destination billing --state sent --created-after T.
A moved row keeps its id, sequence and destination. A message that
the routes now send to NAME but that was routed elsewhere before NAME
joined its route (so it has no row for NAME) gets a delivery to NAME
added, pending, after the moves: that is how a new subscriber is
backfilled. The count says how many of the matched rows are such
deliveries (toAdd). A second run adds none; it moves the added
deliveries again once they are sent.

Exit status: 0 done (also when nothing matched), 1 the database or the
job failed, 2 bad usage.`

// replayBatch is the batch size of a replay job, that of the admin API.
const replayBatch = 500

// jobLease is how long a step's lease lasts; a step renews it.
const jobLease = 30 * time.Second

// replayCmd runs one replay.
func replayCmd(args []string, stdout, stderr io.Writer) int {
	s := newSession("replay", replayAbout, stderr)
	var f filterFlags
	f.declare(s.flags, true)
	dryRun := s.flags.Bool("dry-run", false, "count the rows the filter selects, move nothing")
	batch := s.flags.Int("batch", replayBatch, "rows per batch, 1 to 10000")
	if _, code, stop := s.parse(args, 0, stdout, stderr); stop {
		return code
	}
	mf, err := replayFilter(&f)
	if err != nil {
		return s.usage(stderr, err)
	}
	if *batch < 1 || *batch > 10000 {
		return s.usage(stderr, fmt.Errorf("--batch %d: give 1 to 10000", *batch))
	}
	ctx, cancel := commandContext()
	defer cancel()
	w, err := openFiltered(ctx, *s.wait, &f, &mf, stderr)
	if err != nil {
		return s.fail(stderr, err)
	}
	defer w.close()
	matched, err := w.wb.Count(ctx, mf, 0)
	if err != nil {
		return s.fail(stderr, err)
	}
	toAdd, err := missingDeliveries(ctx, w.wb, &mf, w.destinationsOf)
	if err != nil {
		return s.fail(stderr, err)
	}
	matched += toAdd
	if *dryRun || matched == 0 {
		report(stdout, s.out, map[string]any{"table": mf.Table, "matched": matched, "toAdd": toAdd, "moved": 0, "dryRun": *dryRun},
			fmt.Sprintf("%s, of which %s", counted(matched, string(mf.Table)+" row matches", string(mf.Table)+" rows match"),
				counted(toAdd, "is a delivery to add", "are deliveries to add")), *dryRun)
		return 0
	}
	job, err := runReplay(ctx, w.wb, mf, matched, *batch, newProgress(stderr, isTerminal(stderr)))
	if err != nil {
		return s.fail(stderr, err)
	}
	audit(stderr, "replay", "table", string(mf.Table), slog.Group("filter", f.logAttrs(mf)...), "job", job.ID, "count", job.Moved)
	report(stdout, s.out, map[string]any{"job": job.ID, "table": mf.Table, "matched": job.Matched, "moved": job.Moved, "dryRun": false},
		fmt.Sprintf("replay job %s: moved %d of %s to pending", job.ID, job.Moved, counted(job.Matched, "matched "+string(mf.Table)+" row", "matched "+string(mf.Table)+" rows")), false)
	return 0
}

// missingDeliveries counts the messages that a replay of one destination
// gives the delivery they lack (queuebox.MessageFilter.Backfill) and,
// when the outbox can hold one, makes the job add them after its moves.
// An outbox without the lane columns has none to add, unless a route of
// the selected topics fans out: that is an error.
func missingDeliveries(ctx context.Context, wb queuebox.WorkbenchStore, mf *queuebox.MessageFilter, destinationsOf func(string) []string) (int64, error) {
	if mf.Destination == "" || mf.Table != queuebox.TableOutbox {
		return 0, nil
	}
	b := *mf
	b.Backfill = true
	n, err := wb.Count(ctx, b, 0)
	if errors.Is(err, queuebox.ErrNoLanes) || errors.Is(err, errors.ErrUnsupported) {
		for _, t := range mf.UnroutedTopics {
			if len(destinationsOf(t)) > 1 {
				return 0, fmt.Errorf("--destination %s: no delivery can be added for topic %s, whose route fans out: %w", mf.Destination, t, err)
			}
		}
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	mf.AddMissing = true
	return n, nil
}

// replayFilter checks the flags of a replay: at least one filter, and
// final states only (all of them when none is named).
func replayFilter(f *filterFlags) (queuebox.MessageFilter, error) {
	mf, err := f.filter()
	if err != nil {
		return mf, err
	}
	if len(f.states) == 0 && len(f.ids) == 0 && f.topic == "" && f.destination == "" && f.source == "" &&
		f.key == "" && f.errorText == "" && f.createdAfter == "" && f.createdBefore == "" {
		return mf, errors.New("a replay needs at least one filter: --id, --state, --topic, --destination, --source, --key, --error, --created-after or --created-before")
	}
	final := mf.Table.FinalStates()
	for _, st := range mf.States {
		if !slices.Contains(final, st) {
			return mf, fmt.Errorf("--state %s: a replay moves %s %s rows only", st, joinStates(final), mf.Table)
		}
	}
	if len(mf.States) == 0 {
		mf.States = final
	}
	return mf, nil
}

// runReplay records the job and runs replay jobs, oldest first, until
// its own is done: a job another runner holds is watched instead. An
// older job that waits is run first, as any runner would; nothing else
// orders the jobs.
func runReplay(ctx context.Context, wb queuebox.WorkbenchStore, f queuebox.MessageFilter, matched int64, batch int, p *progress) (queuebox.ReplayJob, error) {
	job, err := wb.JobCreate(ctx, f, matched)
	if err != nil {
		return job, err
	}
	p.show(job)
	for {
		l, ok, err := wb.JobClaim(ctx, jobLease)
		if err != nil {
			return job, err
		}
		if ok {
			if l.JobID != job.ID {
				p.note(fmt.Sprintf("running the older replay job %s first", l.JobID))
			}
			if err := stepJob(ctx, wb, l, batch, job.ID, p); err != nil {
				return job, interrupted(job, err)
			}
		}
		if job, err = wb.JobGet(ctx, job.ID); err != nil {
			return job, interrupted(job, err)
		}
		p.show(job)
		switch {
		case job.Error != nil:
			p.done()
			return job, fmt.Errorf("replay job %s failed after moving %s: %s", job.ID, counted(job.Moved, "row", "rows"), *job.Error)
		case job.Done:
			p.done()
			return job, nil
		case !ok:
			// Another runner holds the job: watch its progress.
			select {
			case <-ctx.Done():
				return job, interrupted(job, ctx.Err())
			case <-time.After(500 * time.Millisecond):
			}
		}
	}
}

// stepJob runs the claimed job's batches until it is done or the lease
// is lost, showing progress when the job is mine.
func stepJob(ctx context.Context, wb queuebox.WorkbenchStore, l queuebox.JobLease, batch int, mine string, p *progress) error {
	for {
		j, err := wb.JobStep(ctx, l, batch, jobLease)
		if errors.Is(err, queuebox.ErrLeaseLost) {
			return nil
		}
		if err != nil {
			return err
		}
		if j.ID == mine {
			p.show(j)
		}
		if j.Done || j.Error != nil {
			return nil
		}
	}
}

// interrupted explains that a stopped job keeps its progress.
func interrupted(job queuebox.ReplayJob, err error) error {
	return fmt.Errorf("%w; replay job %s stays in the database with %d of %s moved, and the next runner finishes it", err, job.ID, job.Moved, counted(job.Matched, "row", "rows"))
}

// progress draws a bar on a terminal; elsewhere it draws nothing, so a
// log or a pipe gets only the final line.
type progress struct {
	w  io.Writer
	on bool
}

func newProgress(w io.Writer, terminal bool) *progress { return &progress{w: w, on: terminal} }

func (p *progress) show(j queuebox.ReplayJob) {
	if !p.on || j.Matched <= 0 {
		return
	}
	const width = 30
	filled := int(min(j.Moved, j.Matched) * width / j.Matched)
	fmt.Fprintf(p.w, "\rreplay [%s%s] %d/%d rows", strings.Repeat("#", filled), strings.Repeat(".", width-filled), j.Moved, j.Matched)
}

func (p *progress) note(s string) {
	if p.on {
		fmt.Fprintf(p.w, "\r%s\n", s)
	}
}

func (p *progress) done() {
	if p.on {
		fmt.Fprintln(p.w)
	}
}
