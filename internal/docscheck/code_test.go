package docscheck

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/mcpserver"
)

// cliCommand is one command of "graft __doc-facts" (cmd/graft/cmd_docfacts.go).
type cliCommand struct {
	Path        string    `json:"path"`
	Use         string    `json:"use"`
	Hidden      bool      `json:"hidden"`
	Available   bool      `json:"available"`
	HelpTopic   bool      `json:"helpTopic"`
	Subcommands []string  `json:"subcommands"`
	Flags       []cliFlag `json:"flags"`
}

type cliFlag struct {
	Name      string `json:"name"`
	Shorthand string `json:"shorthand"`
	Type      string `json:"type"`
	Default   string `json:"default"`
	Usage     string `json:"usage"`
	Inherited bool   `json:"inherited"`
}

func (c *cliCommand) flag(name string) (cliFlag, bool) {
	for _, f := range c.Flags {
		if f.Name == name {
			return f, true
		}
	}
	return cliFlag{}, false
}

// leaf: no available subcommand.
func (c *cliCommand) leaf(tree map[string]*cliCommand) bool {
	for _, s := range c.Subcommands {
		if sc := tree[c.Path+" "+s]; sc != nil && sc.Available {
			return false
		}
	}
	return true
}

// code is what the test knows of the code: gathered once, checked against
// every document.
type code struct {
	root string // the module root
	bin  string // graft built from ./cmd/graft
	tmp  string // scratch space of the whole test binary

	tree     map[string]*cliCommand // by path, "graft hook install"
	commands []*cliCommand          // in tree order

	rootHelp      string // graft --help
	exitCodesHelp string // graft help exit-codes

	tools []*mcp.Tool // tools/list of an mcpserver.New server

	flow *flowResult
}

var (
	codeOnce sync.Once
	codeVal  *code
	codeErr  error
	codeTmp  string
)

// TestMain removes the scratch directory the shared code facts used.
func TestMain(m *testing.M) {
	rc := m.Run()
	if codeTmp != "" {
		if err := os.RemoveAll(codeTmp); err != nil {
			fmt.Fprintf(os.Stderr, "docscheck: removing %s: %v\n", codeTmp, err)
			rc = 1
		}
	}
	os.Exit(rc)
}

// loadCode builds the binary and gathers the code's facts, once per test
// binary.
func loadCode(t *testing.T) *code {
	t.Helper()
	root := testfixtures.ModuleRoot(t)
	codeOnce.Do(func() {
		codeTmp, codeErr = os.MkdirTemp("", "docscheck-")
		if codeErr != nil {
			return
		}
		codeVal, codeErr = gather(root, codeTmp)
	})
	if codeErr != nil {
		t.Fatal(codeErr)
	}
	return codeVal
}

