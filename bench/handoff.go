package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// HostDirs is a throw-away user for running graft as a host runs it: a
// HOME, a Claude Code config directory, a project directory and a graft
// home, all under one directory.
type HostDirs struct {
	Root, Home, Claude, Project, Graft string
}

// NewHostDirs makes the directories under a fresh directory in dir.
func NewHostDirs(dir, prefix string) (HostDirs, error) {
	root, err := os.MkdirTemp(dir, prefix)
	if err != nil {
		return HostDirs{}, fmt.Errorf("bench: %w", err)
	}
	// The project directory's real path: Claude Code names its project
	// folder after it.
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return HostDirs{}, fmt.Errorf("bench: %w", err)
	}
	d := HostDirs{Root: root, Home: filepath.Join(root, "home"), Claude: filepath.Join(root, "claude"),
		Project: filepath.Join(root, "project"), Graft: filepath.Join(root, "graft")}
	for _, p := range []string{d.Home, d.Claude, d.Project} {
		if err := os.MkdirAll(p, 0o700); err != nil {
			return HostDirs{}, fmt.Errorf("bench: %w", err)
		}
	}
	return d, nil
}

// Env is the environment graft runs in: the bench's own, with HOME,
// CLAUDE_CONFIG_DIR, GRAFT_HOME and the XDG directories pointing into the
// throw-away user, and no GRAFT_CONFIG or CODEX_HOME of the person running
// the bench (their config.toml could turn autoGraft on). No model can be
// reached from it: no ANTHROPIC_* or OPENAI_* variables, and every proxy
// variable names a closed port (a model request would fail the run).
func (d HostDirs) Env() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch u := strings.ToUpper(k); {
		case k == "HOME", k == "CLAUDE_CONFIG_DIR", k == "CODEX_HOME", strings.HasPrefix(k, "GRAFT_"), strings.HasPrefix(k, "XDG_"),
			strings.HasPrefix(u, "ANTHROPIC_"), strings.HasPrefix(u, "OPENAI_"), strings.HasSuffix(u, "_PROXY"):
			continue
		}
		env = append(env, kv)
	}
	const closed = "http://127.0.0.1:9"
	return append(env, "HOME="+d.Home, "CLAUDE_CONFIG_DIR="+d.Claude, "GRAFT_HOME="+d.Graft,
		"XDG_CONFIG_HOME="+filepath.Join(d.Home, ".config"), "XDG_DATA_HOME="+filepath.Join(d.Home, ".local", "share"),
		"HTTPS_PROXY="+closed, "HTTP_PROXY="+closed, "ALL_PROXY="+closed, "NO_PROXY=")
}

// ProcessRun is one run of a process: its wall time, measured around the
// process from the parent (start, run, exit, as a user or a host sees it),
// and the CPU time it used (user and system; less moved by other work on
// the machine than the wall time).
type ProcessRun struct {
	Wall, CPU      time.Duration
	Stdout, Stderr []byte
}

