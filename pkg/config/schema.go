package config

import (
	"reflect"
	"strings"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
	"github.com/alternayte/queuebox/pkg/secret"
)

// The Go types are the schema: package yamlenv walks them by reflection
// to merge the variables into the file and decode the result. This file
// tells it what is QueueBox's: the prefix, the secret and duration types
// and the defaults of new entries.

var (
	secretType   = reflect.TypeOf(secret.Secret{})
	durationType = reflect.TypeOf(Duration{})
)

// schema is the configuration of queuebox.yml and the QUEUEBOX_ variables.
var schema = &yamlenv.Schema{
	Prefix: EnvPrefix,
	Root:   reflect.TypeOf(Config{}),
	Secret: secretType,
	Parse: map[reflect.Type]func(string) (any, error){
		secretType: func(text string) (any, error) { return secret.New(text), nil },
		durationType: func(text string) (any, error) {
			return ParseDuration(strings.TrimSpace(text))
		},
	},
	New: construct,
}

// construct returns the starting value of an entry that a source creates.
// Entries of a map, transform blocks and auth blocks start from their
// documented defaults, so a key that no source sets keeps its default.
func construct(t reflect.Type) (reflect.Value, bool) {
	switch t {
	case reflect.TypeOf((*Destination)(nil)):
		return reflect.ValueOf(newDestination()), true
	case reflect.TypeOf((*Source)(nil)):
		return reflect.ValueOf(newSource()), true
	case reflect.TypeOf((*Transform)(nil)):
		return reflect.ValueOf(newTransform()), true
	case reflect.TypeOf((*SourceAuth)(nil)):
		return reflect.ValueOf(newSourceAuth()), true
	}
	return reflect.Value{}, false
}