func gather(root, tmp string) (*code, error) {
	c := &code{root: root, tmp: tmp, bin: filepath.Join(tmp, "bin", "graft"), tree: map[string]*cliCommand{}}
	build := exec.Command("go", "build", "-o", c.bin, "./cmd/graft")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go build ./cmd/graft: %v\n%s", err, out)
	}
	env := c.isolatedEnv(filepath.Join(tmp, "facts"))
	r := c.run(env, "", "__doc-facts")
	if r.err != nil {
		return nil, fmt.Errorf("graft __doc-facts: %v\n%s", r.err, r.stderr)
	}
	var facts struct {
		Commands []*cliCommand `json:"commands"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &facts); err != nil {
		return nil, fmt.Errorf("graft __doc-facts printed no JSON: %v", err)
	}
	c.commands = facts.Commands
	for _, cmd := range facts.Commands {
		c.tree[cmd.Path] = cmd
	}
	if c.tree["graft"] == nil || len(c.commands) < 10 {
		return nil, fmt.Errorf("graft __doc-facts: %d commands and no root: the tree is not what the test reads", len(c.commands))
	}
	if r = c.run(env, "", "--help"); r.err != nil {
		return nil, fmt.Errorf("graft --help: %v", r.err)
	}
	c.rootHelp = r.stdout
	if r = c.run(env, "", "help", "exit-codes"); r.err != nil {
		return nil, fmt.Errorf("graft help exit-codes: %v", r.err)
	}
	c.exitCodesHelp = r.stdout
	var err error
	if c.tools, err = listTools(filepath.Join(tmp, "mcp-home")); err != nil {
		return nil, err
	}
	if c.flow, err = c.runFlow(filepath.Join(tmp, "flow")); err != nil {
		return nil, err
	}
	return c, nil
}

// listTools lists the tools of an MCP server over a fresh home, as a client
// sees them.
func listTools(home string) ([]*mcp.Tool, error) {
	svc, err := graft.Open(home, graft.Options{})
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clientT, serverT := mcp.NewInMemoryTransports()
	ss, err := mcpserver.New(svc, mcpserver.Options{}).Connect(ctx, serverT, nil)
	if err != nil {
		return nil, err
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "docscheck", Version: "0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		return nil, err
	}
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, err
	}
	if err := cs.Close(); err != nil {
		return nil, err
	}
	if err := ss.Wait(); err != nil {
		return nil, err
	}
	return res.Tools, nil
}

// runResult is how one run of the binary ended.
type runResult struct {
	stdout, stderr string
	exit           int
	err            error // nil when it exited 0
}

// isolatedEnv is an environment whose every graft and host location is
// under dir: HOME, GRAFT_HOME, CLAUDE_CONFIG_DIR, CODEX_HOME; no XDG and no
// GRAFT_CONFIG from the caller.
func (c *code) isolatedEnv(dir string) map[string]string {
	return map[string]string{
		"HOME":              filepath.Join(dir, "user"),
		"GRAFT_HOME":        filepath.Join(dir, "home"),
		"CLAUDE_CONFIG_DIR": filepath.Join(dir, "claude"),
		"CODEX_HOME":        filepath.Join(dir, "codex"),
	}
}

// cleared are the variables a run never inherits: the test sets them or
// leaves them out.
var cleared = []string{"HOME", "GRAFT_HOME", "GRAFT_CONFIG", "XDG_DATA_HOME", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR", "CODEX_HOME", "GRAFT_CRASH_POINT", "GRAFT_FAULTS"}

// run runs the binary with env (over the inherited environment minus
// cleared) in dir ("" is the test's directory).
func (c *code) run(env map[string]string, dir string, args ...string) runResult {
	return c.runStdin(env, dir, "", args...)
}

// runStdin is run with stdin on the binary's standard input.
func (c *code) runStdin(env map[string]string, dir, stdin string, args ...string) runResult {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.bin, args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range cleared {
			if n == name {
				keep = false
			}
		}
		if keep {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, k := range sortedKeys(env) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := runResult{stdout: stdout.String(), stderr: stderr.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
		r.err = fmt.Errorf("graft %s: exit %d: %s", strings.Join(args, " "), r.exit, strings.TrimSpace(r.stderr))
	case err != nil:
		r.exit = -1
		r.err = fmt.Errorf("graft %s: %w", strings.Join(args, " "), err)
	}
	return r
}

// flowResult is what a real flow left on disk.
type flowResult struct {
	env      map[string]string
	home     string
	files    []string          // every path under the home, relative, "/"-separated; directories end in "/"
	exported map[string]string // host → the transcript path an export wrote
	cwd      string            // the project directory the exports name
}

// runFlow runs what a user does, in a fresh home: gen, prepare, commit,
// export into Claude Code and Codex, import a real transcript, hand the
// exported Claude Code session off again, a hook on it, recall, an append
// after a torn last line, and a catalog rebuilt after it was damaged; then
// lists what the home holds.
func (c *code) runFlow(dir string) (*flowResult, error) {
	env := c.isolatedEnv(dir)
	f := &flowResult{env: env, home: env["GRAFT_HOME"], exported: map[string]string{}, cwd: filepath.Join(dir, "project")}
	for _, d := range []string{env["HOME"], f.cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, err
		}
	}
	step := func(args ...string) (string, error) {
		r := c.run(env, f.cwd, args...)
		if r.err != nil {
			return "", fmt.Errorf("the flow: %w", r.err)
		}
		return r.stdout, nil
	}
	graftOne := func(id string) (string, error) {
		if _, err := step("gen", id); err != nil {
			return "", err
		}
		out, err := step("prepare", id, "--json")
		if err != nil {
			return "", err
		}
		var rv struct{ PreparedID, TapeHash string }
		if err := json.Unmarshal([]byte(out), &rv); err != nil {
			return "", fmt.Errorf("the flow: prepare --json: %v", err)
		}
		out, err = step("commit", rv.PreparedID, "--hash", rv.TapeHash, "--json")
		if err != nil {
			return "", err
		}
		var cr struct{ TargetID string }
		if err := json.Unmarshal([]byte(out), &cr); err != nil {
			return "", fmt.Errorf("the flow: commit --json: %v", err)
		}
		return cr.TargetID, nil
	}
	export := func(host, target string) error {
		out, err := step("export", host, target, "--cwd", f.cwd, "--json")
		if err != nil {
			return err
		}
		var ex struct{ Path string }
		if err := json.Unmarshal([]byte(out), &ex); err != nil {
			return fmt.Errorf("the flow: export --json: %v", err)
		}
		f.exported[host] = ex.Path
		return nil
	}
	for host, id := range map[string]string{"claude-code": "s", "codex": "t"} {
		target, err := graftOne(id)
		if err != nil {
			return nil, err
		}
		if err := export(host, target); err != nil {
			return nil, err
		}
	}
	fixture := filepath.Join(c.root, "testdata", "fixtures", "claude-code", "short.jsonl")
	if _, err := step("import", "claude-code", fixture, "--id", "imported"); err != nil {
		return nil, err
	}
	if _, err := step("handoff", "claude-code", "--transcript", f.exported["claude-code"], "--cwd", f.cwd, "--yes", "--json"); err != nil {
		return nil, err
	}
	stop := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`,
		strings.TrimSuffix(filepath.Base(f.exported["claude-code"]), ".jsonl"), f.exported["claude-code"], f.cwd)
	if r := c.runStdin(env, f.cwd, stop, "hook", "claude-code"); r.err != nil || r.stderr != "" {
		return nil, fmt.Errorf("the flow: a Stop hook: %v %s", r.err, r.stderr)
	}
	if _, err := step("recall", "s", "3"); err != nil {
		return nil, err
	}
	// a torn last line, cut before the next append
	if _, err := step("gen", "u"); err != nil {
		return nil, err
	}
	if err := appendFile(filepath.Join(f.home, "sessions", "u.jsonl"), `{"seq":`); err != nil {
		return nil, err
	}
	if r := c.runStdin(env, f.cwd, `{"type":"assistant/message","source":{"kind":"assistant"},"text":"after a torn line"}`+"\n", "append", "u"); r.err != nil {
		return nil, fmt.Errorf("the flow: %w", r.err)
	}
	if err := os.WriteFile(filepath.Join(f.home, "catalog.db"), bytes.Repeat([]byte("not bbolt"), 1000), 0o600); err != nil {
		return nil, err
	}
	if _, err := step("recover", "--rebuild-catalog"); err != nil {
		return nil, err
	}
	err := filepath.WalkDir(f.home, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == f.home {
			return err
		}
		rel, err := filepath.Rel(f.home, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			rel += "/"
		}
		f.files = append(f.files, rel)
		return nil
	})
	sort.Strings(f.files)
	return f, err
}

