package integration

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/alternayte/queuebox/pkg/config"
	"github.com/alternayte/queuebox/pkg/store/postgres/pgtest"
	"github.com/alternayte/queuebox/pkg/transform"
)

// skillFile is the agent skill of the repository.
var skillFile = filepath.Join("..", "skills", "queuebox", "SKILL.md")

// skillBlocks returns the blocks of the skill written in lang.
func skillBlocks(t *testing.T, lang string) []string {
	t.Helper()
	page, err := os.ReadFile(skillFile)
	require.NoError(t, err)
	var out []string
	for _, b := range markdownBlocks(t, skillFile, string(page)) {
		if b.Lang == lang {
			out = append(out, b.Text)
		}
	}
	require.NotEmpty(t, out, "the skill holds %s blocks", lang)
	return out
}

// TestSkillFrontMatter: the front matter names the skill and says when an
// agent loads it.
func TestSkillFrontMatter(t *testing.T) {
	t.Parallel()
	page, err := os.ReadFile(skillFile)
	require.NoError(t, err)
	head, ok := strings.CutPrefix(string(page), "---\n")
	require.True(t, ok, "the skill opens with front matter")
	head, _, ok = strings.Cut(head, "\n---\n")
	require.True(t, ok, "the front matter ends")
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
	}
	require.NoError(t, yaml.Unmarshal([]byte(head), &fm))
	require.Equal(t, "queuebox", fm.Name)
	for _, when := range []string{"outbox", "inbox", "queuebox.yml"} {
		require.Contains(t, fm.Description, when)
	}
}

// placeholder matches a ${NAME} reference of a configuration file.
var placeholder = regexp.MustCompile(`\$\{([A-Z_][A-Z0-9_]*)\}`)

// TestSkillYAMLLoads: every YAML block of the skill is a configuration
// that QueueBox's loader accepts without a warning, transforms compiled,
// with each ${NAME} it reads set in the environment.
func TestSkillYAMLLoads(t *testing.T) {
	t.Parallel()
	for i, block := range skillBlocks(t, "yaml") {
		const file = "/skill/queuebox.yml"
		env := []string{"QUEUEBOX_CONFIG_FILE=" + file}
		for _, m := range placeholder.FindAllStringSubmatch(block, -1) {
			env = append(env, m[1]+"=from-the-environment")
		}
		cfg, err := config.Load(config.Options{
			Environ:           env,
			NoPackaged:        true,
			CompileExpression: transform.Check, // as the binaries load it
			ReadFile: func(name string) ([]byte, error) {
				if name == file {
					return []byte(block), nil
				}
				return nil, os.ErrNotExist
			},
			// The example's hosts are made up; resolve them to a public
			// address so that no lookup leaves the machine.
			LookupHost: func(context.Context, string) ([]net.IP, error) { return []net.IP{net.IPv4(192, 0, 2, 10)}, nil },
		})
		require.NoError(t, err, "yaml block %d:\n%s", i+1, block)
		require.Empty(t, cfg.Warnings(), "yaml block %d", i+1)
	}
}

// endsTransaction matches a statement that would end the test's
// transaction, which a snippet must leave to the application.
var endsTransaction = regexp.MustCompile(`(?im)^\s*(BEGIN|COMMIT|ROLLBACK|START TRANSACTION)\b`)

// TestSkillSQLRuns: every SQL block of the skill runs against a freshly
// migrated schema, inside a transaction that is rolled back.
func TestSkillSQLRuns(t *testing.T) {
	t.Parallel()
	schema, _ := pgtest.Migrated(t, 2)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, schema.URL)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.Background()) })
	for i, block := range skillBlocks(t, "sql") {
		require.NotRegexp(t, endsTransaction, block, "sql block %d runs inside the caller's transaction", i+1)
		tx, err := conn.Begin(ctx)
		require.NoError(t, err)
		_, err = tx.Exec(ctx, block)
		require.NoError(t, err, "sql block %d:\n%s", i+1, block)
		require.NoError(t, tx.Rollback(ctx))
	}
}
