package deploy

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// instruction is one Dockerfile instruction with its continuation lines
// joined: the keyword in upper case, the --flags before the arguments, and
// the arguments as written (JSON form kept as text).
type instruction struct {
	Cmd   string
	Flags map[string]string
	Args  string
}

// stage is the instructions from one FROM to the next.
type stage struct {
	Name, Base string
	Body       []instruction
}

// parseDockerfile reads the file into stages. It knows what this
// repository's Dockerfile uses: comments, line continuations, --flags and
// "FROM image AS name". It is not a general Dockerfile parser.
func parseDockerfile(t *testing.T, path string) []stage {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var stages []stage
	for _, in := range joinLines(string(data)) {
		if in.Cmd == "FROM" {
			base, name, _ := strings.Cut(in.Args, " AS ")
			stages = append(stages, stage{Name: strings.TrimSpace(name), Base: strings.TrimSpace(base)})
			continue
		}
		require.NotEmpty(t, stages, "%s: %s before the first FROM", path, in.Cmd)
		stages[len(stages)-1].Body = append(stages[len(stages)-1].Body, in)
	}
	return stages
}

// joinLines turns the text into instructions: it drops comments and blank
// lines and joins a line that ends in a backslash with the next.
func joinLines(text string) []instruction {
	var out []instruction
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if body, ok := strings.CutSuffix(trimmed, "\\"); ok {
			cur.WriteString(body + " ")
			continue
		}
		cur.WriteString(trimmed)
		out = append(out, splitInstruction(cur.String()))
		cur.Reset()
	}
	return out
}

func splitInstruction(line string) instruction {
	cmd, rest, _ := strings.Cut(line, " ")
	in := instruction{Cmd: strings.ToUpper(cmd), Flags: map[string]string{}}
	rest = strings.TrimSpace(rest)
	for strings.HasPrefix(rest, "--") {
		flag, after, _ := strings.Cut(rest, " ")
		name, value, _ := strings.Cut(strings.TrimPrefix(flag, "--"), "=")
		in.Flags[name] = value
		rest = strings.TrimSpace(after)
	}
	in.Args = rest
	return in
}

// find returns the instructions of one keyword in the stage.
func (s stage) find(cmd string) []instruction {
	var out []instruction
	for _, in := range s.Body {
		if in.Cmd == cmd {
			out = append(out, in)
		}
	}
	return out
}

// one returns the single instruction of that keyword, failing the test
// when the stage has none or several.
func (s stage) one(t *testing.T, cmd string) instruction {
	t.Helper()
	found := s.find(cmd)
	require.Len(t, found, 1, "stage %s: one %s", s.Name, cmd)
	return found[0]
}

// execForm decodes the JSON (exec) form of CMD or HEALTHCHECK CMD.
func execForm(t *testing.T, args string) []string {
	t.Helper()
	var argv []string
	require.NoError(t, json.Unmarshal([]byte(args), &argv), "exec form (JSON array) expected: %s", args)
	return argv
}

// labels collects every LABEL key=value pair of the stage; values lose
// their quotes.
func (s stage) labels() map[string]string {
	out := map[string]string{}
	for _, in := range s.find("LABEL") {
		for _, pair := range splitQuoted(in.Args) {
			k, v, _ := strings.Cut(pair, "=")
			out[k] = strings.Trim(v, `"`)
		}
	}
	return out
}

// splitQuoted splits on spaces outside double quotes.
func splitQuoted(s string) []string {
	var out []string
	var cur strings.Builder
	quoted := false
	for _, r := range s {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ' ' && !quoted:
			if cur.Len() > 0 {
				out = append(out, cur.String())
				cur.Reset()
			}
		default:
			cur.WriteRune(r)
		}
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

// TestParseDockerfile pins the parser on a small text.
func TestParseDockerfile(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/Dockerfile"
	require.NoError(t, os.WriteFile(path, []byte(`# comment
FROM golang:1 AS build
RUN a && \
    # inside
    b
FROM debian:12
LABEL a="x y" \
      b=z
COPY --from=build --chown=1:1 /out/ /bin/
CMD ["x", "y"]
`), 0o600))
	stages := parseDockerfile(t, path)
	require.Len(t, stages, 2)
	require.Equal(t, stage{Name: "build", Base: "golang:1", Body: []instruction{{Cmd: "RUN", Flags: map[string]string{}, Args: "a &&  b"}}}, stages[0])
	require.Equal(t, map[string]string{"a": "x y", "b": "z"}, stages[1].labels())
	cp := stages[1].one(t, "COPY")
	require.Equal(t, map[string]string{"from": "build", "chown": "1:1"}, cp.Flags)
	require.Equal(t, "/out/ /bin/", cp.Args)
	require.Equal(t, []string{"x", "y"}, execForm(t, stages[1].one(t, "CMD").Args))
}
