package rowcodec_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/queuebox"
	"github.com/alternayte/queuebox/pkg/store/internal/rowcodec"
)

func TestSplitAssignments(t *testing.T) {
	t.Parallel()
	got := rowcodec.SplitAssignments([]queuebox.Assignment{
		{ID: "a1", Destinations: []string{"ledger", "billing", "audit"}},
		{ID: "a2"}, // routes nothing: left out
		{ID: "a3", Token: "t3", Destinations: []string{"ledger"}},
		{ID: "a4", DeadReason: "no route"},
	})
	require.Equal(t, rowcodec.Assignments{
		IDs:          []string{"a1", "a3", "a4"},
		Destinations: []string{"ledger", "ledger", ""},
		Tokens:       []string{"", "t3", ""},
		Reasons:      []string{"", "", "no route"},
		Origins:      []string{"a1", "a1"},
		Copies:       []string{"billing", "audit"},
	}, got, "the first destination routes the row; each other one is a delivery")

	none := rowcodec.SplitAssignments(nil)
	require.Empty(t, none.IDs)
	require.NotNil(t, none.Origins, "an empty list, never null, for the array parameters")
	require.NotNil(t, none.Copies)
}
