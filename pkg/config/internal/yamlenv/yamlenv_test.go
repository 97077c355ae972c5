package yamlenv_test

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/alternayte/queuebox/pkg/config/internal/yamlenv"
)

// A schema of its own shows that the engine knows nothing of QueueBox's.

type token struct{ text string }

type upper string

type target struct {
	URL     string `yaml:"url"`
	Retries *int   `yaml:"retries"`
	Token   token  `yaml:"token"`
}

type app struct {
	Name      string             `yaml:"name"`
	TimeoutMs int64              `yaml:"timeoutMs"`
	Debug     bool               `yaml:"debug"`
	Mode      upper              `yaml:"mode"`
	Tags      []string           `yaml:"tags"`
	Targets   map[string]*target `yaml:"targets"`
	Steps     []target           `yaml:"steps"`
	Derived   string             `yaml:"-"`
}

var (
	tokenType = reflect.TypeOf(token{})
	upperType = reflect.TypeOf(upper(""))
)

func testSchema() *yamlenv.Schema {
	return &yamlenv.Schema{
		Prefix: "APP_",
		Root:   reflect.TypeOf(app{}),
		Secret: tokenType,
		Parse: map[reflect.Type]func(string) (any, error){
			tokenType: func(text string) (any, error) { return token{text}, nil },
			upperType: func(text string) (any, error) {
				if text == "" {
					return nil, errors.New("must not be empty")
				}
				return upper(strings.ToUpper(text)), nil
			},
		},
		New: func(t reflect.Type) (reflect.Value, bool) {
			if t != reflect.TypeOf((*target)(nil)) {
				return reflect.Value{}, false
			}
			three := 3
			return reflect.ValueOf(&target{Retries: &three}), true
		},
	}
}

// load parses doc, merges vars (already in order) and decodes over def.
func load(t *testing.T, s *yamlenv.Schema, doc string, environ map[string]string, vars ...yamlenv.Var) (app, yamlenv.Decoded, []string) {
	t.Helper()
	tree, dups, err := s.ParseYAML([]byte(doc))
	require.NoError(t, err)
	require.Empty(t, dups)
	warnings := s.ApplyEnv(tree, vars)
	files := map[string]string{"/run/token": "from-file\n"}
	readFile := func(name string) ([]byte, error) {
		if v, ok := files[name]; ok {
			return []byte(v), nil
		}
		return nil, fs.ErrNotExist
	}
	out := app{Name: "default", TimeoutMs: 100}
	d := s.Decode(tree, reflect.ValueOf(&out).Elem(), environ, readFile)
	return out, d, warnings
}

func TestDecodeMergesFileAndVariables(t *testing.T) {
	t.Parallel()
	doc := `
base: &base
  url: https://base.example.com
MODE: fast
targets:
  Orders:
    <<: *base
    token: file:/run/token
  billing:
    url: ${BILLING_URL:-https://fallback.example.com}
steps:
  - url: https://first.example.com
  - url: https://second.example.com
tags: [a]
`
	s := testSchema()
	got, d, warnings := load(t, s, doc, map[string]string{"BILLING_URL": ""},
		yamlenv.Var{Name: "APP_DEBUG", Value: "true"},
		yamlenv.Var{Name: "APP_STEPS_1_URL", Value: "https://env.example.com"},
		yamlenv.Var{Name: "APP_TAGS", Value: "x, y"},
		yamlenv.Var{Name: "APP_TARGETS_ORDERS_RETRIES", Value: "5"},
		yamlenv.Var{Name: "APP_TARGETS_MY__API_URL", Value: "https://api.example.com"},
		yamlenv.Var{Name: "APP_NOPE", Value: "1"},
	)
	require.Empty(t, d.Errs)
	require.Equal(t, []string{"variable APP_NOPE matches no configuration key and has no effect"}, warnings)
	require.Equal(t, []string{"unknown key base is ignored"}, d.Warnings)

	require.Equal(t, "default", got.Name, "a key that no source sets keeps its default")
	require.True(t, got.Debug)
	require.Equal(t, upper("FAST"), got.Mode, "a key matches in any letter case and converts by its type")
	require.Equal(t, []string{"x", "y"}, got.Tags, "a variable replaces the list of the file")
	// The first variable that reaches a list replaces the whole list.
	require.Equal(t, []target{{}, {URL: "https://env.example.com"}}, got.Steps)

	orders := got.Targets["Orders"]
	require.Equal(t, "https://base.example.com", orders.URL, "the merge key copies the base")
	require.Equal(t, token{"from-file"}, orders.Token, "a file: secret is read, its newline dropped")
	require.Equal(t, 5, *orders.Retries, "a variable reaches a map entry of the file in any letter case")
	require.Equal(t, "https://fallback.example.com", got.Targets["billing"].URL, "an empty variable takes the fallback")
	require.Equal(t, 3, *got.Targets["billing"].Retries, "a new entry starts from New")
	require.Equal(t, "https://api.example.com", got.Targets["my_api"].URL, "__ is a literal _ of a map key")
	require.True(t, d.Present["targets.Orders.retries"])
	require.False(t, d.Present["name"])
}

