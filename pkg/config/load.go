package config

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"reflect"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

// DefaultConfigFile is the file that QueueBox reads when
// QUEUEBOX_CONFIG_FILE is absent.
const DefaultConfigFile = "/etc/queuebox/queuebox.yml"

// configFileVar names the configuration file. It is not a configuration key.
const configFileVar = EnvPrefix + "CONFIG_FILE"

//go:embed default.yml
var packagedYAML []byte

// PackagedDefault returns a copy of the configuration packaged with
// QueueBox (default.yml in this package).
func PackagedDefault() []byte { return append([]byte(nil), packagedYAML...) }

// Options holds what Load and Validate read from the outside world. Every
// field is optional; tests replace them to stay hermetic.
type Options struct {
	// Environ lists NAME=value pairs. Nil means os.Environ().
	Environ []string
	// ReadFile reads the configuration file and file: secrets. Nil means
	// os.ReadFile.
	ReadFile func(string) ([]byte, error)
	// Packaged is the packaged configuration. Nil means the embedded
	// default.yml; set NoPackaged to load as if the image held none.
	Packaged []byte
	// NoPackaged makes Load ignore Packaged and the embedded default.yml.
	NoPackaged bool
	// CompileExpression compiles a transform expression with its maxDepth
	// and returns the compile error. Nil skips compilation.
	CompileExpression func(expr string, maxDepth int) error
	// LookupHost resolves a destination host for http.blockPrivateAddresses.
	// Nil means net.DefaultResolver.
	LookupHost func(ctx context.Context, host string) ([]net.IP, error)
}

func (o Options) withDefaults() Options {
	if o.Environ == nil {
		o.Environ = os.Environ()
	}
	if o.ReadFile == nil {
		o.ReadFile = os.ReadFile
	}
	if o.Packaged == nil {
		o.Packaged = packagedYAML
	}
	if o.NoPackaged {
		o.Packaged = nil
	}
	if o.LookupHost == nil {
		o.LookupHost = func(ctx context.Context, host string) ([]net.IP, error) {
			return net.DefaultResolver.LookupIP(ctx, "ip", host)
		}
	}
	return o
}

// Load reads the configuration from its three sources, merges them, decodes
// the result over Default(), selects the kind of every entry, fills the
// defaults that depend on the kind and validates everything. It returns all
// problems together, sorted, one per line (see FormatError); a failed load
// returns a nil Config.
//
// Precedence: QUEUEBOX_ variables win over the file that QUEUEBOX_CONFIG_FILE
// names (default /etc/queuebox/queuebox.yml). The file replaces the packaged
// configuration, which Load reads only when no file exists and no QUEUEBOX_
// variable is set: neither a configuration variable nor QUEUEBOX_CONFIG_FILE.
func Load(opts Options) (*Config, error) {
	opts = opts.withDefaults()
	env := yamlenv.Environ(opts.Environ)
	tree, src, err := readSources(opts, env)
	if err != nil {
		return nil, err
	}
	cfg := Default()
	d := schema.Decode(tree, reflect.ValueOf(&cfg).Elem(), env, opts.ReadFile)
	cfg.applyPresence(d.Present)
	errs := append(src.errs, d.Errs...)
	errs = append(errs, withoutPaths(cfg.check(opts), d.Errs)...)
	if len(errs) > 0 {
		return nil, joinSorted(errs)
	}
	cfg.warnings = append(append(src.warnings, d.Warnings...), kindWarnings(&cfg)...)
	cfg.warnings = append(cfg.warnings, addressWarnings(&cfg)...)
	cfg.warnings = append(cfg.warnings, fastPathWarnings(&cfg)...)
	return &cfg, nil
}

// Warnings returns what Load noticed but did not refuse: unknown keys,
// variables that match no key, a type that disagrees with the selected
// kind, a broker destination whose whole address comes from the row. A
// binary logs each one at start.
func (c *Config) Warnings() []string { return append([]string(nil), c.warnings...) }

// sources is the merged tree with what reading the sources reported.
type sources struct {
	errs     []error
	warnings []string
}

// readSources picks the file or the packaged configuration and merges the
// variables into it.
func readSources(opts Options, env map[string]string) (*yamlenv.Map, sources, error) {
	var src sources
	vars := configVars(env)
	file, named := env[configFileVar], true
	if file == "" {
		file, named = DefaultConfigFile, false
	}
	data, err := opts.ReadFile(file)
	var tree *yamlenv.Map
	switch {
	case err == nil:
		if tree, src.errs, err = parseYAML(data); err != nil {
			return nil, src, fmt.Errorf("parse the configuration file %s: %w", file, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return nil, src, fmt.Errorf("read the configuration file %s: %w", file, err)
	case len(vars) > 0:
		tree = yamlenv.NewMap()
	case named:
		// QUEUEBOX_CONFIG_FILE is a QUEUEBOX_ variable too: the operator
		// asked for a file, and running the packaged configuration in its
		// place would hide a typo in the path.
		return nil, src, namedFileMissingError(file)
	case len(opts.Packaged) > 0:
		if tree, src.errs, err = parseYAML(opts.Packaged); err != nil {
			return nil, src, fmt.Errorf("parse the packaged configuration: %w", err)
		}
	default:
		return nil, src, noSourceError(file)
	}
	if err != nil && named {
		src.warnings = append(src.warnings, fmt.Sprintf("%s names %s, which does not exist", configFileVar, file))
	}
	src.warnings = append(src.warnings, schema.ApplyEnv(tree, vars)...)
	return tree, src, nil
}

// parseYAML parses one configuration document (see yamlenv.ParseYAML).
func parseYAML(data []byte) (*yamlenv.Map, []error, error) {
	tree, dups, err := schema.ParseYAML(data)
	if errors.Is(err, yamlenv.ErrNotMapping) {
		err = errors.New("the top level must be a mapping of sections such as server and database")
	}
	return tree, dups, err
}

// noSourceError names the three sources that were all empty.
func noSourceError(file string) error {
	return fmt.Errorf("no configuration source: no %s environment variable is set, "+
		"the configuration file %s does not exist (%s names another file), "+
		"and the image holds no packaged queuebox.yml", EnvPrefix, file, configFileVar)
}

// namedFileMissingError names the three sources when QUEUEBOX_CONFIG_FILE
// names a file that does not exist and no configuration variable is set.
func namedFileMissingError(file string) error {
	return fmt.Errorf("no configuration source: no %s configuration variable is set, "+
		"the configuration file %s that %s names does not exist, "+
		"and the packaged queuebox.yml is not read because %s is set",
		EnvPrefix, file, configFileVar, configFileVar)
}

// applyPresence copies what the decoder saw into the fields that remember
// whether a key was written.
func (c *Config) applyPresence(present map[string]bool) {
	for name, s := range c.Sources {
		if s != nil && present[keyPath{"sources", name, "topic"}.String()] {
			s.topicSet = true
		}
	}
}

// withoutPaths drops the validation problems of keys whose value already
// failed to decode: "must be a whole number" says all there is to say, and
// a second "required" or "must be above 0" for the same key would mislead.
func withoutPaths(errs, decodeErrs []error) []error {
	failed := map[string]bool{}
	for _, e := range decodeErrs {
		if fe, ok := e.(*FieldError); ok {
			failed[fe.Path] = true
		}
	}
	out := errs[:0]
	for _, e := range errs {
		if fe, ok := e.(*FieldError); !ok || !failed[fe.Path] {
			out = append(out, e)
		}
	}
	return out
}
