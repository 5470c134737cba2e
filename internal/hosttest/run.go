package hosttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// DefaultTimeout bounds one host run. Codex retries forever when the model
// server is unreachable, so nothing runs without a deadline.
const DefaultTimeout = 90 * time.Second

// Result is one finished host run.
type Result struct {
	Args     []string
	Stdout   string
	Stderr   string
	ExitCode int  // -1 when the process was killed by a signal
	TimedOut bool // the run hit its timeout and was killed
	Duration time.Duration
	// Served lists the requests the fake model server had recorded when a
	// run was killed at its timeout: a hung host prints nothing, and this
	// tells where it was waiting. Empty for a run that ended by itself.
	Served string
	// Diagnosis sums up the diagnostic reports a Node.js host wrote when
	// it was asked for them at its timeout (nodereport.go): where each of
	// its processes waited. Empty for a run that ended by itself.
	Diagnosis string
}

func (r Result) String() string {
	status := fmt.Sprintf("exit %d", r.ExitCode)
	if r.TimedOut {
		status = "killed at the timeout"
	}
	s := fmt.Sprintf("%q: %s after %v\n--- stdout ---\n%s\n--- stderr ---\n%s", r.Args, status, r.Duration.Round(time.Millisecond), r.Stdout, r.Stderr)
	if r.Served != "" {
		s += "\n--- the fake model server's requests so far ---\n" + r.Served
	}
	if r.Diagnosis != "" {
		s += "\n--- where its Node.js processes waited (diagnostic reports at the timeout) ---\n" + r.Diagnosis
	}
	return s
}

// Ok fails the test unless the run exited 0, and returns r.
func (r Result) Ok(t testing.TB) Result {
	t.Helper()
	if r.ExitCode != 0 || r.TimedOut {
		t.Fatalf("hosttest: run failed: %s", r)
	}
	return r
}

// env is what the hosts' environments share: a throw-away root holding
// HOME, TMPDIR, the host's config directory and a working directory.
type env struct {
	Bin     string       // the native binary
	Server  *ModelServer // the fake model server the host talks to
	Root    string       // t.TempDir() holding everything below
	Home    string       // HOME
	Dir     string       // the working directory of a run; tests may change it
	Extra   []string     // more KEY=VALUE entries, added last (they win)
	Timeout time.Duration
	// served is the fake server the host talks to, whose requests a run
	// killed at its timeout lists (Result.Served).
	served interface{ Describe() string }
	// reports, when set, is where a Node.js host writes the diagnostic
	// reports the timeout asks for (Result.Diagnosis); its environment
	// sets NODE_OPTIONS to nodeReportOptions(reports).
	reports string
}

func newEnv(t testing.TB, bin string, srv *ModelServer) env {
	t.Helper()
	if bin == "" {
		t.Fatal("hosttest: no host binary; use the Hosts from Install")
	}
	root := t.TempDir()
	e := env{Bin: bin, Server: srv, Root: root, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "work"), Timeout: DefaultTimeout}
	if srv != nil {
		e.served = srv
	}
	for _, d := range []string{e.Home, e.Dir, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatalf("hosttest: %v", err)
		}
	}
	return e
}

// base is the environment the hosts start from: not the developer's, so
// that no real profile, API key or proxy setting leaks in. Any host request
// to a machine other than 127.0.0.1 goes through the fake server as a
// proxy, which refuses and records it.
func (e env) base() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	proxy := e.Server.URL
	return []string{
		"PATH=" + path,
		"HOME=" + e.Home,
		"TMPDIR=" + filepath.Join(e.Root, "tmp"),
		"LANG=C.UTF-8",
		"NO_COLOR=1",
		"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy, "https_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
}

