package capture

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The files of the state directory.
const (
	offsetsFile  = "offsets.dat"
	identityFile = "identity"
)

// StateDir is the durable state directory. Every write is atomic: a temp
// file in the same directory, fsync, rename, fsync of the directory, so a
// crash leaves the old file or the new one, never a torn one. It is not
// safe for concurrent use; the owner lock keeps a second process away.
type StateDir struct{ path string }

// NewStateDir returns the state directory at path (outbox.capture.
// stateDirectory); nothing is created until the first write.
func NewStateDir(path string) StateDir { return StateDir{path: path} }

// Identity is the content of the identity file: the identity and instance
// that the files belong to, and the settings they were recorded under
// (to name the setting that changed).
type Identity struct {
	Name     string
	Instance string
	Settings map[string]string
}

// identityKeys are the settings written into the identity file, in order.
var identityKeys = []string{"slot", "publication", "schema", "table", "host", "database"}

func settingsMap(s Settings) map[string]string {
	return map[string]string{"slot": s.Slot, "publication": s.Publication, "schema": s.Schema,
		"table": s.Table, "host": strings.ToLower(s.Host), "database": s.Database}
}

// ReadIdentity returns the identity file, or nil when it does not exist.
func (d StateDir) ReadIdentity() (*Identity, error) {
	b, err := os.ReadFile(filepath.Join(d.path, identityFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the capture state: %w", err)
	}
	id := &Identity{Settings: map[string]string{}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "identity":
			id.Name = v
		case "instance":
			id.Instance = v
		default:
			id.Settings[k] = v
		}
	}
	if id.Name == "" || id.Instance == "" {
		return nil, fmt.Errorf("read the capture state: %s holds no identity and instance", filepath.Join(d.path, identityFile))
	}
	return id, nil
}

// WriteIdentity writes the identity file atomically.
func (d StateDir) WriteIdentity(name, instance string, s Settings) error {
	var b strings.Builder
	fmt.Fprintf(&b, "identity=%s\ninstance=%s\n", name, instance)
	m := settingsMap(s)
	for _, k := range identityKeys {
		fmt.Fprintf(&b, "%s=%s\n", k, m[k])
	}
	return d.write(identityFile, []byte(b.String()))
}

// ReadOffset returns the recorded log position, or "" when none was
// recorded yet.
func (d StateDir) ReadOffset() (string, error) {
	b, err := os.ReadFile(filepath.Join(d.path, offsetsFile))
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the capture offset: %w", err)
	}
	return strings.TrimSpace(string(b)), nil
}

// WriteOffset records the log position atomically.
func (d StateDir) WriteOffset(pos string) error { return d.write(offsetsFile, []byte(pos+"\n")) }

// Empty reports whether the directory holds neither state file.
func (d StateDir) Empty() (bool, error) {
	for _, name := range []string{identityFile, offsetsFile} {
		_, err := os.Stat(filepath.Join(d.path, name))
		if err == nil {
			return false, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("read the capture state: %w", err)
		}
	}
	return true, nil
}

func (d StateDir) write(name string, data []byte) error {
	if err := os.MkdirAll(d.path, 0o750); err != nil {
		return fmt.Errorf("create the capture state directory: %w", err)
	}
	tmp, err := os.CreateTemp(d.path, "."+name+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // a no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("sync %s: %w", name, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(d.path, name)); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	dir, err := os.Open(d.path)
	if err != nil {
		return fmt.Errorf("sync the capture state directory: %w", err)
	}
	defer dir.Close()
	if err := dir.Sync(); err != nil {
		return fmt.Errorf("sync the capture state directory: %w", err)
	}
	return nil
}
