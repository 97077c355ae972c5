package capture

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func testSettings() Settings {
	return Settings{Identity: "queuebox", Slot: "queuebox_outbox", Publication: "queuebox_outbox",
		Schema: "public", Table: "outbox", Host: "db.internal", Port: 5432, Database: "queuebox", StateDirectory: "/state"}
}

func TestReconcile(t *testing.T) {
	t.Parallel()
	s := testSettings()
	row := &Registered{Instance: "i-1", Fingerprint: s.Fingerprint()}
	files := &Identity{Name: "queuebox", Instance: "i-1", Settings: settingsMap(s)}
	changed := s
	changed.Slot = "other_slot"
	for _, tc := range []struct {
		name  string
		s     Settings
		o     Observed
		fault FaultKind
		want  string // in the fault text
		plan  Plan
	}{
		{name: "first start", s: s, o: Observed{}, plan: Plan{Register: true, CreateSlot: true}},
		{name: "first start adopts an existing slot", s: s, o: Observed{SlotExists: true}, plan: Plan{Register: true}},
		{name: "resume", s: s, o: Observed{Row: row, Files: files, FilesPresent: true, Offset: "0/16B3748", SlotExists: true},
			plan: Plan{Instance: "i-1", Offset: "0/16B3748"}},
		{name: "registered before the slot existed", s: s, o: Observed{Row: row, Files: files, FilesPresent: true},
			plan: Plan{Instance: "i-1", CreateSlot: true}},
		{name: "volume empty but the table says capture ran", s: s, o: Observed{Row: row, SlotExists: true},
			fault: FaultStateMissing, want: "volume is missing or empty"},
		{name: "offsets without identity", s: s, o: Observed{Row: row, FilesPresent: true, Offset: "0/1", SlotExists: true},
			fault: FaultStateMissing},
		{name: "files of another instance", s: s,
			o:     Observed{Row: row, Files: &Identity{Name: "queuebox", Instance: "i-2"}, FilesPresent: true, Offset: "0/1", SlotExists: true},
			fault: FaultForeignState, want: `instance i-2`},
		{name: "files of another identity", s: s,
			o:     Observed{Row: row, Files: &Identity{Name: "other", Instance: "i-1"}, FilesPresent: true, Offset: "0/1", SlotExists: true},
			fault: FaultForeignState, want: `identity "other"`},
		{name: "files but no row in this database", s: s, o: Observed{Files: files, FilesPresent: true, Offset: "0/1"},
			fault: FaultForeignState, want: "holds no row"},
		{name: "settings changed", s: changed, o: Observed{Row: row, Files: files, FilesPresent: true, Offset: "0/1", SlotExists: true},
			fault: FaultSettingsChanged, want: `slot "queuebox_outbox" -> "other_slot"`},
		{name: "slot disappeared while state remains", s: s, o: Observed{Row: row, Files: files, FilesPresent: true, Offset: "0/1"},
			fault: FaultSlotMissing, want: `slot "queuebox_outbox" is gone`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			plan, fault := Reconcile(tc.s, "/state", tc.o)
			if tc.fault != "" {
				require.NotNil(t, fault)
				require.Equal(t, tc.fault, fault.Kind)
				require.Contains(t, fault.Error(), tc.want)
				require.Contains(t, fault.Error(), "delivery continues through SQL")
				require.Contains(t, fault.Error(), "recover-capture", "the report points at the recovery steps")
				return
			}
			require.Nil(t, fault)
			if tc.plan.Register {
				require.NotEmpty(t, plan.Instance)
				plan.Instance = ""
			}
			require.Equal(t, tc.plan, plan)
		})
	}
}

func TestFingerprintCoversTheDocumentedSettings(t *testing.T) {
	t.Parallel()
	base := testSettings()
	seen := map[string]bool{base.Fingerprint(): true}
	for _, change := range []func(*Settings){
		func(s *Settings) { s.Slot = "x" }, func(s *Settings) { s.Publication = "x" },
		func(s *Settings) { s.Schema = "x" }, func(s *Settings) { s.Table = "x" },
		func(s *Settings) { s.Host = "x" }, func(s *Settings) { s.Database = "x" },
	} {
		s := base
		change(&s)
		fp := s.Fingerprint()
		require.False(t, seen[fp], "each setting changes the fingerprint")
		require.LessOrEqual(t, len(fp), 128, "fits queuebox_capture_state.fingerprint")
		seen[fp] = true
	}
	same := base
	same.Port, same.Identity, same.StateDirectory, same.Host = 6543, "other", "/elsewhere", strings.ToUpper(base.Host)
	require.Equal(t, base.Fingerprint(), same.Fingerprint(), "port, identity, directory and host case are not part of it")
}

func TestFaultReportsNameTheNextStep(t *testing.T) {
	t.Parallel()
	pub := (&Fault{Kind: FaultPublicationMissing, Detail: `the publication "p" does not exist`}).Error()
	require.Contains(t, pub, "never creates a publication")
	owned := (&Fault{Kind: FaultIdentityOwned, Detail: "x"}).Error()
	require.Contains(t, owned, "outbox.capture.enabled: false")
}