func (e env) run(ctx context.Context, t testing.TB, environ []string, args []string) Result {
	t.Helper()
	timeout := e.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, e.Bin, args...)
	cmd.Dir = e.Dir
	cmd.Env = append(environ, e.Extra...)
	cmd.Stdin = nil // /dev/null: Codex reads a prompt from a non-terminal stdin
	// Output goes to files, not pipes, so that a background process the
	// host leaves behind cannot hold the run open.
	stdout, stderr := tempFile(t, e.Root, "stdout-*"), tempFile(t, e.Root, "stderr-*")
	cmd.Stdout, cmd.Stderr = stdout, stderr
	inOwnProcessGroup(cmd)
	if e.reports != "" {
		if err := os.MkdirAll(e.reports, 0o700); err != nil {
			t.Fatalf("hosttest: %v", err)
		}
		reportBeforeKill(cmd, e.reports)
	}
	start := time.Now()
	err := cmd.Run()
	res := Result{Args: args, Duration: time.Since(start)}
	if cmd.Process != nil {
		killProcessGroup(cmd.Process.Pid) // whatever the host left running
	}
	res.Stdout, res.Stderr = readClose(t, stdout), readClose(t, stderr)
	var exitErr *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exitErr):
		res.ExitCode = exitErr.ExitCode()
	default:
		t.Fatalf("hosttest: running %s %q: %v", e.Bin, args, err)
	}
	res.TimedOut = errors.Is(ctx.Err(), context.DeadlineExceeded)
	if res.TimedOut && e.served != nil {
		res.Served = e.served.Describe()
	}
	if res.TimedOut && e.reports != "" {
		d, err := readNodeReports(e.reports)
		if err != nil {
			t.Fatalf("hosttest: reading the diagnostic reports of a run killed at its timeout: %v", err)
		}
		res.Diagnosis = d
	}
	return res
}

func tempFile(t testing.TB, dir, pattern string) *os.File {
	t.Helper()
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return f
}

func readClose(t testing.TB, f *os.File) string {
	t.Helper()
	b, err := os.ReadFile(f.Name())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		t.Fatalf("hosttest: reading the output of a run: %v", err)
	}
	return string(b)
}

// ClaudeEnv runs the real Claude Code against a ModelServer with a
// throw-away HOME and CLAUDE_CONFIG_DIR.
type ClaudeEnv struct {
	env
	ConfigDir string // CLAUDE_CONFIG_DIR
}

// NewClaude makes a fresh Claude Code environment talking to srv.
func (h Hosts) NewClaude(t testing.TB, srv *ModelServer) *ClaudeEnv {
	t.Helper()
	e := &ClaudeEnv{env: newEnv(t, h.Claude, srv)}
	e.ConfigDir = filepath.Join(e.Root, "claude-config")
	if err := os.Mkdir(e.ConfigDir, 0o700); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return e
}

// Environ is the complete environment of a Claude Code run.
func (e *ClaudeEnv) Environ() []string {
	return append(e.base(),
		"CLAUDE_CONFIG_DIR="+e.ConfigDir,
		"ANTHROPIC_BASE_URL="+e.Server.URL,
		"ANTHROPIC_API_KEY=sk-hosttest",
		"DISABLE_TELEMETRY=1",
		"DISABLE_ERROR_REPORTING=1",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1",
		"DISABLE_AUTOUPDATER=1",
	)
}

// Run runs claude with args in e.Dir under e.Timeout.
func (e *ClaudeEnv) Run(t testing.TB, args ...string) Result {
	t.Helper()
	return e.RunContext(context.Background(), t, args...)
}

// RunContext is Run under ctx as well.
func (e *ClaudeEnv) RunContext(ctx context.Context, t testing.TB, args ...string) Result {
	t.Helper()
	return e.run(ctx, t, e.Environ(), args)
}

// Print runs "claude -p [flags…] prompt".
func (e *ClaudeEnv) Print(t testing.TB, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{"-p"}, flags...), prompt)...)
}

// Resume runs "claude -p --resume id [flags…] prompt".
func (e *ClaudeEnv) Resume(t testing.TB, id, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{"-p", "--resume", id}, flags...), prompt)...)
}

// ProjectsDir is <CLAUDE_CONFIG_DIR>/projects.
func (e *ClaudeEnv) ProjectsDir() string { return filepath.Join(e.ConfigDir, "projects") }

