package clustertest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/internal/etcdtest"
	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/vfs"
)

// Timing of the store URL every worker gets: the minimum lease, so that a
// dead worker's transaction is taken over quickly, and a short timeout.
const (
	lease       = 2 * time.Second
	reqTimeout  = 3 * time.Second
	urlParams   = "?lease=2s&timeout=3s"
	procTimeout = 60 * time.Second // no child runs longer: the suite never hangs
	// sourceEvents is the size of every generated source (about 1.1 MiB).
	sourceEvents = 200
)

// graftBin is the graft binary built with -tags crashpoints by TestMain.
var graftBin string

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "graft-clustertest-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "clustertest:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	graftBin = filepath.Join(dir, "graft")
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	build := exec.Command(goTool, "build", "-tags", "crashpoints", "-o", graftBin, "github.com/graft-project/graft/cmd/graft")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "clustertest: building the graft binary with -tags crashpoints:", err)
		return 1
	}
	code := m.Run()
	closeShared()
	return code
}

// shared is one cluster for the tests that stop no member; each of them
// uses its own prefix (and home).
var shared struct {
	sync.Mutex
	c   *etcdtest.Cluster
	dir string
}

func sharedCluster(t *testing.T) *etcdtest.Cluster {
	t.Helper()
	shared.Lock()
	defer shared.Unlock()
	if shared.c == nil {
		dir, err := os.MkdirTemp("", "graft-clustertest-etcd-")
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		c, err := etcdtest.Start(dir, 3)
		if err != nil {
			os.RemoveAll(dir)
			t.Fatal(err)
		}
		t.Logf("shared 3-member cluster up in %v: %s", time.Since(start).Round(time.Millisecond), c.URL(""))
		shared.c, shared.dir = c, dir
	}
	return shared.c
}

func closeShared() {
	shared.Lock()
	defer shared.Unlock()
	if shared.c != nil {
		shared.c.Close()
		os.RemoveAll(shared.dir)
		shared.c = nil
	}
}

// store is one graft store: a prefix on a cluster and the home its workers
// share. url "" is the file store (no --store).
type store struct {
	t    *testing.T
	home string
	url  string
	pfx  string // the key prefix, without slashes
	xdg  string // an empty XDG_CONFIG_HOME: no developer config.toml is read
}

var storeSeq atomic.Int64

func newStore(t *testing.T, c *etcdtest.Cluster, prefix string) *store {
	t.Helper()
	dir := t.TempDir()
	s := &store{t: t, home: filepath.Join(dir, "home"), xdg: filepath.Join(dir, "xdg")}
	if c != nil {
		// Unique: -count=N reruns a test on the shared cluster.
		prefix = fmt.Sprintf("%s-%d", prefix, storeSeq.Add(1))
		s.url = c.URL(prefix) + urlParams
		s.pfx = prefix
	}
	if err := os.MkdirAll(s.xdg, 0o700); err != nil {
		t.Fatal(err)
	}
	return s
}

func (s *store) prefix() string { return s.pfx }

// withURL is the same home seen through another store URL ("" = file).
func (s *store) withURL(url string) *store {
	o := *s
	o.url = url
	return &o
}

// lockedBuf is a buffer a child writes and the test reads concurrently.
type lockedBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuf) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// proc is one running worker.
type proc struct {
	args    []string
	cmd     *exec.Cmd
	stdout  lockedBuf
	stderr  lockedBuf
	done    chan struct{}
	exit    int
	started time.Time
	ended   time.Time
}

// result is how a worker ended.
type result struct {
	args    []string
	exit    int // -1: killed by a signal
	stdout  string
	stderr  string
	elapsed time.Duration
}

func (r result) String() string {
	return fmt.Sprintf("graft %s: exit %d after %v; stderr: %s", strings.Join(r.args, " "), r.exit, r.elapsed.Round(time.Millisecond), strings.TrimSpace(r.stderr))
}

// childEnv is this process's environment without GRAFT_ variables, plus
// the home, an empty config dir and extra.
func (s *store) childEnv(extra []string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GRAFT_") && !strings.HasPrefix(kv, "XDG_CONFIG_HOME=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GRAFT_HOME="+s.home, "XDG_CONFIG_HOME="+s.xdg)
	return append(env, extra...)
}

