package deploy

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// repoRoot is the checkout root: this package is deploy/.
const repoRoot = ".."

// roleBinaries are the split-shape binaries that the image carries beside
// queuebox, each built from services/<role>.
var roleBinaries = []string{"ingest", "relay", "deliver", "capture"}

// The image is what the deploy documentation describes: the last stage is
// the production image; it runs every role by default as the numeric
// non-root user queuebox, listens on 8080, checks itself with the binary's
// own probe and carries the version in its OCI labels.
func TestDockerfileRuntimeStage(t *testing.T) {
	t.Parallel()
	stages := parseDockerfile(t, "Dockerfile")
	rt := stages[len(stages)-1]
	require.Equal(t, "runtime", rt.Name, "the production image is the default target, so the last stage")
	// glibc for confluent-kafka-go's cgo build of librdkafka.
	require.Equal(t, "debian:bookworm-slim", rt.Base)

	require.Equal(t, []string{"queuebox"}, execForm(t, rt.one(t, "CMD").Args), "no arguments: every role")
	require.Equal(t, "10001:10001", rt.one(t, "USER").Args, "numeric, so runAsNonRoot can verify it")
	require.Contains(t, runText(rt), "useradd --system --uid 10001 --gid 10001", "uid 10001 is the user queuebox")
	require.Contains(t, runText(rt), "chown -R 10001:10001 /var/lib/queuebox", "the capture state directory belongs to queuebox")
	require.Equal(t, "8080", rt.one(t, "EXPOSE").Args)

	hc := rt.one(t, "HEALTHCHECK")
	check, ok := strings.CutPrefix(hc.Args, "CMD ")
	require.True(t, ok, "HEALTHCHECK CMD: %s", hc.Args)
	require.Equal(t, []string{"queuebox", "health"}, execForm(t, check), "the binary's probe of localhost:8080/health, no curl")
	for _, flag := range []string{"interval", "timeout", "start-period", "retries"} {
		require.NotEmpty(t, hc.Flags[flag], "HEALTHCHECK --%s", flag)
	}

	labels := rt.labels()
	require.Equal(t, "${VERSION}", labels["org.opencontainers.image.version"])
	require.Equal(t, "QueueBox", labels["org.opencontainers.image.title"])
	require.Equal(t, "https://github.com/alternayte/queuebox", labels["org.opencontainers.image.source"])
	require.Contains(t, argNames(rt), "VERSION", "the runtime stage declares the ARG its label reads")
}

// The runtime image installs nothing but CA certificates (no curl, no
// shell tools) and copies only the QueueBox binaries of the build stage:
// the demo receiver stays in its own target.
func TestDockerfileRuntimeCarriesNoExtras(t *testing.T) {
	t.Parallel()
	stages := parseDockerfile(t, "Dockerfile")
	rt := stages[len(stages)-1]
	install := regexp.MustCompile(`apt-get install -y --no-install-recommends ([a-z0-9 .-]+?) &&`).FindStringSubmatch(runText(rt))
	require.NotNil(t, install, "one apt-get install in the runtime stage")
	require.Equal(t, []string{"ca-certificates"}, strings.Fields(install[1]))
	require.NotContains(t, runText(rt), "curl")

	for _, cp := range rt.find("COPY") {
		require.Equal(t, "build", cp.Flags["from"], "runtime copies only from the build stage: %s", cp.Args)
	}
	require.NotContains(t, runText(stageNamed(t, stages, "build")), "compose/receiver")

	recv := stageNamed(t, stages, "demo-receiver")
	require.Equal(t, []string{"queuebox-demo-receiver"}, execForm(t, recv.one(t, "CMD").Args))
	require.Equal(t, "demo-receiver-build", recv.one(t, "COPY").Flags["from"])
}

