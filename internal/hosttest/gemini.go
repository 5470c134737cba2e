package hosttest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// GeminiVersion is the @google/gemini-cli release testdata/node's lock
// pins.
const GeminiVersion = "0.61.0"

// GeminiTimeout bounds one Gemini CLI run (a turn takes about 3 s).
const GeminiTimeout = 45 * time.Second

// GeminiEnv runs the pinned Gemini CLI offline against a GeminiServer: a
// throw-away HOME holding .gemini/settings.json (API-key auth, usage
// statistics off), GEMINI_API_KEY=fake, GOOGLE_GEMINI_BASE_URL at the
// server, the working directory trusted (GEMINI_CLI_TRUST_WORKSPACE), and
// the server as HTTP(S) proxy for anything else.
type GeminiEnv struct {
	env
	Srv *GeminiServer
	// Entry is the CLI's entry point (node_modules/.bin/gemini).
	Entry string
	// Settings is written to Home/.gemini/settings.json before each run;
	// tests may add keys (hooks, general.sessionRetention).
	Settings map[string]any
}

// NewGemini makes a fresh environment for the Gemini CLI that Install put
// in h.Dir. It skips the test when node is not on PATH.
func (h Hosts) NewGemini(t testing.TB, srv *GeminiServer) *GeminiEnv {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skipf("hosttest: node is not on PATH (%v); Gemini CLI runs on Node.js", err)
	}
	entry := filepath.Join(h.Dir, "node_modules", ".bin", "gemini")
	if _, err := os.Stat(entry); err != nil {
		t.Fatalf("hosttest: no Gemini CLI in the install: %v", err)
	}
	root := t.TempDir()
	e := &GeminiEnv{
		env: env{Bin: node, Root: root, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "work"), Timeout: GeminiTimeout, served: srv,
			reports: filepath.Join(root, "node-reports")},
		Srv: srv, Entry: entry,
		Settings: map[string]any{
			"security": map[string]any{"auth": map[string]any{"selectedType": "gemini-api-key"}},
			"privacy":  map[string]any{"usageStatisticsEnabled": false},
		},
	}
	for _, d := range []string{e.Home, e.Dir, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatalf("hosttest: %v", err)
		}
	}
	// The working directory as the CLI sees it (getcwd resolves symlinks:
	// a macOS TMPDIR is one).
	if real, err := filepath.EvalSymlinks(e.Dir); err == nil {
		e.Dir = real
	}
	return e
}

// ConfigDir is Gemini CLI's folder, HOME/.gemini.
func (e *GeminiEnv) ConfigDir() string { return filepath.Join(e.Home, ".gemini") }

// Environ is the environment of a run.
func (e *GeminiEnv) Environ() []string {
	path := os.Getenv("PATH")
	if path == "" {
		path = "/usr/local/bin:/usr/bin:/bin"
	}
	proxy := e.Srv.URL
	return []string{
		"PATH=" + path,
		"HOME=" + e.Home,
		"TMPDIR=" + filepath.Join(e.env.Root, "tmp"),
		"LANG=C.UTF-8", "NO_COLOR=1",
		"GEMINI_API_KEY=fake",
		"GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL,
		"GEMINI_CLI_TRUST_WORKSPACE=true",
		"NODE_OPTIONS=" + nodeReportOptions(e.reports),
		"HTTP_PROXY=" + proxy, "HTTPS_PROXY=" + proxy, "http_proxy=" + proxy, "https_proxy=" + proxy,
		"NO_PROXY=127.0.0.1,localhost", "no_proxy=127.0.0.1,localhost",
	}
}

// Run writes the settings and runs gemini with args.
func (e *GeminiEnv) Run(t testing.TB, args ...string) Result {
	t.Helper()
	if err := os.MkdirAll(e.ConfigDir(), 0o700); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	b, err := json.MarshalIndent(e.Settings, "", "  ")
	if err != nil {
		t.Fatalf("hosttest: encoding Gemini settings: %v", err)
	}
	if err := os.WriteFile(filepath.Join(e.ConfigDir(), "settings.json"), b, 0o600); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	before := len(e.Srv.Requests())
	res := e.run(context.Background(), t, e.Environ(), append([]string{e.Entry}, args...))
	if _, hooks := e.Settings["hooks"]; res.TimedOut && !hooks && len(e.Srv.Requests()) == before && res.Stdout == "" && onlyReportLines(res.Stderr) {
		// Gemini CLI 0.61.0 has hung at start-up, rarely and only under
		// load: no request, no output, no hook of graft's in the run. Once
		// is the host's; the run is tried again, and a second hang fails.
		t.Logf("hosttest: Gemini CLI hung at start-up (no request, no output, no hooks) and was killed after %v; running it again once. Where it waited:\n%s", res.Duration.Round(time.Millisecond), res.Diagnosis)
		res = e.run(context.Background(), t, e.Environ(), append([]string{e.Entry}, args...))
	}
	return res
}

// Prompt runs one headless turn: gemini -p <prompt> [flags].
func (e *GeminiEnv) Prompt(t testing.TB, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{}, flags...), "-p", prompt)...)
}

// Resume resumes session id with one turn: gemini --resume <id> -p <prompt>.
func (e *GeminiEnv) Resume(t testing.TB, id, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{}, flags...), "--resume", id, "-p", prompt)...)
}

// Sessions are the session files under ConfigDir()/tmp/*/chats, sorted.
func (e *GeminiEnv) Sessions(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(e.ConfigDir(), "tmp", "*", "chats", "session-*.jsonl"))
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	sort.Strings(m)
	return m
}