// start launches a worker: graft [--store url] args, with extra
// environment. It is killed (SIGKILL, which ends a stopped process too)
// after procTimeout or when the test ends.
func (s *store) start(extra []string, args ...string) *proc {
	s.t.Helper()
	full := args
	if s.url != "" {
		full = append([]string{"--store", s.url}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	cmd := exec.CommandContext(ctx, graftBin, full...)
	cmd.Env = s.childEnv(extra)
	p := &proc{args: args, cmd: cmd, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = &p.stdout, &p.stderr
	p.started = time.Now()
	if err := cmd.Start(); err != nil {
		cancel()
		s.t.Fatalf("starting graft %v: %v", args, err)
	}
	go func() {
		defer cancel()
		err := cmd.Wait()
		p.ended = time.Now()
		p.exit = cmd.ProcessState.ExitCode()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			fmt.Fprintf(&p.stderr, "\n[clustertest: wait: %v]\n", err)
		}
		close(p.done)
	}()
	s.t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) wait() result {
	<-p.done
	return result{args: p.args, exit: p.exit, stdout: p.stdout.String(), stderr: p.stderr.String(), elapsed: p.ended.Sub(p.started)}
}

func (p *proc) exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// waitLine waits until the worker printed line on stderr; false when it
// ended first or d passed.
func (p *proc) waitLine(line string, d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		for _, l := range strings.Split(p.stderr.String(), "\n") {
			if l == line {
				return true
			}
		}
		if p.exited() || time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitStopped waits until the kernel shows every thread of the worker
// stopped (state T): a stop of the process lands on each thread in turn.
func (p *proc) waitStopped(d time.Duration) bool {
	deadline := time.Now().Add(d)
	for {
		if allStopped(p.cmd.Process.Pid) {
			return true
		}
		if p.exited() || time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func allStopped(pid int) bool {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil || len(tasks) == 0 {
		return false
	}
	for _, task := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
		if err != nil {
			return false
		}
		// pid (comm) S ...: the state follows the last ')'.
		k := bytes.LastIndexByte(b, ')')
		if k < 0 || k+2 >= len(b) || (b[k+2] != 'T' && b[k+2] != 't') {
			return false
		}
	}
	return true
}

func (p *proc) signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// run runs one worker to its end.
func (s *store) run(args ...string) result {
	s.t.Helper()
	return s.start(nil, args...).wait()
}

// must runs a worker that must exit 0.
func (s *store) must(args ...string) result {
	s.t.Helper()
	r := s.run(args...)
	if r.exit != 0 {
		s.t.Fatalf("%v", r)
	}
	return r
}

func decode[T any](t *testing.T, r result) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatalf("%v: stdout is not the JSON expected (%v): %q", r, err, r.stdout)
	}
	return v
}

type prepared struct {
	PreparedID string `json:"preparedId"`
	TapeHash   string `json:"tapeHash"`
}

type committed struct {
	TargetID string   `json:"targetId"`
	TxnID    string   `json:"txnId"`
	Source   string   `json:"source"`
	Notes    []string `json:"notes"`
}

type recoverReport struct {
	Scanned       int      `json:"scanned"`
	RolledForward int      `json:"rolledForward"`
	RolledBack    int      `json:"rolledBack"`
	Busy          int      `json:"busy"`
	Leftovers     []string `json:"leftovers"`
	Warnings      []string `json:"warnings"`
	Errors        []string `json:"errors"`
	exit          int
	at            time.Time // when the worker ended
}

func (r recoverReport) String() string {
	return fmt.Sprintf("exit %d scanned=%d forward=%d back=%d busy=%d warnings=%q errors=%q", r.exit, r.Scanned, r.RolledForward, r.RolledBack, r.Busy, r.Warnings, r.Errors)
}

type sessionRow struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Events int    `json:"events"`
	Target string `json:"target"`
	Parent string `json:"parent"`
}

type statusOut struct {
	Sessions  []sessionRow      `json:"sessions"`
	Pending   []json.RawMessage `json:"pending"`
	Corrupt   []string          `json:"corruptRecords"`
	Leftovers []struct {
		Source string `json:"source"`
		Target string `json:"target"`
		Txn    string `json:"txn"`
	} `json:"leftovers"`
	CatalogError string `json:"catalogError"`
}

func (st statusOut) row(id string) (sessionRow, bool) {
	for _, r := range st.Sessions {
		if r.ID == id {
			return r, true
		}
	}
	return sessionRow{}, false
}

func (s *store) gen(id string) {
	s.t.Helper()
	s.must("gen", id, "--events", strconv.Itoa(sourceEvents))
}

func (s *store) prepare(id string) prepared {
	s.t.Helper()
	p := decode[prepared](s.t, s.must("prepare", id, "--json"))
	if p.PreparedID == "" || p.TapeHash == "" {
		s.t.Fatalf("prepare %s: no preparedId or tapeHash", id)
	}
	return p
}

func (p prepared) commitArgs(target string) []string {
	return []string{"commit", p.PreparedID, "--hash", p.TapeHash, "--target", target, "--json"}
}

func (s *store) status() statusOut {
	s.t.Helper()
	return decode[statusOut](s.t, s.must("status", "--json"))
}

// recover runs graft recover --json; a report is required whatever the
// exit code.
func (s *store) recover() recoverReport {
	s.t.Helper()
	r := s.run("recover", "--json")
	rep := decode[recoverReport](s.t, r)
	rep.exit = r.exit
	rep.at = time.Now()
	return rep
}

// logEvent is what the tests read of a log line.
type logEvent struct {
	Seq    int64  `json:"seq"`
	Type   string `json:"type"`
	Txn    string `json:"txn"`
	Target string `json:"target"`
}

func readLog(t *testing.T, home, id string) []logEvent {
	t.Helper()
	f, err := os.Open(filepath.Join(home, "sessions", id+session.Ext))
	if err != nil {
		t.Fatalf("reading the log of %s: %v", id, err)
	}
	defer f.Close()
	var evs []logEvent
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		var ev logEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("%s line %d does not parse: %v", id, n, err)
		}
		evs = append(evs, ev)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return evs
}

