package jsonesc

import (
	"encoding/json"
	"testing"
)

// Every byte that encoding/json escapes gets the same escape here.
func TestAppendASCIIMatchesEncodingJSON(t *testing.T) {
	for c := range byte(0x80) {
		want, err := json.Marshal(string([]byte{c}))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) == 3 { // not escaped by encoding/json
			continue
		}
		if got := `"` + string(AppendASCII(nil, c)) + `"`; got != string(want) {
			t.Errorf("byte %#x: %s, encoding/json %s", c, got, want)
		}
	}
}
