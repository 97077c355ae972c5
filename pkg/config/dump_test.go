package config

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// The dump holds no secret of the complete example, names the masked
// keys, and loads back as a configuration with the same values.
func TestMaskedYAML(t *testing.T) {
	t.Parallel()
	cfg := loadComplete(t)
	out, err := cfg.MaskedYAML()
	require.NoError(t, err)
	text := string(out)
	for _, kv := range completeEnv {
		_, value, _ := cutEnv(kv)
		require.NotContains(t, text, value)
	}
	var back map[string]any
	require.NoError(t, yaml.Unmarshal(out, &back))
	db := back["database"].(map[string]any)
	require.Equal(t, "jdbc:postgresql://db:5432/queuebox", db["url"])
	require.NotEmpty(t, db["password"])
	require.Equal(t, "7d", back["retention"].(map[string]any)["outbox"].(map[string]any)["maxAge"])
	require.Contains(t, back["destinations"], "orders-api")
}

// A URL password is masked too.
func TestMaskedYAMLMasksURLPasswords(t *testing.T) {
	t.Parallel()
	cfg := mustLoad(t, testOptions(baseYAML, "QUEUEBOX_DATABASE_URL=postgres://queuebox:url-secret@db:5432/queuebox"))
	out, err := cfg.MaskedYAML()
	require.NoError(t, err)
	require.NotContains(t, string(out), "url-secret")
	require.NotContains(t, string(out), "base-db-password")
}

func TestProblems(t *testing.T) {
	t.Parallel()
	require.Nil(t, Problems(nil))
	one := errors.New("one")
	require.Equal(t, []error{one}, Problems(one))
	err := loadError(t, testOptions(baseYAML, "QUEUEBOX_OUTBOX_BATCHSIZE=0", "QUEUEBOX_SERVER_HTTPPORT=0"))
	ps := Problems(err)
	require.Len(t, ps, 2)
	var fe *FieldError
	require.ErrorAs(t, ps[0], &fe)
	require.Equal(t, "outbox.batchSize", fe.Path)
	require.Equal(t, "QUEUEBOX_OUTBOX_BATCHSIZE", fe.Env)
}

func cutEnv(kv string) (string, string, bool) {
	for i := range kv {
		if kv[i] == '=' {
			return kv[:i], kv[i+1:], true
		}
	}
	return kv, "", false
}
