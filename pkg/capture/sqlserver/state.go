package sqlserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/alternayte/queuebox/pkg/capture"
)

// loadRow reads the queuebox_capture_state row of identity; nil when
// there is none.
func (c *Connector) loadRow(ctx context.Context, identity string) (*capture.Registered, error) {
	var r capture.Registered
	err := c.db.QueryRow(ctx, c.sql["capture_state_find"], []any{identity}, &r.Instance, &r.Fingerprint)
	if errors.Is(err, ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read queuebox_capture_state: %w", err)
	}
	return &r, nil
}

// register records a first start: the row, then the identity file. The
// DB interface has no transaction, so a file that cannot be written takes
// the row back; a row left behind by a crash between the two reads as
// state-missing at the next start, which is the safe side.
func (c *Connector) register(ctx context.Context, dir capture.StateDir, s capture.Settings, instance string) error {
	if err := c.db.Exec(ctx, c.sql["capture_state_insert"], s.Identity, instance, s.Fingerprint()); err != nil {
		return fmt.Errorf("register the capture identity: %w", err)
	}
	if err := dir.WriteIdentity(s.Identity, instance, s); err != nil {
		if derr := c.db.Exec(context.WithoutCancel(ctx), c.sql["capture_state_delete"], s.Identity, instance); derr != nil {
			return errors.Join(err, fmt.Errorf("take back the capture registration: %w", derr))
		}
		return err
	}
	return nil
}

// touchRow records that the identity started again.
func (c *Connector) touchRow(ctx context.Context, identity string) error {
	if err := c.db.Exec(ctx, c.sql["capture_state_touch"], identity); err != nil {
		return fmt.Errorf("update queuebox_capture_state: %w", err)
	}
	return nil
}

// reconcile reads the state row and files and decides with the
// PostgreSQL rules (capture.Reconcile). SQL Server has no slot: the
// change table of the capture instance plays its part, and the start
// checks have already found it tracked, so the slot always "exists" and
// a plan never asks to create one.
func (c *Connector) reconcile(ctx context.Context, dir capture.StateDir, s capture.Settings) (capture.Plan, error) {
	row, err := c.loadRow(ctx, s.Identity)
	if err != nil {
		return capture.Plan{}, err
	}
	files, err := dir.ReadIdentity()
	if err != nil {
		return capture.Plan{}, err
	}
	empty, err := dir.Empty()
	if err != nil {
		return capture.Plan{}, err
	}
	offset, err := dir.ReadOffset()
	if err != nil {
		return capture.Plan{}, err
	}
	plan, fault := capture.Reconcile(s, s.StateDirectory,
		capture.Observed{Row: row, Files: files, FilesPresent: !empty, Offset: offset, SlotExists: true})
	if fault != nil {
		return capture.Plan{}, fault
	}
	return plan, nil
}