// RunProcess runs bin with args in env, stdin from stdin (nil: none), and
// times it. A non-zero exit is an error carrying stderr.
func RunProcess(env []string, stdin []byte, bin string, args ...string) (ProcessRun, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	run := ProcessRun{Wall: d, Stdout: stdout.Bytes(), Stderr: stderr.Bytes()}
	if cmd.ProcessState != nil {
		run.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	if err != nil {
		return run, fmt.Errorf("bench: %s %s: %w: %s", filepath.Base(bin), strings.Join(args, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	return run, nil
}

// HandoffRun is one "graft handoff claude-code … --yes --json", run as a
// process on a fresh graft home.
type HandoffRun struct {
	Wall, CPU time.Duration
	// From the JSON it printed.
	Committed          bool
	HostSessionID      string
	Path               string
	ResumeCommand      string
	Events, SubEvents  int // imported from the transcript, and from its sub-agents'
	TapeChars          int
	Generation         int
	DriftCheck, Target string
}

// Handoff copies a Claude Code transcript (with its <uuid>/subagents/
// directory, as Claude Code keeps them) into a fresh throw-away user under
// dir, then runs and times graft handoff claude-code on it: the first
// handoff of the session (import, prepare, commit, export into
// $CLAUDE_CONFIG_DIR/projects/…). It checks that the handoff committed and
// that the exported transcript exists.
func Handoff(bin, dir, transcript string) (HandoffRun, error) {
	d, err := NewHostDirs(dir, "handoff-")
	if err != nil {
		return HandoffRun{}, err
	}
	src := filepath.Join(d.Root, filepath.Base(transcript))
	if err := copyFile(transcript, src); err != nil {
		return HandoffRun{}, err
	}
	subs := filepath.Join(strings.TrimSuffix(transcript, filepath.Ext(transcript)), "subagents")
	if ents, err := os.ReadDir(subs); err == nil {
		dst := filepath.Join(strings.TrimSuffix(src, filepath.Ext(src)), "subagents")
		if err := os.MkdirAll(dst, 0o700); err != nil {
			return HandoffRun{}, fmt.Errorf("bench: %w", err)
		}
		for _, e := range ents {
			if e.Type().IsRegular() {
				if err := copyFile(filepath.Join(subs, e.Name()), filepath.Join(dst, e.Name())); err != nil {
					return HandoffRun{}, err
				}
			}
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return HandoffRun{}, fmt.Errorf("bench: %w", err)
	}
	pr, err := RunProcess(d.Env(), nil, bin, "handoff", "claude-code", "--transcript", src, "--cwd", d.Project, "--yes", "--json")
	if err != nil {
		return HandoffRun{}, err
	}
	var res struct {
		Committed     bool   `json:"committed"`
		HostSessionID string `json:"hostSessionId"`
		Path          string `json:"path"`
		ResumeCommand string `json:"resumeCommand"`
		Follow        struct {
			Import *struct {
				Appended    int `json:"appended"`
				SubSessions []struct {
					Appended int `json:"appended"`
				} `json:"subSessions"`
			} `json:"import"`
		} `json:"follow"`
		Commit *struct {
			TargetID   string `json:"targetId"`
			TapeChars  int    `json:"tapeChars"`
			Generation int    `json:"generation"`
			DriftCheck string `json:"driftCheck"`
		} `json:"commit"`
	}
	if err := json.Unmarshal(pr.Stdout, &res); err != nil {
		return HandoffRun{}, fmt.Errorf("bench: graft handoff printed no JSON (%v): %s", err, pr.Stdout)
	}
	run := HandoffRun{Wall: pr.Wall, CPU: pr.CPU, Committed: res.Committed, HostSessionID: res.HostSessionID, Path: res.Path, ResumeCommand: res.ResumeCommand}
	if !res.Committed || res.Commit == nil || res.Follow.Import == nil {
		return run, fmt.Errorf("bench: graft handoff did not import and commit: %s", pr.Stdout)
	}
	run.Events, run.TapeChars, run.Generation = res.Follow.Import.Appended, res.Commit.TapeChars, res.Commit.Generation
	run.DriftCheck, run.Target = res.Commit.DriftCheck, res.Commit.TargetID
	for _, s := range res.Follow.Import.SubSessions {
		run.SubEvents += s.Appended
	}
	if !strings.HasPrefix(res.Path, d.Claude+string(filepath.Separator)) {
		return run, fmt.Errorf("bench: the handoff exported to %s, not under CLAUDE_CONFIG_DIR %s", res.Path, d.Claude)
	}
	if fi, err := os.Stat(res.Path); err != nil || fi.Size() == 0 {
		return run, fmt.Errorf("bench: the exported transcript %s: %v", res.Path, err)
	}
	return run, nil
}

func copyFile(src, dst string) (err error) {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if _, err := io.Copy(out, in); err != nil {
		return errors.Join(fmt.Errorf("bench: copying %s: %w", src, err), out.Close())
	}
	// Flushed now, as a transcript written over hours is: the first fsync
	// of the measured process must not write this copy back.
	if err := out.Sync(); err != nil {
		return errors.Join(fmt.Errorf("bench: flushing %s: %w", dst, err), out.Close())
	}
	return out.Close()
}