func TestDecodeReportsEveryProblemWithItsVariable(t *testing.T) {
	t.Parallel()
	doc := "timeoutMs: soon\ndebug: maybe\nmode: ''\ntargets:\n  a:\n    token: file:/missing\n    url: ${UNSET}\nsteps: {}\n"
	got, d, _ := load(t, testSchema(), doc, nil)
	var msgs []string
	for _, err := range d.Errs {
		var fe *yamlenv.FieldError
		require.ErrorAs(t, err, &fe)
		msgs = append(msgs, fe.Error())
	}
	require.ElementsMatch(t, []string{
		`timeoutMs (APP_TIMEOUTMS): must be a whole number of milliseconds, got "soon"`,
		`debug (APP_DEBUG): must be true or false, got "maybe"`,
		`mode (APP_MODE): must not be empty`,
		`targets.a.token (APP_TARGETS_A_TOKEN): cannot read the secret file /missing: file does not exist`,
		`targets.a.url (APP_TARGETS_A_URL): the placeholder ${UNSET} names the environment variable UNSET, which is not set; set it or write ${UNSET:-fallback}`,
		`steps (APP_STEPS): must be a list, got a mapping`,
	}, msgs)
	require.Equal(t, int64(100), got.TimeoutMs, "a value that fails to convert keeps the default")
}

func TestParseYAMLReportsKeysWrittenTwiceAndANonMappingTop(t *testing.T) {
	t.Parallel()
	s := testSchema()
	_, dups, err := s.ParseYAML([]byte("name: a\nname: b\n"))
	require.NoError(t, err)
	require.Len(t, dups, 1)
	require.EqualError(t, dups[0], "name (APP_NAME): the key is written twice")

	_, _, err = s.ParseYAML([]byte("- a\n"))
	require.ErrorIs(t, err, yamlenv.ErrNotMapping)
}

func TestVariableNames(t *testing.T) {
	t.Parallel()
	s := testSchema()
	require.Equal(t, []string{"targets", "my_api", "url"}, s.Segments("APP_TARGETS_MY__API_URL"))
	require.Nil(t, s.Segments("OTHER_NAME"))
	require.Equal(t, "APP_STEPS_0_URL", s.VarOfPath("steps[0].url"))
	require.Equal(t, "APP_STEPS_0_URL", s.Var(yamlenv.Path{"steps"}.Index(0).Key("url")))
	require.True(t, s.Has([]string{"targets", "any", "token"}))
	require.False(t, s.Has([]string{"derived"}), "a field tagged - has no variable")
	require.False(t, s.Has([]string{"steps", "x", "url"}), "a list takes an index")
}