// The build stage builds queuebox and the four role binaries from
// services/, and every path a stage copies from the context exists and is
// not kept out by .dockerignore.
func TestDockerfileBuildsEveryBinaryFromExistingSources(t *testing.T) {
	t.Parallel()
	stages := parseDockerfile(t, "Dockerfile")
	build := stageNamed(t, stages, "build")
	run := runText(build)
	require.Contains(t, run, "cd services")
	require.Contains(t, run, "-o /out/queuebox ./queuebox")
	loop := regexp.MustCompile(`for role in ([a-z ]+); do`).FindStringSubmatch(run)
	require.NotNil(t, loop, "the role loop of the build stage")
	require.Equal(t, roleBinaries, strings.Fields(loop[1]))
	require.Contains(t, run, "-o /out/queuebox-$role ./$role")
	for _, dir := range append([]string{"queuebox"}, roleBinaries...) {
		requireFile(t, filepath.Join("services", dir, "main.go"))
	}
	require.Contains(t, build.one(t, "ENV").Args, "CGO_ENABLED=1", "confluent-kafka-go needs cgo")

	ignore := readDockerignore(t)
	for _, s := range stages {
		require.Regexp(t, `^[a-z0-9./-]+:[a-z0-9][a-z0-9._-]*$`, s.Base, "stage %s: a base image with a tag", s.Name)
		require.False(t, strings.HasSuffix(s.Base, ":latest"), "stage %s: a tag that does not move", s.Name)
		for _, cp := range s.find("COPY") {
			if cp.Flags["from"] != "" {
				continue
			}
			fields := strings.Fields(cp.Args)
			for _, src := range fields[:len(fields)-1] {
				requireFile(t, src)
				require.False(t, ignore.excludes(src), "stage %s copies %s, which .dockerignore keeps out", s.Name, src)
			}
		}
	}
}

// .dockerignore keeps the repository history, build output and Node
// modules out of the build context.
func TestDockerignore(t *testing.T) {
	t.Parallel()
	ignore := readDockerignore(t)
	for _, p := range []string{".git", "bin/queuebox", "clients/typescript/node_modules/pg", "deploy/local/.run/x.log"} {
		require.True(t, ignore.excludes(p), "%s leaves the build context", p)
	}
	for _, p := range []string{"services/queuebox/main.go", "pkg/go.mod", "compose/receiver/main.go"} {
		require.False(t, ignore.excludes(p), "%s stays in the build context", p)
	}
}

// dockerignore is the list of patterns of .dockerignore.
type dockerignore []string

func readDockerignore(t *testing.T) dockerignore {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, ".dockerignore"))
	require.NoError(t, err)
	var pats dockerignore
	for _, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			pats = append(pats, strings.TrimSuffix(line, "/"))
		}
	}
	return pats
}

// excludes reports whether a context path falls under a pattern: a plain
// pattern matches from the root (with path.Match), "**/name" matches at
// any depth, and a matched directory excludes everything inside it.
func (d dockerignore) excludes(p string) bool {
	p = strings.TrimSuffix(path.Clean(p), "/")
	segs := strings.Split(p, "/")
	for _, pat := range d {
		if name, ok := strings.CutPrefix(pat, "**/"); ok {
			if slices.ContainsFunc(segs, func(s string) bool { m, _ := path.Match(name, s); return m }) {
				return true
			}
			continue
		}
		depth := strings.Count(pat, "/") + 1
		if len(segs) >= depth {
			if m, _ := path.Match(pat, strings.Join(segs[:depth], "/")); m {
				return true
			}
		}
	}
	return false
}

func stageNamed(t *testing.T, stages []stage, name string) stage {
	t.Helper()
	for _, s := range stages {
		if s.Name == name {
			return s
		}
	}
	require.Failf(t, "missing stage", "no stage %q", name)
	return stage{}
}

// runText joins the RUN commands of a stage.
func runText(s stage) string {
	var parts []string
	for _, in := range s.find("RUN") {
		parts = append(parts, in.Args)
	}
	return strings.Join(parts, "\n")
}

func argNames(s stage) []string {
	var names []string
	for _, in := range s.find("ARG") {
		name, _, _ := strings.Cut(in.Args, "=")
		names = append(names, name)
	}
	return names
}

// requireFile fails unless the path exists below the repository root.
func requireFile(t *testing.T, rel string) {
	t.Helper()
	_, err := os.Stat(filepath.Join(repoRoot, rel))
	require.NoError(t, err, "%s must exist in the repository", rel)
}
