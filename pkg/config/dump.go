package config

import (
	"bytes"
	"errors"

	"go.yaml.in/yaml/v3"
)

// MaskedYAML renders the effective configuration as queuebox.yml would
// write it, every secret and every URL password masked: secret.Secret
// marshals as its mask, and the database, destination and source blocks
// mask their URLs (mask.go). Derived fields (the kind, the entry name) are
// left out, as the file has no key for them.
func (c *Config) MaskedYAML() ([]byte, error) {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(c); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// MarshalText writes a duration as it was written, for example 7d.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.Text), nil }

// Problems splits the error of Load or Validate into its problems, one per
// element, in the sorted order Load gives them. A FieldError names its key
// and variable; an error without parts is one problem.
func Problems(err error) []error {
	if err == nil {
		return nil
	}
	var multi interface{ Unwrap() []error }
	if errors.As(err, &multi) {
		return multi.Unwrap()
	}
	return []error{err}
}
