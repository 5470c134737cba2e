// Command hostslatest runs the real-host tests (the hosts packages and
// internal/hosttest, which drive the real Claude Code, Codex, Gemini CLI
// and Qwen Code offline) against each host's latest release on npm, beside
// the pinned versions, and prints a version × check table (make
// hosts-latest). It is kept out of make test so that CI stays
// reproducible: "latest" changes under it.
//
// It writes the pinned package.json with every host at "latest" (its
// overrides, and the package they point at, kept) into a throw-away
// directory, resolves it to a lock with npm (--package-lock-only: nothing
// is installed there), and runs go test with HOSTTEST_NODE_DIR pointing at
// it (internal/hosttest installs that lock under build/hosts/ as it
// installs the pinned one).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// packages are the real-host test packages, from the module root.
var packages = []string{"./internal/hosttest", "./hosts", "./hosts/gemini", "./hosts/qwen"}

// hostPackages are the npm packages of the hosts, in the table's order,
// with the names its header gives them.
var hostPackages = []struct{ pkg, title string }{
	{"@anthropic-ai/claude-code", "Claude Code"},
	{"@openai/codex", "Codex"},
	{"@google/gemini-cli", "Gemini CLI"},
	{"@qwen-code/qwen-code", "Qwen Code"},
}

// pinnedDir holds the pinned package.json, lock and the overrides' package.
var pinnedDir = filepath.Join("internal", "hosttest", "testdata", "node")

func main() {
	pinned := flag.Bool("pinned", true, "run the pinned versions too, for a column to compare with")
	run := flag.String("run", "", "go test -run pattern (default: every test)")
	flag.Parse()
	if err := mainErr(*pinned, *run); err != nil {
		fmt.Fprintln(os.Stderr, "hostslatest:", err)
		os.Exit(1)
	}
}

func mainErr(pinned bool, run string) error {
	dir, err := os.MkdirTemp("", "graft-hosts-latest-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	if err := latestPackage(dir); err != nil {
		return err
	}
	fmt.Fprintln(os.Stderr, "hostslatest: resolving each host's latest release (npm install --package-lock-only)")
	cmd := exec.Command("npm", "install", "--package-lock-only", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("npm install --package-lock-only: %w\n%s", err, out)
	}
	latest, err := versions(filepath.Join(dir, "package-lock.json"))
	if err != nil {
		return err
	}
	type column struct {
		name, nodeDir string
		vers          []string
		res           map[string]string
		took          time.Duration
	}
	var cols []*column
	if pinned {
		v, err := versions(filepath.Join(pinnedDir, "package-lock.json"))
		if err != nil {
			return err
		}
		cols = append(cols, &column{name: "pinned", vers: v})
	}
	cols = append(cols, &column{name: "latest", nodeDir: dir, vers: latest})
	for _, c := range cols {
		fmt.Fprintf(os.Stderr, "hostslatest: go test %s with %s …\n", strings.Join(packages, " "), hostVersions(c.vers))
		start := time.Now()
		if c.res, err = goTest(c.nodeDir, run); err != nil {
			return err
		}
		c.took = time.Since(start)
	}
	names := map[string]bool{}
	for _, c := range cols {
		for n := range c.res {
			names[n] = true
		}
	}
	var rows []string
	for n := range names {
		rows = append(rows, n)
	}
	sort.Strings(rows)
	host, _ := os.Hostname()
	fmt.Printf("Run: make hosts-latest, %s, %s\n\n", time.Now().UTC().Format("2006-01-02 15:04 MST"), host)
	fmt.Print("| check |")
	for _, c := range cols {
		fmt.Printf(" %s: %s |", c.name, hostVersions(c.vers))
	}
	fmt.Print("\n|---|")
	for range cols {
		fmt.Print("---|")
	}
	fmt.Println()
	fails := 0
	for _, n := range rows {
		fmt.Printf("| %s |", n)
		for _, c := range cols {
			r := c.res[n]
			if r == "" {
				r = "–"
			}
			if r == "FAIL" {
				fails++
			}
			fmt.Printf(" %s |", r)
		}
		fmt.Println()
	}
	fmt.Print("| **time** |")
	for _, c := range cols {
		fmt.Printf(" %s |", c.took.Round(time.Second))
	}
	fmt.Println()
	if fails > 0 {
		return fmt.Errorf("%d checks failed", fails)
	}
	return nil
}

