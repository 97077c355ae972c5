package archtest

import (
	"slices"
	"testing"
)

// The workers take option structs of their own: only the wiring
// (services/...) reads the configuration.
func TestWorkersReachNoConfig(t *testing.T) {
	t.Parallel()
	for _, worker := range []string{"pkg/deliver", "pkg/relay", "pkg/retention"} {
		for _, v := range forbidden(t, module+worker, module+"pkg/config") {
			t.Errorf("%s reaches the configuration: %s", worker, v)
		}
	}
	// pkg/admin reaches it only through pkg/auth, whose New takes the auth
	// block of the configuration; admin itself takes admin.Options.
	admin := goList(t, module+"pkg/admin")
	if len(admin) != 1 {
		t.Fatalf("pkg/admin matches %d packages", len(admin))
	}
	if slices.Contains(admin[0].Imports, module+"pkg/config") {
		t.Errorf("pkg/admin imports the configuration")
	}
}
