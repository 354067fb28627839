package pgtest

import (
	"bytes"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A Cluster is a PostgreSQL server of a test's own, which the test may
// restart, crash and start again: the fault tests use one, never the
// shared server of EnvURL that other tests use.
type Cluster struct {
	// URL is the cluster's database, postgres://flowctl@127.0.0.1:PORT/postgres.
	URL string

	t   testing.TB
	bin string
	dir string // holds data/ (unless dataDir is set), the WAL and the log
	// dataDir, when set, is the data directory (StartClusterOn).
	dataDir string
	port    int
	as      []string // runuser -u postgres -- when root: initdb refuses root
}

// Bin is the directory of PostgreSQL's programs: $PG_BIN, else Debian's
// PostgreSQL 15.
func Bin() string {
	if b := os.Getenv("PG_BIN"); b != "" {
		return b
	}
	return "/usr/lib/postgresql/15/bin"
}

// StartCluster initdb's a cluster in a temporary directory and starts it
// on a free loopback port; it is stopped and removed when the test ends.
// Without PostgreSQL's programs the test is skipped, or fails when CI is
// set (.ci/run installs them).
func StartCluster(t testing.TB) *Cluster {
	t.Helper()
	c := startCluster(t)
	t.Cleanup(c.remove)
	return c
}

// StartClusterOn is StartCluster with the data directory on disk (a
// directory the test made, a file system of its own: a small tmpfs to
// fill). The WAL is kept elsewhere: a PostgreSQL whose WAL cannot grow
// stops itself (PANIC), a fault of its own; with the tables on disk, a
// full disk is refused writes (SQLSTATE 53100) while the server lives.
func StartClusterOn(t testing.TB, disk string) *Cluster {
	t.Helper()
	c := startClusterWith(t, filepath.Join(disk, "data"))
	t.Cleanup(c.remove)
	return c
}

var shared struct {
	sync.Mutex
	c *Cluster
}

// SharedCluster is StartCluster for the tests of a package that take
// turns with one cluster: it is made by the first test that asks, and
// stopped and removed by StopShared (from TestMain). Each test leaves it
// running, and keeps to a schema of its own (Cluster.Schema).
func SharedCluster(t testing.TB) *Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil {
		shared.c = startCluster(t)
	}
	shared.c.t = t
	return shared.c
}

// StopShared stops and removes the cluster of SharedCluster, if any.
func StopShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.c != nil {
		shared.c.remove()
		shared.c = nil
	}
}

// Schema creates the schema name (once) in the cluster's database and
// returns a URL of that database whose search path is that schema.
func (c *Cluster) Schema(name string) string {
	c.t.Helper()
	db, err := sql.Open("pgx", c.URL)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE SCHEMA IF NOT EXISTS ` + name); err != nil {
		c.t.Fatal(err)
	}
	return c.URL + "&search_path=" + name
}

// Deadlocks is how many deadlocks the cluster's database has detected
// (pg_stat_database), as far as its statistics were flushed: a backend
// flushes them at the latest when its connection ends.
func (c *Cluster) Deadlocks() int64 {
	c.t.Helper()
	db, err := sql.Open("pgx", c.URL)
	if err != nil {
		c.t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRow(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`).Scan(&n); err != nil {
		c.t.Fatal(err)
	}
	return n
}

func (c *Cluster) remove() {
	c.pgctl("stop", "-m", "immediate")
	os.RemoveAll(c.dir)
	if c.dataDir != "" {
		os.RemoveAll(c.dataDir)
	}
}

func startCluster(t testing.TB) *Cluster {
	t.Helper()
	return startClusterWith(t, "")
}

