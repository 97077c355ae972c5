package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoad feeds any bytes to the loader as the configuration file, with
// the database variables set: Load never panics, returns a Config or an
// error and never both, and an error never quotes a secret of the file.
func FuzzLoad(f *testing.F) {
	complete, err := os.ReadFile(filepath.Join("testdata", "complete.yml"))
	if err == nil {
		f.Add(complete)
	}
	f.Add([]byte("sources:\n  s:\n    type: http\n    path: /s\n    idempotencyKeyPath: $.id\n    auth:\n      type: bearer\n      token: fuzz-secret-token\n"))
	f.Add([]byte("inbox:\n  maxBodyBytes: -1\n"))
	f.Add([]byte("destinations:\n  d:\n    type: http\n    baseUrl: http://user:pw@127.0.0.1\nhttp:\n  blockPrivateAddresses: true\n"))
	f.Add([]byte("{{{"))
	f.Add([]byte("routes: [1, {topicPattern: '**'}]\n"))
	f.Fuzz(func(t *testing.T, file []byte) {
		cfg, err := Load(testOptions(string(file),
			"QUEUEBOX_DATABASE_URL=jdbc:postgresql://127.0.0.1:5432/q", "QUEUEBOX_DATABASE_USERNAME=q",
			"QUEUEBOX_DATABASE_PASSWORD=fuzz-db-password"))
		if (cfg == nil) == (err == nil) {
			t.Fatalf("Load returned config %v and error %v", cfg != nil, err)
		}
		if err != nil {
			for _, s := range []string{"fuzz-secret-token", "fuzz-db-password"} {
				if strings.Contains(err.Error(), s) {
					t.Fatalf("the error quotes a secret: %v", err)
				}
			}
		}
	})
}
