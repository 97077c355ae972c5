package sqlserver

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/alternayte/queuebox/pkg/capture"
)

// LSN is a SQL Server log sequence number, binary(10); two LSNs compare
// bytewise.
type LSN []byte

// lsnSize is the width of binary(10).
const lsnSize = 10

// String renders the LSN as offsets.dat holds it: 0x and 20 hex digits,
// the form SQL Server prints.
func (l LSN) String() string { return "0x" + strings.ToUpper(hex.EncodeToString(l)) }

// unset reports whether l is the zero LSN that a first start records on
// a database whose capture job has logged nothing yet: before every
// change, but not a position the change functions accept.
func (l LSN) unset() bool { return len(bytes.Trim(l, "\x00")) == 0 }

// Before reports whether l comes before o.
func (l LSN) Before(o LSN) bool { return bytes.Compare(l, o) < 0 }

// ParseLSN reads the form String writes.
func ParseLSN(s string) (LSN, error) {
	digits, ok := strings.CutPrefix(strings.ToLower(s), "0x")
	if !ok || len(digits) != 2*lsnSize {
		return nil, fmt.Errorf("%q is not an LSN (0x and %d hex digits)", s, 2*lsnSize)
	}
	b, err := hex.DecodeString(digits)
	if err != nil {
		return nil, fmt.Errorf("%q is not an LSN: %w", s, err)
	}
	return LSN(b), nil
}

// checkStored decides on the stored LSN of offsets.dat (file names it in
// the report) against the range the change table holds now: it returns
// the LSN to read after, or a state-corrupt fault when the LSN does not
// parse or lies ahead of the highest LSN (the file was changed or belongs
// to another server: reading on would skip changes). A position before
// the lowest LSN still held is no fault: the change table's cleanup moves
// that bound on an idle table while capture is stopped, and capture only
// wakes delivery, which polls anyway, so the reader wakes it once and goes
// on from the lowest LSN (catchUp), as PostgreSQL capture does with a
// position behind its slot. It is pure.
func checkStored(file, stored string, low, high LSN) (LSN, *capture.Fault) {
	pos, err := ParseLSN(stored)
	if err != nil {
		return nil, &capture.Fault{Kind: capture.FaultStateCorrupt, Detail: fmt.Sprintf("%s holds %q, which is not an LSN", file, stored)}
	}
	if high != nil && high.Before(pos) {
		return nil, &capture.Fault{Kind: capture.FaultStateCorrupt, Detail: fmt.Sprintf(
			"%s holds LSN %s, ahead of the highest LSN of the database %s: the file was changed or belongs to another server",
			file, pos, high)}
	}
	return pos, nil
}
