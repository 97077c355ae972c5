package auth

import "encoding/json"

// Challenge returns the challenge of Slack's url_verification request,
// which Slack sends, signed, when an Events API URL is set up, and which
// the source answers with the challenge instead of storing it. ok is
// false for every other body and for every verifier but slack's. Call it
// only after Verify passed.
func (v *Verifier) Challenge(body []byte) (challenge string, ok bool) {
	if !v.slack {
		return "", false
	}
	var msg struct {
		Type      string `json:"type"`
		Challenge string `json:"challenge"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Type != "url_verification" {
		return "", false
	}
	return msg.Challenge, true
}
