package hosttest

import (
	"context"
	"path/filepath"
	"sort"
	"testing"
)

// QwenVersion is the Qwen Code release testdata/node's package-lock pins.
const QwenVersion = "0.24.4"

// QwenEnv runs the real Qwen Code (the pinned @qwen-code/qwen-code, a Node
// program) against a QwenServer with a throw-away HOME, whose .qwen holds
// its settings and sessions. Every run is `qwen` with the fake server as
// its OpenAI-compatible provider (OPENAI_API_KEY=sk-fake, OPENAI_BASE_URL,
// OPENAI_MODEL=qwen-fake) and usage statistics off in settings.json, so no
// telemetry host is looked up.
type QwenEnv struct {
	env
	Server *QwenServer
	// QwenDir is $HOME/.qwen: settings.json, projects/<dir>/chats/.
	QwenDir string
	// Settings is what WriteSettings writes as $HOME/.qwen/settings.json;
	// NewQwen writes it with privacy.usageStatisticsEnabled false and the
	// auto-update check off.
	Settings map[string]any
}

// Qwen is the qwen entry point of the install (node_modules/.bin/qwen).
func (h Hosts) Qwen() string { return filepath.Join(h.Dir, "node_modules", ".bin", "qwen") }

// NewQwen makes a fresh Qwen Code environment talking to srv.
func (h Hosts) NewQwen(t testing.TB, srv *QwenServer) *QwenEnv {
	t.Helper()
	if !executable(h.Qwen()) {
		t.Fatalf("hosttest: %s is not an executable file: was @qwen-code/qwen-code left out of the install?", h.Qwen())
	}
	// env wants a *ModelServer for its proxy; Qwen's server plays that part.
	e := &QwenEnv{env: newEnv(t, h.Qwen(), &ModelServer{URL: srv.URL}), Server: srv}
	e.served = srv
	e.QwenDir = filepath.Join(e.Home, ".qwen")
	e.Settings = map[string]any{
		"privacy": map[string]any{"usageStatisticsEnabled": false},
		"general": map[string]any{"enableAutoUpdate": false, "disableAutoUpdate": true},
	}
	e.WriteSettings(t)
	return e
}

// SettingsPath is $HOME/.qwen/settings.json.
func (e *QwenEnv) SettingsPath() string { return filepath.Join(e.QwenDir, "settings.json") }

// WriteSettings (re)writes e.Settings as $HOME/.qwen/settings.json.
func (e *QwenEnv) WriteSettings(t testing.TB) {
	t.Helper()
	writeJSONFile(t, e.SettingsPath(), e.Settings)
}

// Environ is the complete environment of a Qwen Code run.
func (e *QwenEnv) Environ() []string {
	return append(e.base(),
		"OPENAI_API_KEY=sk-fake",
		"OPENAI_BASE_URL="+e.Server.URL+"/v1",
		"OPENAI_MODEL=qwen-fake",
	)
}

// Run runs qwen with args in e.Dir under e.Timeout, stdin /dev/null.
func (e *QwenEnv) Run(t testing.TB, args ...string) Result {
	t.Helper()
	return e.run(context.Background(), t, e.Environ(), args)
}

// Print runs "qwen [flags…] -p prompt".
func (e *QwenEnv) Print(t testing.TB, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{}, flags...), "-p", prompt)...)
}

// Resume runs "qwen --resume id [flags…] -p prompt".
func (e *QwenEnv) Resume(t testing.TB, id, prompt string, flags ...string) Result {
	t.Helper()
	return e.Run(t, append(append([]string{"--resume", id}, flags...), "-p", prompt)...)
}

// ProjectsDir is $HOME/.qwen/projects.
func (e *QwenEnv) ProjectsDir() string { return filepath.Join(e.QwenDir, "projects") }

// Sessions are the session files under projects/*/chats/ (sorted).
func (e *QwenEnv) Sessions(t testing.TB) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(e.ProjectsDir(), "*", "chats", "*.jsonl"))
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	sort.Strings(m)
	return m
}

// RealDir is e.Dir with symlinks resolved: the project root Qwen Code
// names its folder after.
func (e *QwenEnv) RealDir(t testing.TB) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(e.Dir)
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return real
}
