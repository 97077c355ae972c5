package chaos

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	amqp "github.com/rabbitmq/amqp091-go"
)

// RabbitServer is the RabbitMQ start script that private nodes run:
// QUEUEBOX_RABBITMQ_SERVER, or the script of the Debian package (the
// /usr/sbin wrapper would switch to the package's own node settings).
func RabbitServer() string {
	return envOr("QUEUEBOX_RABBITMQ_SERVER", "/usr/lib/rabbitmq/bin/rabbitmq-server")
}

// RabbitNode is a private RabbitMQ node for the scenario that restarts
// its broker: the shared node is never restarted. It has its own node
// name, AMQP and distribution ports, database, logs and Erlang cookie,
// and no plugins; its database survives a restart, so durable queues and
// persistent messages do. Start, Stop and Kill are called from the test
// goroutine.
type RabbitNode struct {
	t          testing.TB
	Dir        string
	Port, Dist int
	mu         sync.Mutex
	cmd        *exec.Cmd
	done       chan struct{}
}

// StartRabbit starts a private node on free loopback ports and waits
// until it takes AMQP connections. It is stopped and removed when the
// test ends, failed or not.
func StartRabbit(t testing.TB) *RabbitNode {
	t.Helper()
	dir, err := os.MkdirTemp("", "queuebox-chaos-rabbit-")
	if err != nil {
		t.Fatal(err)
	}
	n := &RabbitNode{t: t, Dir: dir, Port: FreePort(t), Dist: FreePort(t)}
	t.Cleanup(func() {
		n.Stop()
		if t.Failed() {
			log, _ := os.ReadFile(n.log())
			t.Logf("log of the private RabbitMQ node (last 4 KiB):\n%s", tail(log, 4096))
		}
		_ = os.RemoveAll(dir)
	})
	n.write("enabled_plugins", "[].\n")
	n.write("rabbitmq.conf", fmt.Sprintf("listeners.tcp.1 = 127.0.0.1:%d\n", n.Port))
	// An empty environment file: the package's file names the shared
	// node.
	n.write("rabbitmq-env.conf", "")
	for _, sub := range []string{"mnesia", "log", "home"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	n.chown()
	n.Start()
	return n
}

func (n *RabbitNode) write(name, text string) {
	n.t.Helper()
	if err := os.WriteFile(filepath.Join(n.Dir, name), []byte(text), 0o644); err != nil {
		n.t.Fatal(err)
	}
}

// name is the node name, unique per port.
func (n *RabbitNode) name() string { return fmt.Sprintf("qbchaos%d@localhost", n.Port) }

func (n *RabbitNode) log() string { return filepath.Join(n.Dir, "log", n.name()+".log") }

// URL is the AMQP URL of the node (guest may connect over loopback).
func (n *RabbitNode) URL() string { return fmt.Sprintf("amqp://guest:guest@127.0.0.1:%d/", n.Port) }

// Start starts the node (again, on the same ports and database) and waits
// until it takes AMQP connections.
func (n *RabbitNode) Start() {
	n.t.Helper()
	n.mu.Lock()
	if n.cmd != nil {
		n.mu.Unlock()
		n.t.Fatal("the private RabbitMQ node is already running")
	}
	cmd := exec.Command(RabbitServer())
	cmd.Dir = n.Dir
	cmd.Env = n.env()
	out, err := os.OpenFile(filepath.Join(n.Dir, "log", "stdout"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		n.mu.Unlock()
		n.t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group: Stop and Kill reach the script, the Erlang
	// VM and its helpers at once.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Credential: n.credential()}
	if err := cmd.Start(); err != nil {
		_ = out.Close()
		n.mu.Unlock()
		n.t.Fatalf("start %s: %v", RabbitServer(), err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); _ = out.Close(); close(done) }()
	n.cmd, n.done = cmd, done
	n.mu.Unlock()
	WaitFor(n.t, 5*time.Minute, "the private RabbitMQ node takes connections", func() bool {
		select {
		case <-done:
			log, _ := os.ReadFile(filepath.Join(n.Dir, "log", "stdout"))
			n.t.Fatalf("the private RabbitMQ node exited at start:\n%s", tail(log, 4096))
		default:
		}
		c, err := amqp.DialConfig(n.URL(), amqp.Config{Dial: amqp.DefaultDial(5 * time.Second)})
		if err != nil {
			return false
		}
		_ = c.Close()
		return true
	})
}

// env is the node's whole environment: its own name, ports, directories
// and home (where Erlang keeps the node's cookie), and no plugins. The
// node registers with the host's epmd, as the shared node does.
func (n *RabbitNode) env() []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(n.Dir, "home"),
		"LANG=C.UTF-8",
		"RABBITMQ_NODENAME=" + n.name(),
		"RABBITMQ_NODE_IP_ADDRESS=127.0.0.1",
		"RABBITMQ_NODE_PORT=" + strconv.Itoa(n.Port),
		"RABBITMQ_DIST_PORT=" + strconv.Itoa(n.Dist),
		"RABBITMQ_MNESIA_BASE=" + filepath.Join(n.Dir, "mnesia"),
		"RABBITMQ_LOG_BASE=" + filepath.Join(n.Dir, "log"),
		"RABBITMQ_ENABLED_PLUGINS_FILE=" + filepath.Join(n.Dir, "enabled_plugins"),
		"RABBITMQ_CONFIG_FILE=" + filepath.Join(n.Dir, "rabbitmq.conf"),
		"RABBITMQ_CONF_ENV_FILE=" + filepath.Join(n.Dir, "rabbitmq-env.conf"),
		"ERL_EPMD_ADDRESS=127.0.0.1",
		"ERL_FLAGS=-kernel inet_dist_use_interface {127,0,0,1}",
	}
}

// Stop shuts the node down cleanly (SIGTERM, which RabbitMQ takes as a
// stop) and waits for it; after two minutes it kills it. A stopped node is
// left alone.
func (n *RabbitNode) Stop() { n.signal(syscall.SIGTERM, 2*time.Minute) }

// Kill ends the node with SIGKILL, the Erlang VM included, and waits for
// it: it recovers its queues from disk at the next start.
func (n *RabbitNode) Kill() { n.signal(syscall.SIGKILL, time.Minute) }

func (n *RabbitNode) signal(sig syscall.Signal, wait time.Duration) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.cmd == nil {
		return
	}
	pgid := -n.cmd.Process.Pid
	_ = syscall.Kill(pgid, sig)
	select {
	case <-n.done:
	case <-time.After(wait):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		<-n.done
	}
	// The script may exit before the VM it started: wait until nothing of
	// the group is left, so the next start finds the ports free.
	deadline := time.Now().Add(wait)
	for syscall.Kill(pgid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pgid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
	n.cmd, n.done = nil, nil
}

// credential runs the node as the rabbitmq user when the suite runs as
// root, as the Debian service does; otherwise as the suite's user.
func (n *RabbitNode) credential() *syscall.Credential {
	if os.Geteuid() != 0 {
		return nil
	}
	uid, gid := systemUser(n.t, "rabbitmq", "a private RabbitMQ node")
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// chown hands the node's directory to the rabbitmq user when the suite
// runs as root.
func (n *RabbitNode) chown() {
	n.t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	uid, gid := systemUser(n.t, "rabbitmq", "a private RabbitMQ node")
	err := filepath.Walk(n.Dir, func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
	if err != nil {
		n.t.Fatal(err)
	}
}

// systemUser is the uid and gid of the system user name that a server
// (what) runs as when the suite runs as root: the servers refuse root, or
// would leave root-owned files to their package's user.
func systemUser(t testing.TB, name, what string) (uid, gid int) {
	t.Helper()
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatalf("%s needs the %s user when the suite runs as root: %v", what, name, err)
	}
	uid, _ = strconv.Atoi(u.Uid)
	gid, _ = strconv.Atoi(u.Gid)
	return uid, gid
}

// tail is the last n bytes of b.
func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}
