package hosttest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gofrs/flock"
)

// Hosts are the absolute paths of the two pinned native host binaries, as
// Install left them in the install cache.
type Hosts struct {
	Claude string // the Claude Code binary of @anthropic-ai/claude-code-<platform>
	Codex  string // the Codex binary of @openai/codex-<platform>
	// ClaudeVersion and CodexVersion are the versions the installed lock
	// names: the pinned ones, or those of HOSTTEST_NODE_DIR's lock.
	ClaudeVersion, CodexVersion string
	// Dir is the install directory (its node_modules holds every package
	// the lock pins, Gemini CLI and Qwen Code included).
	Dir string
}

// NodeDirEnv names a directory holding a package.json and a
// package-lock.json to install instead of the pinned ones (make
// hosts-latest: each host's latest release); the tests then run against
// the versions that lock names.
const NodeDirEnv = "HOSTTEST_NODE_DIR"

// Versions the package pins in testdata/node/package-lock.json. The smoke
// test checks that the installed binaries report them.
const (
	ClaudeVersion = "2.1.332"
	CodexVersion  = "0.171.0"
)

// nodeDir is where the pinned package.json and package-lock.json sit,
// relative to the module root.
const nodeDir = "internal/hosttest/testdata/node"

// installTimeout bounds npm ci (a cold install downloads ~800 MB) and the
// wait for another test process holding the install lock.
const installTimeout = 15 * time.Minute

// absentDir is the package that stands in for optional packages a
// host's lock names but the registry does not serve (package.json's
// overrides point at it); Install copies it beside the lock.
const absentDir = "absent"

// stampName is written into the install directory once npm ci succeeded
// and both binaries ran; its presence lets later calls skip npm ci.
const stampName = ".hosttest-installed"

var (
	installMu     sync.Mutex
	installedHost = map[string]Hosts{} // by install directory
)

