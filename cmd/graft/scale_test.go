package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/graft-project/graft/session"
)

// Issue 19, finding 8: prepare and audit must grow linearly with the
// human's words and the todo list, and prepare's memory must not grow with
// the constraints a pasted text carries (the fold keeps what a tape can
// show; tape/doc.go, Budget).
//
// Each measure is the CPU time (user + system) of `graft prepare <id>
// --json` or `graft audit <id> --json` run as a child on a fresh home
// holding only the log, so neither a scan index nor another test's work is
// counted. The median of GRAFT_SCALE_RUNS runs (default 3, the sizes
// interleaved) is taken at n and at 2n; the growth ratio is median(2n) ÷
// median(n). A linear program doubles (plus noise, minus start-up costs); a
// quadratic one quadruples. A ratio above maxGrowth is measured once more
// with 2·runs+1 runs before it fails. The default sizes keep the test to
// seconds; GRAFT_SCALE=big runs the pasted text at 12.5 and 25 MiB and the
// memory check at 25 MiB (make scale).

// maxGrowth is the largest ratio of time(2n) ÷ time(n) still called linear.
const maxGrowth = 2.6

// scaleRunLimit stops one child that runs too long: a quadratic prepare
// at these sizes would take minutes.
const scaleRunLimit = 120 * time.Second

type scaleCase struct {
	name  string
	sizes []int                       // each the double of the previous
	unit  string                      // what a size counts
	log   func(n int) []session.Event // the events, without seq and ts
	cmds  [][]string                  // the commands measured, the id appended
}

func scaleRuns() int {
	if n, err := strconv.Atoi(os.Getenv("GRAFT_SCALE_RUNS")); err == nil && n > 0 {
		return n
	}
	return 3
}

func bigScale() bool { return os.Getenv("GRAFT_SCALE") == "big" }

func humanLine(text string) session.Event {
	return session.Event{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindUser}, Text: text}
}

// pastedText is about size bytes of "Never…" and "Always…" sentences, each
// a distinct constraint, on lines of 20 sentences.
func pastedText(size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, "Never touch file%d.go.", i)
		} else {
			fmt.Fprintf(&b, "Always run check %d before a commit.", i)
		}
		if i%20 == 19 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

func scaleCases() []scaleCase {
	prepare := []string{"prepare", "--json"}
	audit := []string{"audit", "--json"}
	pasteSizes := []int{1 << 20, 2 << 20}
	if bigScale() {
		pasteSizes = []int{25 << 19, 25 << 20}
	}
	return []scaleCase{
		{
			name: "constraint messages", unit: "human messages, one constraint each", sizes: []int{2000, 4000, 8000},
			log: func(n int) []session.Event {
				out := make([]session.Event, n)
				for i := range out {
					out[i] = humanLine(fmt.Sprintf("Step %d: you must keep module %d stable.", i, i))
				}
				return out
			},
			cmds: [][]string{prepare, audit},
		},
		{
			name: "sentences in one message", unit: "constraint sentences", sizes: []int{8000, 16000},
			log: func(n int) []session.Event {
				var b strings.Builder
				for i := 0; i < n; i++ {
					fmt.Fprintf(&b, "You must keep module %d stable. ", i)
				}
				return []session.Event{humanLine(b.String())}
			},
			cmds: [][]string{prepare, audit},
		},
		{
			name: "todos", unit: "todos in one todo/write", sizes: []int{10000, 20000},
			log: func(n int) []session.Event {
				todos := make([]session.Todo, n)
				for i := range todos {
					todos[i] = session.Todo{ID: strconv.Itoa(i), Content: fmt.Sprintf("task number %d of the plan", i), Status: []string{session.TodoPending, session.TodoCompleted, session.TodoInProgress}[i%3]}
				}
				return []session.Event{humanLine("Work through the plan."), {Type: session.TypeTodoWrite, Source: session.Source{Kind: session.KindAssistant}, Todos: todos}}
			},
			cmds: [][]string{prepare, audit},
		},
		{
			name: "pasted text", unit: "bytes of Never…/Always… sentences in one message", sizes: pasteSizes,
			log:  func(n int) []session.Event { return []session.Event{humanLine(pastedText(n))} },
			cmds: [][]string{prepare, audit},
		},
	}
}

