package config

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every key the loader reads has an entry in keyRules, and every entry
// names a key, so the reference cannot omit a key or keep a stale one.
func TestKeyRulesCoverEveryKey(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, k := range Keys() {
		_, ok := ruleOf(k.Path)
		require.Truef(t, ok, "%s has no entry in keyRules", k.Path)
		seen[k.Path] = true
		if i := strings.LastIndexByte(k.Path, '.'); i > 0 {
			seen[k.Path[:i]+".*"] = true
		}
		require.Equal(t, k.Var, PathToEnvKey(k.Path), "the variable of %s", k.Path)
	}
	for pattern := range keyRules {
		require.Truef(t, seen[pattern], "keyRules names %s, which is no key", pattern)
	}
}

// sampleEntries names, per kind, the entry of testdata/complete.yml that
// the rule checks set a key on.
var sampleEntries = map[string]map[string]string{
	"destinations": {"": "orders-api", KindHTTP: "orders-api", KindRabbitMQ: "events-exchange", KindKafka: "events-topic", KindNATS: "events-subject"},
	"sources":      {"": "stripe", KindHTTP: "stripe", KindRabbitMQ: "orders-queue", KindKafka: "orders-log", KindNATS: "orders-stream", AuthHMAC: "stripe"},
}

// samplePath turns a key pattern into a path of testdata/complete.yml with
// an entry of the key's first kind, plus the variables that entry needs
// for the key to be read (an hmac admin or viewer block).
func samplePath(k Key) (string, []string) {
	kind := ""
	if len(k.Kinds) > 0 {
		kind = k.Kinds[0]
	}
	var extra []string
	for _, block := range []string{"auth", "viewer"} {
		if strings.HasPrefix(k.Path, "admin."+block+".") && kind == AuthHMAC {
			v := "QUEUEBOX_ADMIN_" + strings.ToUpper(block) + "_"
			extra = []string{v + "TYPE=hmac", v + "SECRET=admin-hmac-secret"}
		}
	}
	if strings.HasPrefix(k.Path, "sources.<name>.auth.") && kind == AuthHMAC {
		kind = AuthHMAC
	}
	path := strings.ReplaceAll(k.Path, indexSegment, "[0]")
	if entries, ok := sampleEntries[k.segs[0]]; ok {
		path = strings.Replace(path, nameSegment, entries[kind], 1)
	}
	return path, extra
}

// problemAt reports whether err names the key at path.
func problemAt(err error, path string) bool {
	var multi interface{ Unwrap() []error }
	if !errors.As(err, &multi) {
		return false
	}
	for _, e := range multi.Unwrap() {
		if fe, ok := e.(*FieldError); ok && fe.Path == path {
			return true
		}
	}
	return false
}

// The bounds and values of the table are the validator's: a value past a
// bound or outside the values is refused at that key, and the bound itself
// is accepted there. Preset-only keys are left to the preset tests.
func TestKeyRulesAgreeWithTheValidator(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/complete.yml")
	require.NoError(t, err)
	loadWith := func(k Key, value string) error {
		path, extra := samplePath(k)
		env := append(append(append([]string(nil), completeEnv...), extra...), PathToEnvKey(path)+"="+value)
		_, err := Load(testOptions(string(data), env...))
		if err != nil && !problemAt(err, path) {
			return nil
		}
		return err
	}
	checked := 0
	for _, k := range Keys() {
		if len(k.Kinds) > 0 && IsPreset(k.Kinds[0]) {
			continue
		}
		path, _ := samplePath(k)
		if k.Min != nil {
			checked++
			require.Errorf(t, loadWith(k, strconv.FormatInt(*k.Min-1, 10)), "%s below %d", path, *k.Min)
			require.NoErrorf(t, loadWith(k, strconv.FormatInt(*k.Min, 10)), "%s at %d", path, *k.Min)
		}
		if k.Max != nil {
			require.Errorf(t, loadWith(k, strconv.FormatInt(*k.Max+1, 10)), "%s above %d", path, *k.Max)
			require.NoErrorf(t, loadWith(k, strconv.FormatInt(*k.Max, 10)), "%s at %d", path, *k.Max)
		}
		if len(k.Enum) > 0 {
			checked++
			require.Errorf(t, loadWith(k, "not-"+k.Enum[0]), "%s outside its values", path)
			require.NoErrorf(t, loadWith(k, k.Enum[0]), "%s = %s", path, k.Enum[0])
		}
	}
	require.Greater(t, checked, 50)
}