// startClusterWith starts a cluster whose data directory is dataDir, or
// data/ in its temporary directory when dataDir is "".
func startClusterWith(t testing.TB, dataDir string) *Cluster {
	t.Helper()
	bin := Bin()
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("PostgreSQL is not installed (%s/initdb): .ci/run installs it", bin)
		}
		t.Skipf("PostgreSQL is not installed (%s/initdb; set PG_BIN)", bin)
	}
	dir, err := os.MkdirTemp("", "flowctl-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir, dataDir: dataDir}
	started := false
	defer func() {
		if !started {
			c.remove()
		}
	}()
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs the postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		if dataDir != "" {
			if err := os.Chown(filepath.Dir(dataDir), uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		c.as = []string{"runuser", "-u", "postgres", "--"}
	}
	initdb := []string{"-D", c.data(), "-U", "flowctl", "--auth=trust", "-E", "UTF8", "--no-locale"}
	if dataDir != "" {
		initdb = append(initdb, "--waldir", filepath.Join(dir, "wal"))
	}
	if out, err := c.command("initdb", initdb...).CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.port = freePort(t)
	c.URL = fmt.Sprintf("postgres://flowctl@127.0.0.1:%d/postgres?sslmode=disable", c.port)
	c.Start()
	started = true
	return c
}

func (c *Cluster) data() string {
	if c.dataDir != "" {
		return c.dataDir
	}
	return filepath.Join(c.dir, "data")
}

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	argv := append(append(append([]string{}, c.as...), filepath.Join(c.bin, name)), args...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *Cluster) pgctl(args ...string) ([]byte, error) {
	args = append(args, "-D", c.data(), "-w", "-t", "120")
	return c.command("pg_ctl", args...).CombinedOutput()
}

// Start starts the stopped cluster and waits until it accepts
// connections. After a crash it waits, too, for the killed server's
// processes to be gone (they hold its shared memory until then).
func (c *Cluster) Start() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300", c.port, c.dir)
	var out []byte
	var err error
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err = c.pgctl("start", "-l", filepath.Join(c.dir, "log"), "-o", opts)
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		c.t.Fatalf("starting PostgreSQL: %v\n%s\n%s", err, out, tail(log))
	}
}

// Stop stops the cluster: mode "fast" (clients are disconnected, the
// server shuts down cleanly) or "immediate" (it quits without a
// checkpoint; the next start recovers).
func (c *Cluster) Stop(mode string) {
	c.t.Helper()
	if out, err := c.pgctl("stop", "-m", mode); err != nil {
		c.t.Fatalf("stopping PostgreSQL (%s): %v\n%s", mode, err, out)
	}
}

// Restart stops the cluster in mode ("fast" or "immediate") and starts
// it again.
func (c *Cluster) Restart(mode string) {
	c.t.Helper()
	c.Stop(mode)
	c.Start()
}

// Kill sends SIGKILL to the postmaster and waits until its server
// processes have gone (a backend notices the postmaster's death and
// exits); Start starts it again, recovering from the crash.
func (c *Cluster) Kill() {
	c.t.Helper()
	pid := c.postmasterPID()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		c.t.Fatalf("killing the postmaster %d: %v", pid, err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for syscall.Kill(pid, 0) == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	// The orphaned backends exit when they notice; those that do not
	// within a while are killed too, as an operator would.
	for time.Now().Before(deadline) {
		kids := c.serverProcesses()
		if len(kids) == 0 {
			return
		}
		if time.Until(deadline) < 90*time.Second {
			for _, k := range kids {
				syscall.Kill(k, syscall.SIGKILL)
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Freeze stops (SIGSTOP) every process of the cluster's server: it
// answers nothing, and refuses nothing, as a server cut off by a network
// partition; Thaw lets them go on.
func (c *Cluster) Freeze() { c.signalAll(syscall.SIGSTOP) }

// Thaw lets the processes Freeze stopped go on.
func (c *Cluster) Thaw() { c.signalAll(syscall.SIGCONT) }

func (c *Cluster) signalAll(sig syscall.Signal) {
	c.t.Helper()
	for _, pid := range c.serverProcesses() {
		syscall.Kill(pid, sig)
	}
}

// Crash kills the postmaster (Kill) and starts the cluster again.
func (c *Cluster) Crash() {
	c.t.Helper()
	c.Kill()
	c.Start()
}

func (c *Cluster) postmasterPID() int {
	c.t.Helper()
	b, err := os.ReadFile(filepath.Join(c.data(), "postmaster.pid"))
	if err != nil {
		c.t.Fatalf("reading postmaster.pid: %v", err)
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		c.t.Fatalf("postmaster.pid: %q", line)
	}
	return pid
}

// serverProcesses are the processes left of the cluster's server: every
// process of PostgreSQL's has the data directory as its working directory.
func (c *Cluster) serverProcesses() []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cwd, err := os.Readlink(filepath.Join("/proc", e.Name(), "cwd"))
		if err == nil && (cwd == c.data() || strings.HasPrefix(cwd, c.data()+"/")) {
			pids = append(pids, pid)
		}
	}
	return pids
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func tail(b []byte) []byte {
	if i := len(b) - 4000; i > 0 {
		b = b[i:]
		if j := bytes.IndexByte(b, '\n'); j >= 0 {
			b = b[j+1:]
		}
	}
	return b
}

// Log is what the cluster's server has logged so far.
func (c *Cluster) Log() string {
	b, _ := os.ReadFile(filepath.Join(c.dir, "log"))
	return string(b)
}