// marks lists the events of type typ in evs.
func marks(evs []logEvent, typ string) []logEvent {
	var out []logEvent
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

func exists(home, id string) bool {
	_, err := os.Lstat(filepath.Join(home, "sessions", id+session.Ext))
	return err == nil
}

// snapshot is the name and digest of every file of the home's sessions/.
func snapshot(t *testing.T, home string) map[string]string {
	t.Helper()
	out := map[string]string{}
	dir := filepath.Join(home, "sessions")
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		out[e.Name()] = hex.EncodeToString(sum[:])
	}
	return out
}

// checkInvariants reads every log of the home (read-only, in this
// process) and checks, for each of sources: the source or a target of it
// is usable; and for every session that opens with a graft/origin: it is
// not usable unless its parent holds the commit point for it (no lying
// target); and no source holds two graft/retired of one txn.
func checkInvariants(t *testing.T, home string, sources []string) {
	t.Helper()
	st, err := session.OpenStore(vfs.Default, home)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := st.List()
	if err != nil {
		t.Fatal(err)
	}
	infos := map[string]*session.Info{}
	usable := map[string]bool{}
	for _, id := range ids {
		info, err := st.Info(id)
		if err != nil {
			t.Errorf("invariant: the log of %s does not read: %v", id, err)
			continue
		}
		infos[id] = info
		usable[id] = st.Check(info) == nil
	}
	for _, src := range sources {
		ok := usable[src]
		var why []string
		for _, id := range ids {
			if info := infos[id]; info != nil && info.Origin != nil && info.Origin.Parent == src {
				ok = ok || usable[id]
				why = append(why, fmt.Sprintf("%s usable=%v", id, usable[id]))
			}
		}
		if !ok {
			t.Errorf("invariant: neither %s nor a target of it is usable (%s)", src, strings.Join(why, ", "))
		}
	}
	for _, id := range ids {
		info := infos[id]
		if info == nil || info.Origin == nil {
			continue
		}
		parent := infos[info.Origin.Parent]
		if usable[id] && (parent == nil || !parent.Committed(info.Origin.Txn, id)) {
			t.Errorf("lying target: %s is usable but its parent %s holds no commit point for txn %s", id, info.Origin.Parent, info.Origin.Txn)
		}
	}
	for _, id := range ids {
		if infos[id] == nil {
			continue
		}
		seen := map[string]int{}
		for _, ev := range marks(readLog(t, home, id), session.TypeGraftRetired) {
			seen[ev.Txn]++
		}
		for txnID, n := range seen {
			if n > 1 {
				t.Errorf("%s holds %d graft/retired for txn %s", id, n, txnID)
			}
		}
	}
}