// scaleGraftExe is a path that runs this test binary as graft: TestMain
// dispatches on the program's name. Beside it, graft-rusage runs
// rusageMain.
func scaleGraftExe(t *testing.T) string {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, name := range []string{"graft", "graft-rusage"} {
		if err := os.Symlink(self, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(dir, "graft")
}

// rusageMain is "graft-rusage program args...": it runs the program with
// its stdout discarded and prints "rusage <cpu ns> <peak RSS bytes>" of it.
// A launcher of its own, because Linux counts into a child's peak RSS the
// peak of the process that started it (the memory map it was exec'd
// from): started from the test process, which built the big inputs, graft
// would be charged with them.
func rusageMain() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: graft-rusage program [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if ru == nil {
		fmt.Fprintln(os.Stderr, "graft-rusage: no rusage")
		os.Exit(1)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	fmt.Printf("rusage %d %d\n", cpu.Nanoseconds(), ru.Maxrss*1024) // Linux reports KiB
	os.Exit(cmd.ProcessState.ExitCode())
}

// writeLog writes events as a session log: seq from 1, a fixed ts.
func writeLog(t *testing.T, path string, events []session.Event) {
	t.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for k, ev := range events {
		ev.Seq, ev.TS = int64(k+1), "2026-01-02T03:04:05Z"
		if err := enc.Encode(&ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
}

// freshHome is a new home holding only a copy of the log at src as
// session id.
func freshHome(t *testing.T, src, id string) string {
	t.Helper()
	home, err := os.MkdirTemp(t.TempDir(), "home")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(home, "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "sessions", id+".jsonl"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	return home
}

// childRun is what one run of graft as a child cost.
type childRun struct {
	cpu    time.Duration // user + system
	maxRSS int64         // bytes
	wall   time.Duration
}

func runChild(t *testing.T, exe, home string, args ...string) (childRun, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), scaleRunLimit)
	defer cancel()
	launcher := filepath.Join(filepath.Dir(exe), "graft-rusage")
	cmd := exec.CommandContext(ctx, launcher, append([]string{exe, "--home", home}, args...)...)
	cmd.Env = append(os.Environ(), "GRAFT_HOME="+home, "GRAFT_CONFIG=", "XDG_CONFIG_HOME="+filepath.Join(home, "no-xdg-config"))
	// Killing the launcher must not leave graft running.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return childRun{}, fmt.Errorf("graft %s: killed after %s (the limit of one run)", strings.Join(args, " "), scaleRunLimit)
	}
	if err != nil {
		return childRun{}, fmt.Errorf("graft %s: %v: %s", strings.Join(args, " "), err, stderr.String())
	}
	var cpu, rss int64
	if _, err := fmt.Sscanf(stdout.String(), "rusage %d %d", &cpu, &rss); err != nil {
		return childRun{}, fmt.Errorf("graft %s: the launcher printed %q: %v", strings.Join(args, " "), stdout.String(), err)
	}
	return childRun{cpu: time.Duration(cpu), maxRSS: rss, wall: wall}, nil
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestScaleLinear prints the growth ratio of prepare and audit for each
// case and fails on a ratio above maxGrowth.
func TestScaleLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	exe := scaleGraftExe(t)
	runs := scaleRuns()
	for _, c := range scaleCases() {
		t.Run(strings.ReplaceAll(c.name, " ", "_"), func(t *testing.T) {
			dir := t.TempDir()
			logs := make([]string, len(c.sizes))
			for k, n := range c.sizes {
				logs[k] = filepath.Join(dir, fmt.Sprintf("log-%d.jsonl", n))
				writeLog(t, logs[k], c.log(n))
			}
			for _, cmd := range c.cmds {
				measure := func(runs int) []time.Duration {
					// Sizes interleaved, so that a busy moment of the
					// machine slows both sides of a ratio.
					ds := make([][]time.Duration, len(c.sizes))
					for r := 0; r < runs; r++ {
						for k, n := range c.sizes {
							run, err := runChild(t, exe, freshHome(t, logs[k], "s"), append(slices.Clone(cmd), "s")...)
							if err != nil {
								t.Fatalf("%s, n=%d %s: %v", cmd[0], n, c.unit, err)
							}
							ds[k] = append(ds[k], run.cpu)
						}
					}
					meds := make([]time.Duration, len(c.sizes))
					for k, n := range c.sizes {
						meds[k] = median(ds[k])
						t.Logf("%s %s n=%d %s: CPU median %s of %d runs %v", c.name, cmd[0], n, c.unit, meds[k].Round(time.Millisecond), runs, roundAll(ds[k]))
					}
					return meds
				}
				worst := func(meds []time.Duration) (int, float64) {
					at, worst := 0, 0.0
					for k := 1; k < len(meds); k++ {
						ratio := float64(meds[k]) / float64(max(meds[k-1], time.Millisecond))
						t.Logf("growth ratio %s %s: time(n=%d) ÷ time(n=%d) = %.2f", c.name, cmd[0], c.sizes[k], c.sizes[k-1], ratio)
						if ratio > worst {
							at, worst = k, ratio
						}
					}
					return at, worst
				}
				meds := measure(runs)
				k, ratio := worst(meds)
				if ratio > maxGrowth {
					// Once more with more runs before calling it quadratic:
					// a ratio of short runs on a shared machine can be noise.
					t.Logf("%s %s: ratio %.2f above %.1f; measuring again with %d runs", c.name, cmd[0], ratio, maxGrowth, 2*runs+1)
					meds = measure(2*runs + 1)
					k, ratio = worst(meds)
				}
				if ratio > maxGrowth {
					t.Errorf("%s %s: time(n=%d) ÷ time(n=%d) = %.2f (%s ÷ %s), above %.1f: not linear", c.name, cmd[0], c.sizes[k], c.sizes[k-1], ratio, meds[k].Round(time.Millisecond), meds[k-1].Round(time.Millisecond), maxGrowth)
				}
			}
		})
	}
}

func roundAll(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for k, d := range ds {
		out[k] = d.Round(time.Millisecond)
	}
	return out
}

// plainText is pastedText without a constraint marker: the same size,
// lines and sentences.
func plainText(size int) string {
	var b strings.Builder
	b.Grow(size + 64)
	for i := 0; b.Len() < size; i++ {
		if i%2 == 0 {
			fmt.Fprintf(&b, "Later touch file%d.go.", i)
		} else {
			fmt.Fprintf(&b, "Sometimes run check %d before a commit.", i)
		}
		if i%20 == 19 {
			b.WriteByte('\n')
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestScalePasteRSS runs `graft prepare` and `graft audit` as children on a
// session whose one human message is a pasted text of "Never…/Always…"
// sentences (2 MiB; 25 MiB with GRAFT_SCALE=big), and on one whose text is
// the same size without a constraint marker. Reading a message of many MiB
// costs a few copies of it (the session's reader); the constraints it
// carries must cost nothing past the fold's cap: the peak RSS with them is
// at most the peak without them plus a quarter and 16 MiB (the garbage of
// reading the sentences, and GC timing).
func TestScalePasteRSS(t *testing.T) {
	if testing.Short() {
		t.Skip("-short")
	}
	size := 2 << 20
	if bigScale() {
		size = 25 << 20
	}
	exe := scaleGraftExe(t)
	dir := t.TempDir()
	pasted, plain := filepath.Join(dir, "pasted.jsonl"), filepath.Join(dir, "plain.jsonl")
	writeLog(t, pasted, []session.Event{humanLine(pastedText(size))})
	writeLog(t, plain, []session.Event{humanLine(plainText(size))})
	for _, cmd := range [][]string{{"prepare", "--json", "s"}, {"audit", "--json", "s"}} {
		// The median of 3 runs each: when the GC runs moves a peak by a
		// few MiB.
		var rss [2][]int64
		var cpu [2][]time.Duration
		for r := 0; r < 3; r++ {
			for k, log := range []string{plain, pasted} {
				run, err := runChild(t, exe, freshHome(t, log, "s"), cmd...)
				if err != nil {
					t.Fatalf("a %d-byte text: %v", size, err)
				}
				rss[k] = append(rss[k], run.maxRSS)
				cpu[k] = append(cpu[k], run.cpu)
			}
		}
		base, got := medianInt(rss[0]), medianInt(rss[1])
		limit := base + base/4 + 16<<20
		t.Logf("graft %s of a %.0f MiB pasted text: peak RSS %.1f MiB with its constraints, %.1f MiB without (medians of 3; limit %.1f MiB); CPU %s, %s", cmd[0], float64(size)/(1<<20), float64(got)/(1<<20), float64(base)/(1<<20), float64(limit)/(1<<20), median(cpu[1]).Round(time.Millisecond), median(cpu[0]).Round(time.Millisecond))
		if got > limit {
			t.Errorf("graft %s of a %d-byte pasted text: peak RSS %d bytes with its constraints, %d without: above %d", cmd[0], size, got, base, limit)
		}
	}
}

func medianInt(xs []int64) int64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
