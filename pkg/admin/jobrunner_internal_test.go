package admin

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
)

// scriptedJobs is a workbench store with one open job whose batches
// answer from a script: an error, or a step that moved rows.
type scriptedJobs struct {
	queuebox.WorkbenchStore // nil: the runner calls only the methods below
	steps                   []error
	failed                  []string // reasons JobFail recorded
	failErr                 error
}

func (s *scriptedJobs) JobClaim(context.Context, time.Duration) (queuebox.JobLease, bool, error) {
	if len(s.steps) == 0 || len(s.failed) > 0 {
		return queuebox.JobLease{}, false, nil
	}
	return queuebox.JobLease{JobID: "job-1", Token: "t"}, true, nil
}

func (s *scriptedJobs) JobStep(context.Context, queuebox.JobLease, int, time.Duration) (queuebox.ReplayJob, error) {
	err := s.steps[0]
	s.steps = s.steps[1:]
	if err != nil {
		return queuebox.ReplayJob{}, err
	}
	// A batch that moved rows; the job ends with the script.
	return queuebox.ReplayJob{ID: "job-1", Moved: 500, Done: len(s.steps) == 0}, nil
}

func (s *scriptedJobs) JobFail(_ context.Context, _ queuebox.JobLease, reason string) error {
	if s.failErr != nil {
		return s.failErr
	}
	s.failed = append(s.failed, reason)
	return nil
}

func TestJobRunnerEndsAJobWhoseBatchesKeepFailing(t *testing.T) {
	t.Parallel()
	refused := errors.New("ERROR: canceling statement due to statement timeout (SQLSTATE 57014)")
	for _, tc := range []struct {
		name    string
		steps   []error
		failErr error
		want    []string
	}{
		{"five failures in a row end the job",
			[]error{refused, refused, refused, refused, refused},
			nil, []string{"stopped after 5 failed batches in a row; the last: " + refused.Error()}},
		{"a batch that moves starts the count again",
			[]error{refused, refused, refused, refused, nil, refused, refused, refused, refused, nil},
			nil, nil},
		{"a job the runner cannot end stays open",
			[]error{refused, refused, refused, refused, refused},
			errors.New("connection refused"), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			store := &scriptedJobs{steps: tc.steps, failErr: tc.failErr}
			r := NewJobRunner(store, slog.New(slog.DiscardHandler))
			for range len(tc.steps) {
				if !r.runOne(context.Background()) && len(store.steps) == 0 {
					break
				}
			}
			require.Equal(t, tc.want, store.failed)
			require.Empty(t, store.steps, "every scripted batch ran")
		})
	}
}