func appendFile(name, text string) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// goSource is the parsed Go files of a package directory.
type goSource struct {
	dir   string
	names []string // the files' names, by index
	files []*ast.File
}

// nonTestFiles is the package without its _test.go files.
func (s *goSource) nonTestFiles() *goSource {
	out := &goSource{dir: s.dir}
	for i, f := range s.files {
		if !strings.HasSuffix(s.names[i], "_test.go") {
			out.names = append(out.names, s.names[i])
			out.files = append(out.files, f)
		}
	}
	return out
}

func parsePackage(dir string, tests bool) (*goSource, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	s := &goSource{dir: dir}
	fset := token.NewFileSet()
	for _, e := range ents {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || (!tests && strings.HasSuffix(n, "_test.go")) {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		s.names = append(s.names, n)
		s.files = append(s.files, f)
	}
	return s, nil
}

// stringLiterals returns every string literal of the source, unquoted.
func (s *goSource) stringLiterals() []string {
	var out []string
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
				if v, err := strconv.Unquote(bl.Value); err == nil {
					out = append(out, v)
				}
			}
			return true
		})
	}
	return out
}

// callArgs returns, for each call of a function or method named one of
// names, its first argument when that is a string literal, or a
// fmt.Sprintf whose format is one (then as a format).
func (s *goSource) callArgs(names ...string) []string {
	var out []string
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			name := ""
			switch fn := call.Fun.(type) {
			case *ast.Ident:
				name = fn.Name
			case *ast.SelectorExpr:
				name = fn.Sel.Name
			}
			for _, want := range names {
				if name == want {
					if v, ok := literalOrFormat(call.Args[0]); ok {
						out = append(out, v)
					}
				}
			}
			return true
		})
	}
	return out
}