// checkSettled is the end of every case: the invariants; a recovery scan
// that leaves nothing (busy 0, no error); a second one that finds nothing
// and changes no byte of sessions/ (idempotent); no record in flight.
func (s *store) checkSettled(sources []string) {
	t := s.t
	t.Helper()
	checkInvariants(t, s.home, sources)
	first := s.recover()
	if first.exit != 0 || first.Busy != 0 || len(first.Errors) != 0 {
		t.Errorf("recovery after the case did not settle: %v", first)
	}
	before := snapshot(t, s.home)
	second := s.recover()
	if second.exit != 0 || second.Scanned != 0 || second.RolledForward != 0 || second.RolledBack != 0 || second.Busy != 0 {
		t.Errorf("a second recovery is not a no-op: %v", second)
	}
	if after := snapshot(t, s.home); !mapsEqual(before, after) {
		t.Errorf("a second recovery changed sessions/: before %v, after %v", before, after)
	}
	st := s.status()
	if len(st.Pending) != 0 || len(st.Corrupt) != 0 {
		t.Errorf("records left after recovery: pending %s, corrupt %q", st.Pending, st.Corrupt)
	}
	checkInvariants(t, s.home, sources)
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// expectForward: src is retired into tgt by exactly one graft/retired (of
// txnID when given), tgt is active.
func (s *store) expectForward(src, tgt, txnID string) {
	t := s.t
	t.Helper()
	st := s.status()
	if r, _ := st.row(src); r.State != "retired" || r.Target != tgt {
		t.Errorf("rolled forward: %s should be retired into %s; status says %+v", src, tgt, r)
	}
	if r, _ := st.row(tgt); r.State != "active" || r.Parent != src {
		t.Errorf("rolled forward: %s should be an active target of %s; status says %+v", tgt, src, r)
	}
	ret := marks(readLog(t, s.home, src), session.TypeGraftRetired)
	if len(ret) != 1 || ret[0].Target != tgt || (txnID != "" && ret[0].Txn != txnID) {
		t.Errorf("%s should hold exactly one graft/retired into %s (txn %q); it holds %+v", src, tgt, txnID, ret)
	}
}

// expectBack: src is active with no graft/retired, tgt is not live.
func (s *store) expectBack(src, tgt string) {
	t := s.t
	t.Helper()
	st := s.status()
	if r, _ := st.row(src); r.State != "active" {
		t.Errorf("rolled back: %s should be active; status says %+v", src, r)
	}
	if r, ok := st.row(tgt); ok && r.State == "active" {
		t.Errorf("rolled back: %s must not be live; status says %+v", tgt, r)
	}
	if ret := marks(readLog(t, s.home, src), session.TypeGraftRetired); len(ret) != 0 {
		t.Errorf("rolled back: %s must hold no graft/retired; it holds %+v", src, ret)
	}
}

// distribution renders exit code → count, sorted.
func distribution(m map[int]int) string {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s×%d", codeName(k), m[k]))
	}
	return strings.Join(parts, " ")
}

func codeName(exit int) string {
	names := map[int]string{0: "ok", 1: "error", 12: "used_prepared", 15: "already_grafted", 16: "target_exists", 17: "locked", 52: "store_unavailable", 53: "fenced", 54: "store_mismatch"}
	if n, ok := names[exit]; ok {
		return fmt.Sprintf("%d(%s)", exit, n)
	}
	return strconv.Itoa(exit)
}

func durations(ds []time.Duration) string {
	if len(ds) == 0 {
		return "none"
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return fmt.Sprintf("min %v, median %v, max %v (n=%d)", s[0].Round(time.Millisecond), s[len(s)/2].Round(time.Millisecond), s[len(s)-1].Round(time.Millisecond), len(s))
}

func envInt(name string, def int) int {
	if v := os.Getenv(name); v != "" {
		n, err := strconv.Atoi(v)
		if err == nil && n > 0 {
			return n
		}
	}
	return def
}