// ProjectDir is the transcript folder Claude Code uses for e.Dir:
// projects/<ClaudeProjectDirName of e.Dir with symlinks resolved>.
func (e *ClaudeEnv) ProjectDir(t testing.TB) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(e.Dir)
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return filepath.Join(e.ProjectsDir(), ClaudeProjectDirName(real))
}

// Transcripts are the session files under projects/*/ (sorted).
func (e *ClaudeEnv) Transcripts(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(e.ProjectsDir(), "*", "*.jsonl"))
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	sort.Strings(m)
	return m
}

// TrustProject writes Claude Code's user state (CLAUDE_CONFIG_DIR/
// .claude.json) as a person's after their first run: onboarding done, the
// API key approved and e.Dir trusted, so the interactive Claude Code
// opens on its prompt.
func (e *ClaudeEnv) TrustProject(t testing.TB) {
	t.Helper()
	real, err := filepath.EvalSymlinks(e.Dir)
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	e.writeState(t, map[string]any{real: map[string]any{"hasTrustDialogAccepted": true}})
}

// Onboard writes Claude Code's user state as TrustProject does, but with
// no folder trusted yet: the interactive Claude Code asks whether to
// trust e.Dir before its prompt.
func (e *ClaudeEnv) Onboard(t testing.TB) {
	t.Helper()
	e.writeState(t, map[string]any{})
}

func (e *ClaudeEnv) writeState(t testing.TB, projects map[string]any) {
	t.Helper()
	writeJSONFile(t, filepath.Join(e.ConfigDir, ".claude.json"), map[string]any{
		"hasCompletedOnboarding": true, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{"sk-hosttest"}, "rejected": []string{}},
		"projects":              projects,
	})
}

// WriteUserSettings writes v as CLAUDE_CONFIG_DIR/settings.json.
func (e *ClaudeEnv) WriteUserSettings(t testing.TB, v any) {
	t.Helper()
	writeJSONFile(t, filepath.Join(e.ConfigDir, "settings.json"), v)
}

// WriteProjectSettings writes v as e.Dir/.claude/settings.json.
func (e *ClaudeEnv) WriteProjectSettings(t testing.TB, v any) {
	t.Helper()
	writeJSONFile(t, filepath.Join(e.Dir, ".claude", "settings.json"), v)
}

// CodexEnv runs the real Codex against a ModelServer with a throw-away
// HOME and CODEX_HOME whose config.toml names the server as the provider.
type CodexEnv struct {
	env
	CodexHome string // CODEX_HOME
}

// NewCodex makes a fresh Codex environment talking to srv and writes its
// config.toml.
func (h Hosts) NewCodex(t testing.TB, srv *ModelServer) *CodexEnv {
	t.Helper()
	e := &CodexEnv{env: newEnv(t, h.Codex, srv)}
	e.CodexHome = filepath.Join(e.Root, "codex-home")
	if err := os.Mkdir(e.CodexHome, 0o700); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	e.WriteConfig(t, "", "")
	return e
}

// ConfigPath is $CODEX_HOME/config.toml.
func (e *CodexEnv) ConfigPath() string { return filepath.Join(e.CodexHome, "config.toml") }

// HooksPath is $CODEX_HOME/hooks.json.
func (e *CodexEnv) HooksPath() string { return filepath.Join(e.CodexHome, "hooks.json") }

// WriteConfig (re)writes config.toml: the offline provider "mock" at the
// fake server with retries off, plus top (TOML keys that must sit at the
// top level, e.g. notify or model_auto_compact_token_limit) and tables
// (TOML tables appended at the end, e.g. [hooks.state."…"]).
func (e *CodexEnv) WriteConfig(t testing.TB, top, tables string) {
	t.Helper()
	cfg := fmt.Sprintf(`model = "gpt-hosttest"
model_provider = "mock"
approval_policy = "never"
sandbox_mode = "read-only"
check_for_update_on_startup = false
%s
[analytics]
enabled = false

[features]
plugins = false
apps = false

[model_providers.mock]
name = "mock"
base_url = "%s/v1"
wire_api = "responses"
env_key = "MOCK_API_KEY"
request_max_retries = 0
stream_max_retries = 0
%s`, top, e.Server.URL, tables)
	if err := os.WriteFile(e.ConfigPath(), []byte(cfg), 0o600); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
}

