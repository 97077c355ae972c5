package auth_test

import (
	"crypto/sha256"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

// FuzzHMACVerify checks the HMAC verification on any body, send time and
// forged signature: a correct signature of a fresh request passes, one
// outside the tolerance fails, and any other signature fails.
func FuzzHMACVerify(f *testing.F) {
	f.Add([]byte(`{"id":"evt_1"}`), int64(0), "sha256=00")
	f.Add([]byte(``), int64(-299_999), "")
	f.Add([]byte("\x00\xff"), int64(300_001), "sha256=")
	f.Add([]byte(`{}`), int64(-400_000), " sha256=ab")
	v, err := auth.New(&auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared),
		TimestampHeader: "X-Timestamp", TimestampTolerance: 300000})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, body []byte, offsetMs int64, forged string) {
		offsetMs %= 1_000_000
		stamp := strconv.FormatInt(now.UnixMilli()+offsetMs, 10)
		good := auth.DefaultSignaturePrefix + sign(sha256.New, stamp+"."+string(body))
		h := http.Header{"X-Timestamp": {stamp}, "X-Signature": {good}}
		err := v.Verify(h, body, now)
		fresh := time.Duration(abs(offsetMs))*time.Millisecond <= 300*time.Second
		if fresh != (err == nil) {
			t.Fatalf("offset %d ms: Verify = %v", offsetMs, err)
		}
		if strings.TrimSpace(forged) == good {
			return
		}
		h.Set("X-Signature", forged)
		if err := v.Verify(h, body, now); err == nil {
			t.Fatalf("a forged signature %q passed", forged)
		}
	})
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
