package integration

import (
	"fmt"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// chaosFleet runs queuebox-deliver replicas on one database. Every replica
// has its own name: it connects with that application_name (the audit
// table records it) and posts to /r/NAME (the receiver records it).
type chaosFleet struct {
	t    *testing.T
	env  map[string]string
	db   database
	next int
	live map[string]*process
	// killed holds when each replica got SIGKILL; terminated, when it
	// exited after SIGTERM.
	killed, terminated map[string]time.Time
	all                map[string]*process
}

func newChaosFleet(t *testing.T, db database, env map[string]string) *chaosFleet {
	return &chaosFleet{t: t, env: env, db: db, live: map[string]*process{},
		killed: map[string]time.Time{}, terminated: map[string]time.Time{}, all: map[string]*process{}}
}

func (f *chaosFleet) start() string {
	f.t.Helper()
	f.next++
	name := fmt.Sprintf("r%d", f.next)
	env := with(f.env,
		"QUEUEBOX_DATABASE_URL", f.db.JDBC+"?ApplicationName="+name,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_PATH", "/r/"+name)
	p := startServing(f.t, "deliver", env)
	f.live[name], f.all[name] = p, p
	return name
}

// pick returns a live replica, chosen by the map's random order.
func (f *chaosFleet) pick() string {
	for name := range f.live {
		return name
	}
	f.t.Fatal("no live replica")
	return ""
}

func (f *chaosFleet) kill(name string) {
	f.live[name].kill()
	f.killed[name] = time.Now()
	delete(f.live, name)
}

func (f *chaosFleet) terminate(name string) {
	f.t.Helper()
	require.Equal(f.t, 0, f.live[name].terminate(f.t, 40*time.Second), "%s exits 0 after SIGTERM", name)
	f.terminated[name] = time.Now()
	delete(f.live, name)
}

var (
	reclaimLog  = regexp.MustCompile(`returned expired claims to pending.*?"?rows"?[=:](\d+)`)
	lostLogLine = regexp.MustCompile(`(?m)^.*(lease lost|claim lost).*$`)
)

// logReclaims sums the rows that a replica logged as reclaimed.
func logReclaims(t *testing.T, p *process) int {
	total := 0
	for _, m := range reclaimLog.FindAllStringSubmatch(p.out.String(), -1) {
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		total += n
	}
	return total
}

// lostLines returns the log lines of a replica that report a lost claim.
func lostLines(p *process) []string {
	return lostLogLine.FindAllString(p.out.String(), -1)
}

var warnLine = regexp.MustCompile(`"level":"(WARN|ERROR)","msg":"([^"]*)"`)

// logSummary counts the warnings and errors of every replica by message.
func (f *chaosFleet) logSummary() map[string]int {
	out := map[string]int{}
	for _, p := range f.all {
		for _, m := range warnLine.FindAllStringSubmatch(p.out.String(), -1) {
			out[m[1]+" "+m[2]]++
		}
	}
	return out
}