// StopAppServer stops the app-server daemon the interactive Codex starts
// for a thread's goal (0.171), which outlives the terminal: "codex
// app-server daemon stop", then the daemon's updater, which that command
// leaves running (its pid in app-server-daemon/daemon-updater.pid).
func (e *CodexEnv) StopAppServer(t testing.TB) {
	t.Helper()
	e.Run(t, "app-server", "daemon", "stop").Ok(t)
	b, err := os.ReadFile(filepath.Join(e.CodexHome, "app-server-daemon", "daemon-updater.pid"))
	if errors.Is(err, fs.ErrNotExist) {
		return // no updater was started
	}
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	var rec struct {
		PID int `json:"pid"`
	}
	if err := json.Unmarshal(b, &rec); err != nil || rec.PID <= 0 {
		t.Fatalf("hosttest: daemon-updater.pid holds %q (%v)", b, err)
	}
	if err := terminate(rec.PID); err != nil {
		t.Fatalf("hosttest: stopping Codex's daemon updater %d: %v", rec.PID, err)
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if !running(rec.PID) {
			return
		}
	}
	t.Fatalf("hosttest: Codex's daemon updater %d still runs 10 s after SIGTERM", rec.PID)
}

// WriteHooks writes v as $CODEX_HOME/hooks.json.
func (e *CodexEnv) WriteHooks(t testing.TB, v any) {
	t.Helper()
	writeJSONFile(t, e.HooksPath(), v)
}

// Environ is the complete environment of a Codex run.
func (e *CodexEnv) Environ() []string {
	return append(e.base(), "CODEX_HOME="+e.CodexHome, "MOCK_API_KEY=x")
}

// Run runs codex with args in e.Dir under e.Timeout, stdin /dev/null.
func (e *CodexEnv) Run(t testing.TB, args ...string) Result {
	t.Helper()
	return e.RunContext(context.Background(), t, args...)
}

// RunContext is Run under ctx as well.
func (e *CodexEnv) RunContext(ctx context.Context, t testing.TB, args ...string) Result {
	t.Helper()
	return e.run(ctx, t, e.Environ(), args)
}

// Exec runs "codex exec --skip-git-repo-check [flags…] prompt".
func (e *CodexEnv) Exec(t testing.TB, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{"exec", "--skip-git-repo-check"}, flags...), prompt)...)
}

// ExecResume runs "codex exec [flags…] resume --skip-git-repo-check id
// prompt".
func (e *CodexEnv) ExecResume(t testing.TB, id, prompt string, flags ...string) Result {
	t.Helper()
	args := append([]string{"exec"}, flags...)
	return e.Run(t, append(args, "resume", "--skip-git-repo-check", id, prompt)...)
}

// SessionsDir is $CODEX_HOME/sessions.
func (e *CodexEnv) SessionsDir() string { return filepath.Join(e.CodexHome, "sessions") }

// Rollouts are the rollout-*.jsonl files under sessions/ (sorted).
func (e *CodexEnv) Rollouts(t testing.TB) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(e.SessionsDir(), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == e.SessionsDir() {
				return filepath.SkipDir
			}
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	sort.Strings(out)
	return out
}

// RolloutID is the session id at the end of a rollout file name
// (rollout-<YYYY-MM-DDThh-mm-ss>-<uuid>.jsonl).
func RolloutID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) < 36 {
		return ""
	}
	return name[len(name)-36:]
}

// TranscriptID is the session id a Claude Code transcript is named by.
func TranscriptID(path string) string { return strings.TrimSuffix(filepath.Base(path), ".jsonl") }

func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
}