// versions are the hosts' versions a package-lock names, in hostPackages'
// order.
func versions(lock string) ([]string, error) {
	b, err := os.ReadFile(lock)
	if err != nil {
		return nil, err
	}
	var l struct {
		Packages map[string]struct {
			Version string `json:"version"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", lock, err)
	}
	var v []string
	for _, h := range hostPackages {
		ver := l.Packages["node_modules/"+h.pkg].Version
		if ver == "" {
			return nil, fmt.Errorf("%s names no version of %s", lock, h.pkg)
		}
		v = append(v, ver)
	}
	return v, nil
}

// hostVersions is "Claude Code 2.1.332, Codex 0.171.0, …".
func hostVersions(v []string) string {
	var parts []string
	for k, h := range hostPackages {
		parts = append(parts, h.title+" "+v[k])
	}
	return strings.Join(parts, ", ")
}

// latestPackage writes into dir the pinned package.json with every
// dependency at "latest" (its overrides kept) and the package the
// overrides point at (absent/).
func latestPackage(dir string) error {
	b, err := os.ReadFile(filepath.Join(pinnedDir, "package.json"))
	if err != nil {
		return err
	}
	var pkg map[string]any
	if err := json.Unmarshal(b, &pkg); err != nil {
		return fmt.Errorf("%s: %w", filepath.Join(pinnedDir, "package.json"), err)
	}
	deps, ok := pkg["dependencies"].(map[string]any)
	if !ok {
		return fmt.Errorf("%s has no dependencies", filepath.Join(pinnedDir, "package.json"))
	}
	for name := range deps {
		deps[name] = "latest"
	}
	pkg["name"] = "graft-hosts-latest"
	out, err := json.MarshalIndent(pkg, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "package.json"), append(out, '\n'), 0o644); err != nil {
		return err
	}
	absent, err := os.ReadFile(filepath.Join(pinnedDir, "absent", "package.json"))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if err := os.Mkdir(filepath.Join(dir, "absent"), 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "absent", "package.json"), absent, 0o644)
}

// goTest runs the real-host packages' tests with HOSTTEST_NODE_DIR set to
// nodeDir ("" for the pinned lock) and returns each top-level test's
// outcome: PASS, FAIL or SKIP.
func goTest(nodeDir, run string) (map[string]string, error) {
	args := append([]string{"test", "-count=1", "-json", "-timeout", "30m"}, packages...)
	if run != "" {
		args = append(args, "-run", run)
	}
	cmd := exec.Command("go", args...)
	cmd.Env = os.Environ()
	if nodeDir != "" {
		cmd.Env = append(cmd.Env, "HOSTTEST_NODE_DIR="+nodeDir)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res, perr := parse(out)
	werr := cmd.Wait()
	if perr != nil {
		return nil, perr
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return nil, fmt.Errorf("go test: %w\n%s", werr, stderr.String())
	}
	if len(res) == 0 {
		return nil, fmt.Errorf("go test ran no test (%v)\n%s", werr, stderr.String())
	}
	return res, nil
}

// parse reads go test -json events: the outcome of each top-level test.
func parse(r io.Reader) (map[string]string, error) {
	res := map[string]string{}
	sc := bufio.NewScanner(r)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Action, Package, Test string
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			continue // a build line
		}
		if ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		switch ev.Action {
		case "pass", "fail", "skip":
			res[filepath.Base(ev.Package)+"."+ev.Test] = strings.ToUpper(ev.Action)
		}
	}
	return res, sc.Err()
}