func literalOrFormat(e ast.Expr) (string, bool) {
	switch a := e.(type) {
	case *ast.BasicLit:
		if a.Kind == token.STRING {
			v, err := strconv.Unquote(a.Value)
			return v, err == nil
		}
	case *ast.CallExpr:
		if sel, ok := a.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Sprintf" && len(a.Args) > 0 {
			return literalOrFormat(a.Args[0])
		}
	}
	return "", false
}

// formats returns the format strings of every fmt.Fprintf/Sprintf/Printf
// call of the source.
func (s *goSource) formats() []string {
	var out []string
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			idx := -1
			switch sel.Sel.Name {
			case "Sprintf", "Printf", "Errorf":
				idx = 0
			case "Fprintf":
				idx = 1
			}
			if idx >= 0 && len(call.Args) > idx {
				if bl, ok := call.Args[idx].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if v, err := strconv.Unquote(bl.Value); err == nil {
						out = append(out, v)
					}
				}
			}
			return true
		})
	}
	return out
}

// flagNames returns the names of the flags a main package defines with the
// standard flag package (flag.String("name", …), flag.IntVar(&v, "name", …)).
func (s *goSource) flagNames() map[string]bool {
	out := map[string]bool{}
	for _, f := range s.files {
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "flag" {
				return true
			}
			idx := 0
			if strings.HasSuffix(sel.Sel.Name, "Var") {
				idx = 1
			}
			if len(call.Args) > idx {
				if bl, ok := call.Args[idx].(*ast.BasicLit); ok && bl.Kind == token.STRING {
					if v, err := strconv.Unquote(bl.Value); err == nil {
						out[v] = true
					}
				}
			}
			return true
		})
	}
	return out
}

// imports returns the import paths of the source.
func (s *goSource) imports() map[string]bool {
	out := map[string]bool{}
	for _, f := range s.files {
		for _, im := range f.Imports {
			if v, err := strconv.Unquote(im.Path.Value); err == nil {
				out[v] = true
			}
		}
	}
	return out
}

// packageName returns the package clause's name ("" without files).
func (s *goSource) packageName() string {
	for _, f := range s.files {
		return f.Name.Name
	}
	return ""
}
