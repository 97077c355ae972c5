package auth

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// StripeSignature is a parsed Stripe-Signature header.
type StripeSignature struct {
	// Timestamp is t in Unix seconds; TimestampText is t as sent, which
	// the signed payload holds.
	Timestamp     int64
	TimestampText string
	// V1 are the hexadecimal v1 signatures, in the order sent. v0 and
	// unknown schemes are left out.
	V1 []string
}

// ParseStripeSignature reads "t=<seconds>,v1=<hex>,...". It fails without
// exactly one numeric t or without a v1; the *Error names the problem.
func ParseStripeSignature(value string) (StripeSignature, error) {
	var s StripeSignature
	seenT := false
	for _, item := range strings.Split(value, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(item), "=")
		if !ok {
			continue
		}
		switch k {
		case "t":
			if seenT {
				return s, failf("Invalid %s header: more than one timestamp", StripeSignatureHeader)
			}
			seenT = true
			ts, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, failf("Invalid %s header: the timestamp is not Unix seconds", StripeSignatureHeader)
			}
			s.Timestamp, s.TimestampText = ts, v
		case "v1":
			s.V1 = append(s.V1, v)
		}
	}
	switch {
	case !seenT:
		return s, failf("Invalid %s header: no timestamp", StripeSignatureHeader)
	case len(s.V1) == 0:
		return s, failf("No v1 signature in the %s header", StripeSignatureHeader)
	}
	return s, nil
}

// ParseGitHubSignature reads "sha256=<64 hex digits>".
func ParseGitHubSignature(value string) ([]byte, error) {
	return prefixedHex(GitHubSignatureHeader, "sha256=", value)
}

// ParseSlackSignature reads "v0=<64 hex digits>".
func ParseSlackSignature(value string) ([]byte, error) {
	return prefixedHex(SlackSignatureHeader, "v0=", value)
}

// ParseShopifySignature reads the standard base64 of a SHA-256 HMAC.
func ParseShopifySignature(value string) ([]byte, error) {
	raw, err := base64Std(value)
	if err != nil || len(raw) != sha256.Size {
		return nil, failf("Invalid %s header: not the base64 of an HMAC-SHA256", ShopifySignatureHeader)
	}
	return raw, nil
}

func prefixedHex(header, prefix, value string) ([]byte, error) {
	text, ok := strings.CutPrefix(value, prefix)
	if !ok {
		return nil, failf("Invalid %s header: it does not start with %s", header, prefix)
	}
	raw, err := hex.DecodeString(text)
	if err != nil || len(raw) != sha256.Size {
		return nil, failf("Invalid %s header: not %s and the hexadecimal HMAC-SHA256", header, prefix)
	}
	return raw, nil
}
