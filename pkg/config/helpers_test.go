package config

import (
	"context"
	"io/fs"
	"net"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// testConfigFile is the path that the tests point QUEUEBOX_CONFIG_FILE at.
const testConfigFile = "/test/queuebox.yml"

// baseYAML is the smallest valid file: the three database keys.
const baseYAML = `database:
  url: jdbc:postgresql://db:5432/queuebox
  username: queuebox
  password: base-db-password
`

// fakeFiles serves Options.ReadFile from memory; a missing path returns
// fs.ErrNotExist like os.ReadFile does.
type fakeFiles map[string]string

func (f fakeFiles) read(path string) ([]byte, error) {
	if c, ok := f[path]; ok {
		return []byte(c), nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

// fakeDNS resolves names from a table and fails on any other name.
type fakeDNS map[string][]string

func (d fakeDNS) lookup(_ context.Context, host string) ([]net.IP, error) {
	addrs, ok := d[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	ips := make([]net.IP, len(addrs))
	for i, a := range addrs {
		ips[i] = net.ParseIP(a)
	}
	return ips, nil
}

// testOptions returns hermetic options: the file (when not empty) at
// testConfigFile, the given variables, no packaged configuration and a DNS
// that knows no name.
func testOptions(file string, env ...string) Options {
	files := fakeFiles{}
	if file != "" {
		files[testConfigFile] = file
	}
	return Options{
		Environ:    append([]string{"QUEUEBOX_CONFIG_FILE=" + testConfigFile}, env...),
		ReadFile:   files.read,
		NoPackaged: true,
		LookupHost: fakeDNS{}.lookup,
	}
}

func mustLoad(t *testing.T, opts Options) *Config {
	t.Helper()
	cfg, err := Load(opts)
	require.NoError(t, err, FormatError(err))
	require.NotNil(t, cfg)
	return cfg
}

func loadError(t *testing.T, opts Options) error {
	t.Helper()
	cfg, err := Load(opts)
	require.Error(t, err)
	require.Nil(t, cfg)
	return err
}

// requireProblems checks that err names every wanted text and that every
// line of err is explained by one of them, so a case cannot pass while an
// unrelated rule fails.
func requireProblems(t *testing.T, err error, wants ...string) {
	t.Helper()
	require.Error(t, err)
	text := err.Error()
	for _, w := range wants {
		require.Contains(t, text, w)
	}
	for _, line := range strings.Split(text, "\n") {
		explained := false
		for _, w := range wants {
			explained = explained || strings.Contains(line, w)
		}
		require.Truef(t, explained, "unexpected problem %q", line)
	}
	require.NotContains(t, FormatError(err), "\n")
}
