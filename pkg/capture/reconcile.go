package capture

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/uuid"
)

// FaultKind names a fault that stops capture until an operator decides.
type FaultKind string

// The faults of the start-time reconciliation, and the two start checks
// that need an operator too.
const (
	FaultStateMissing       FaultKind = "state-missing"
	FaultForeignState       FaultKind = "foreign-state"
	FaultSettingsChanged    FaultKind = "settings-changed"
	FaultSlotMissing        FaultKind = "slot-missing"
	FaultPublicationMissing FaultKind = "publication-missing"
	FaultIdentityOwned      FaultKind = "identity-owned"
	// FaultStateCorrupt: offsets.dat holds no position, or one that the
	// server has not written yet; streaming from it would move the slot
	// past every change to come.
	FaultStateCorrupt FaultKind = "state-corrupt"
)

// RecoveryDoc points at the recovery steps of the documentation.
const RecoveryDoc = "see Capture changes, Recover capture (/how-to/capture-changes/#recover-capture)"

// Fault is a capture fault that needs a decision: capture stops, reports
// it and does not retry; delivery goes on through SQL.
type Fault struct {
	Kind   FaultKind
	Detail string
	// Next, when set, is the step that clears the fault (a command to
	// run); empty means the recovery steps of the documentation.
	Next string
}

// Error renders the report: the fault, its detail and where to go next.
func (f *Fault) Error() string {
	next := RecoveryDoc
	switch {
	case f.Next != "":
		next = f.Next
	case f.Kind == FaultPublicationMissing:
		next = "create it (CREATE PUBLICATION ... FOR TABLE ...), then restart this process; QueueBox never creates a publication"
	case f.Kind == FaultIdentityOwned:
		next = "set outbox.capture.enabled: false on every replica but the owner"
	}
	return fmt.Sprintf("capture stopped (%s): %s; delivery continues through SQL; %s", f.Kind, f.Detail, next)
}

// Registered is the row of queuebox_capture_state for one identity.
type Registered struct {
	Instance    string
	Fingerprint string
}

// Observed is what the start found: the state row, the state files and
// the slot.
type Observed struct {
	Row *Registered
	// Files is the identity file; nil when absent.
	Files *Identity
	// FilesPresent says whether any state file exists (an offsets.dat
	// without identity counts).
	FilesPresent bool
	// Offset is offsets.dat; "" when absent.
	Offset     string
	SlotExists bool
}

// Plan is how a start that passed the reconciliation goes on.
type Plan struct {
	// Register is set on a first start: write the row and the identity
	// file under Instance.
	Register bool
	Instance string
	// CreateSlot asks for the slot to be created (and its consistent
	// point recorded) before streaming.
	CreateSlot bool
	// Offset is where streaming starts: "" means the slot's position.
	Offset string
}

// Reconcile compares the state table, the state files, the settings and
// the slot, and returns the plan or the fault. It is pure: the caller
// reads the inputs and acts on the answer.
func Reconcile(s Settings, dir string, o Observed) (Plan, *Fault) {
	if o.Row == nil {
		if o.FilesPresent {
			return Plan{}, foreignFault(s, dir, o, "queuebox_capture_state holds no row for identity "+quote(s.Identity)+" in this database")
		}
		return Plan{Register: true, Instance: uuid.NewString(), CreateSlot: !o.SlotExists}, nil
	}
	if o.Files == nil {
		return Plan{}, &Fault{Kind: FaultStateMissing, Detail: fmt.Sprintf(
			"the state directory %s holds no identity file, but queuebox_capture_state says identity %s ran before (instance %s): the volume is missing or empty",
			dir, quote(s.Identity), o.Row.Instance)}
	}
	if o.Files.Name != s.Identity || o.Files.Instance != o.Row.Instance {
		return Plan{}, foreignFault(s, dir, o, fmt.Sprintf("queuebox_capture_state records instance %s for identity %s",
			o.Row.Instance, quote(s.Identity)))
	}
	if o.Row.Fingerprint != s.Fingerprint() {
		return Plan{}, &Fault{Kind: FaultSettingsChanged, Detail: fmt.Sprintf(
			"the capture settings changed since identity %s recorded its position (%s): the recorded offsets are meaningless",
			quote(s.Identity), changedSettings(o.Files.Settings, settingsMap(s)))}
	}
	if o.Offset == "" {
		// Registered, but the slot was never recorded: a first start that
		// stopped before its slot existed.
		return Plan{CreateSlot: !o.SlotExists, Instance: o.Row.Instance}, nil
	}
	if !o.SlotExists {
		return Plan{}, &Fault{Kind: FaultSlotMissing, Detail: fmt.Sprintf(
			"the replication slot %s is gone while the state of identity %s remains (position %s): a new slot would start from the present",
			quote(s.Slot), quote(s.Identity), o.Offset)}
	}
	return Plan{Instance: o.Row.Instance, Offset: o.Offset}, nil
}

func foreignFault(s Settings, dir string, o Observed, why string) *Fault {
	owner := "files without an identity"
	if o.Files != nil {
		owner = fmt.Sprintf("identity %s, instance %s", quote(o.Files.Name), o.Files.Instance)
	}
	return &Fault{Kind: FaultForeignState, Detail: fmt.Sprintf(
		"the state directory %s belongs to another instance (%s), but %s", dir, owner, why)}
}

// changedSettings names the settings that differ from the identity file;
// the fingerprint alone cannot say which.
func changedSettings(was, now map[string]string) string {
	var out []string
	for _, k := range identityKeys {
		if was[k] != now[k] {
			out = append(out, fmt.Sprintf("%s %s -> %s", k, quote(was[k]), quote(now[k])))
		}
	}
	if len(out) == 0 {
		return "the fingerprint in queuebox_capture_state differs"
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