// Install makes sure the pinned hosts' packages are
// installed in <module root>/build/hosts/<short sha256 of the lock>/ and
// returns the paths of their native binaries.
//
// The first call runs "npm ci --ignore-scripts" there under a file lock
// (several test binaries of "go test ./..." may call it at once) and writes
// a stamp when both binaries run; later calls, in this process or another,
// find the stamp and skip npm. With -short it skips the test; when it has
// to install and node or npm is not on PATH it skips with a message; a
// failing npm ci fails the test with npm's output.
func Install(t testing.TB) Hosts {
	t.Helper()
	if testing.Short() {
		t.Skip("hosttest: installs and runs the real hosts' CLIs; skipped with -short")
	}
	claudeRel, codexRel, ok := nativePaths()
	if !ok {
		t.Skipf("hosttest: no pinned native host binaries for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	root := moduleRoot(t)
	src := filepath.Join(root, filepath.FromSlash(nodeDir))
	if d := os.Getenv(NodeDirEnv); d != "" {
		src = d
	}
	pkg := readFile(t, filepath.Join(src, "package.json"))
	lock := readFile(t, filepath.Join(src, "package-lock.json"))
	claudeV, codexV, err := lockVersions(lock)
	if err != nil {
		t.Fatalf("hosttest: %s: %v", filepath.Join(src, "package-lock.json"), err)
	}
	sum := sha256.Sum256(lock)
	short := hex.EncodeToString(sum[:])[:12]
	hostsDir := filepath.Join(root, "build", "hosts")
	dir := filepath.Join(hostsDir, short)

	installMu.Lock()
	defer installMu.Unlock()
	if h, ok := installedHost[dir]; ok {
		return h
	}

	if err := os.MkdirAll(hostsDir, 0o755); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	lk := flock.New(filepath.Join(hostsDir, short+".lock"))
	locked, err := lk.TryLockContext(ctx, 250*time.Millisecond)
	if err != nil || !locked {
		t.Fatalf("hosttest: waiting for the install lock %s: locked %v, %v", lk.Path(), locked, err)
	}
	defer func() {
		if err := lk.Unlock(); err != nil {
			t.Errorf("hosttest: unlocking %s: %v", lk.Path(), err)
		}
	}()

	h := Hosts{
		Claude:        filepath.Join(dir, "node_modules", filepath.FromSlash(claudeRel)),
		Codex:         filepath.Join(dir, "node_modules", filepath.FromSlash(codexRel)),
		ClaudeVersion: claudeV, CodexVersion: codexV,
		Dir: dir,
	}
	stamp := filepath.Join(dir, stampName)
	want := stampText(lock, claudeV, codexV)
	if got, err := os.ReadFile(stamp); err == nil && string(got) == want && executable(h.Claude) && executable(h.Codex) {
		installedHost[dir] = h
		return h
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("hosttest: reading the install stamp: %v", err)
	}

	// A missing or stale stamp: (re)install from scratch. npm ci removes
	// an existing node_modules itself.
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("hosttest: %s is not on PATH (%v); install Node.js and npm to run the real-host tests", tool, err)
		}
	}
	if err := os.Remove(stamp); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("hosttest: %v", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	writeFile(t, filepath.Join(dir, "package.json"), pkg)
	writeFile(t, filepath.Join(dir, "package-lock.json"), lock)
	// The lock's file: overrides (testdata/node/absent) come along.
	if b, err := os.ReadFile(filepath.Join(src, absentDir, "package.json")); err == nil {
		if err := os.MkdirAll(filepath.Join(dir, absentDir), 0o755); err != nil {
			t.Fatalf("hosttest: %v", err)
		}
		writeFile(t, filepath.Join(dir, absentDir, "package.json"), b)
	} else if !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("hosttest: %v", err)
	}
	t.Logf("hosttest: npm ci of Claude Code %s and Codex %s into %s (the first time downloads ~800 MB)", claudeV, codexV, dir)
	start := time.Now()
	// --ignore-scripts: Claude Code's postinstall only copies its native
	// binary to bin/claude.exe; the binary is run from its platform package.
	out, err := runCmd(ctx, dir, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")
	if err != nil {
		t.Fatalf("hosttest: npm ci in %s failed: %v\n%s", dir, err, out)
	}
	t.Logf("hosttest: npm ci took %v", time.Since(start).Round(time.Second))
	for _, bin := range []string{h.Claude, h.Codex} {
		if !executable(bin) {
			t.Fatalf("hosttest: npm ci succeeded but %s is not an executable file (was an optional platform package left out?)\nnpm output:\n%s", bin, out)
		}
	}
	checkVersion(t, ctx, h.Claude, claudeV)
	checkVersion(t, ctx, h.Codex, codexV)
	writeFile(t, stamp, []byte(want))
	installedHost[dir] = h
	return h
}

// nativePaths are the native binaries inside node_modules for this
// platform. npm installs only the optional platform package matching the
// OS, CPU and libc: on a musl Linux that is claude-code-linux-<cpu>-musl.
func nativePaths() (claude, codex string, ok bool) {
	musl := func(loader string) string {
		if _, err := os.Stat(loader); err == nil {
			return "-musl"
		}
		return ""
	}
	switch runtime.GOOS + "/" + runtime.GOARCH {
	case "linux/amd64":
		return "@anthropic-ai/claude-code-linux-x64" + musl("/lib/ld-musl-x86_64.so.1") + "/claude",
			"@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex", true
	case "linux/arm64":
		return "@anthropic-ai/claude-code-linux-arm64" + musl("/lib/ld-musl-aarch64.so.1") + "/claude",
			"@openai/codex-linux-arm64/vendor/aarch64-unknown-linux-musl/bin/codex", true
	case "darwin/arm64":
		return "@anthropic-ai/claude-code-darwin-arm64/claude", "@openai/codex-darwin-arm64/vendor/aarch64-apple-darwin/bin/codex", true
	case "darwin/amd64":
		return "@anthropic-ai/claude-code-darwin-x64/claude", "@openai/codex-darwin-x64/vendor/x86_64-apple-darwin/bin/codex", true
	}
	return "", "", false
}

func stampText(lock []byte, claudeV, codexV string) string {
	sum := sha256.Sum256(lock)
	return fmt.Sprintf("claude-code %s\ncodex %s\npackage-lock sha256 %x\n", claudeV, codexV, sum)
}

// lockVersions are the versions of the two host packages a package-lock
// (lockfileVersion 2 or 3) installs.
func lockVersions(lock []byte) (claude, codex string, err error) {
	var l struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(lock, &l); err != nil {
		return "", "", err
	}
	claude = l.Packages["node_modules/@anthropic-ai/claude-code"].Version
	codex = l.Packages["node_modules/@openai/codex"].Version
	if claude == "" || codex == "" {
		return "", "", fmt.Errorf("the lock names no version of @anthropic-ai/claude-code (%q) or @openai/codex (%q)", claude, codex)
	}
	return claude, codex, nil
}

func checkVersion(t testing.TB, ctx context.Context, bin, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	home := t.TempDir()
	cmd := exec.CommandContext(ctx, bin, "--version")
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAUDE_CONFIG_DIR=" + filepath.Join(home, "claude"), "CODEX_HOME=" + filepath.Join(home, "codex"), "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1"}
	if err := os.Mkdir(filepath.Join(home, "codex"), 0o700); err != nil {
		t.Fatal(err)
	}
	cmd.Dir = home
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("hosttest: %s --version: %v\n%s", bin, err, out)
	}
	if !strings.Contains(string(out), want) {
		t.Fatalf("hosttest: %s --version printed %q, want version %s", bin, out, want)
	}
}

func runCmd(ctx context.Context, dir, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.WaitDelay = 10 * time.Second
	err := cmd.Run()
	return out.Bytes(), err
}

func executable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// moduleRoot is the directory holding go.mod, found by walking up from the
// test's working directory (its package directory). It does not use
// internal/testfixtures, which imports product packages whose own tests
// may want to import hosttest.
func moduleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("hosttest: working directory: %v", err)
	}
	for {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir
		}
		if !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("hosttest: looking for go.mod: %v", err)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("hosttest: no go.mod above the test directory")
		}
		dir = parent
	}
}

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("hosttest: %v", err)
	}
	return b
}

func writeFile(t testing.TB, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatalf("hosttest: %v", err)
	}
}
