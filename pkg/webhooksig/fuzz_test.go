package webhooksig_test

import (
	"strings"
	"testing"

	"github.com/alternayte/queuebox/pkg/webhooksig"
)

// FuzzParseSignatures feeds any webhook-signature value to the parser and
// to Match: neither panics, every entry it keeps is a 32-byte MAC, and no
// value that a signer did not write matches.
func FuzzParseSignatures(f *testing.F) {
	f.Add("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
	f.Add("v1,AAAA v1a,BBBB  v1,")
	f.Add(",,, v1 v1,=")
	f.Add("v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=\tv1,x")
	k, err := webhooksig.NewKeys("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", nil)
	if err != nil {
		f.Fatal(err)
	}
	good := k.Sign("msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	f.Fuzz(func(t *testing.T, header string) {
		for _, sig := range webhooksig.ParseSignatures(header) {
			if len(sig) != 32 {
				t.Fatalf("kept a %d-byte entry", len(sig))
			}
		}
		if k.Match("msg_p5jXN8AQM9LWM0D4loKWxJek", "1614265330", []byte(`{"test": 2432232314}`), header) &&
			!strings.Contains(header, strings.TrimPrefix(good, "v1,")) {
			t.Fatalf("%q matched without the signature", header)
		}
	})
}
