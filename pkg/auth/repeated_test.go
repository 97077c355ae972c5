package auth_test

import (
	"crypto/sha256"
	"strconv"
	"testing"

	"github.com/alternayte/queuebox/pkg/auth"
	"github.com/alternayte/queuebox/pkg/secret"
)

// A credential header that arrives twice is refused whatever its values,
// so the check and the rest of QueueBox can never read different ones.
func TestRepeatedCredentialHeaderIsRefused(t *testing.T) {
	t.Parallel()
	runCases(t, &auth.Options{Kind: auth.KindBearer, Token: secret.New(token)}, []verifyCase{
		{name: "valid then forged", h: headers("Authorization", "Bearer "+token, "Authorization", "Bearer forged"),
			wantErr: "Repeated Authorization header"},
		{name: "twice valid", h: headers("Authorization", "Bearer "+token, "authorization", "Bearer "+token),
			wantErr: "Repeated Authorization header"},
	})
	runCases(t, &auth.Options{Kind: auth.KindAPIKey, Key: secret.New(apiKey)}, []verifyCase{
		{name: "api key twice", h: headers("X-API-Key", apiKey, "X-Api-Key", "other"), wantErr: "Repeated X-API-Key header"},
	})
	stamp := strconv.FormatInt(now.UnixMilli(), 10)
	runCases(t, &auth.Options{Kind: auth.KindHMAC, Secret: secret.New(shared), TimestampHeader: "X-Timestamp"}, []verifyCase{
		{name: "signature twice", h: headers("X-Timestamp", stamp, "X-Signature", sign(sha256.New, stamp+"."+body),
			"X-Signature", "sha256=00"), wantErr: "Repeated X-Signature header"},
		{name: "timestamp twice", h: headers("X-Timestamp", stamp, "X-Timestamp", "1", "X-Signature", sign(sha256.New, stamp+"."+body)),
			wantErr: "Repeated X-Timestamp header"},
	})
}
