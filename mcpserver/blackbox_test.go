package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/graft"
	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/txn"
)

// nodeClientFiles are what the black-box test copies out of testdata/node:
// npm ci installs the pinned @modelcontextprotocol/sdk beside them.
var nodeClientFiles = []string{"package.json", "package-lock.json", "client.mjs"}

// TestNodeClientBlackBox builds the graft binary and lets an independent
// client, the TypeScript MCP SDK, drive "graft mcp" over stdio.
func TestNodeClientBlackBox(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and installs an npm package; skipped with -short")
	}
	node, npm := lookTool(t, "node"), lookTool(t, "npm")
	root := testfixtures.ModuleRoot(t)
	tmp := t.TempDir()
	bin := filepath.Join(tmp, "graft")
	run(t, 3*time.Minute, root, "go", "build", "-o", bin, "./cmd/graft")

	clientDir := filepath.Join(tmp, "node")
	if err := os.Mkdir(clientDir, 0o700); err != nil {
		t.Fatal(err)
	}
	for _, name := range nodeClientFiles {
		b, err := os.ReadFile(filepath.Join("testdata", "node", name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(clientDir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run(t, 3*time.Minute, clientDir, npm, "ci", "--no-audit", "--no-fund", "--prefer-offline", "--loglevel=error")

	home := filepath.Join(tmp, "home")
	seedBlackBoxHome(t, home)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "client.mjs", bin, home)
	cmd.Dir = clientDir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var got nodeResult
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("node client: %v; output not JSON (%v)\nstdout: %s\nstderr: %s", runErr, err, stdout.String(), stderr.String())
	}
	if got.Failed != nil || runErr != nil {
		t.Fatalf("node client failed at %q: %s (exit: %v)\nserver log:\n%s\nstderr: %s", got.Failed.step(), got.Failed.error(), runErr, got.ServerLog, stderr.String())
	}
	t.Logf("server log:\n%s", got.ServerLog)
	checkNodeResult(t, got)
}

type nodeResult struct {
	Server struct {
		Name string `json:"name"`
	} `json:"server"`
	Tools []struct {
		Name        string         `json:"name"`
		Annotations map[string]any `json:"annotations"`
		OutputSchem bool           `json:"hasOutputSchema"`
		Description string         `json:"description"`
	} `json:"tools"`
	StatusBefore    StatusOutput  `json:"statusBefore"`
	Prepare         PrepareOutput `json:"prepare"`
	Commit          CommitOutput  `json:"commit"`
	Recall          RecallOutput  `json:"recall"`
	StatusAfter     StatusOutput  `json:"statusAfter"`
	Revert          RevertOutput  `json:"revert"`
	UnknownPrepared toolErrorJSON `json:"unknownPrepared"`
	Drift           toolErrorJSON `json:"drift"`
	Failed          *failure      `json:"failed"`
	ServerLog       string        `json:"serverLog"`
}

type toolErrorJSON struct {
	IsError bool   `json:"isError"`
	Text    string `json:"text"`
}

type failure struct {
	Step  string `json:"step"`
	Error string `json:"error"`
}

func (f *failure) step() string {
	if f == nil {
		return "(none)"
	}
	return f.Step
}

func (f *failure) error() string {
	if f == nil {
		return "(the script exited non-zero without a failure record)"
	}
	return f.Error
}

func checkNodeResult(t *testing.T, got nodeResult) {
	t.Helper()
	if got.Server.Name != "graft" {
		t.Errorf("server name %q", got.Server.Name)
	}
	wantReadOnly := map[string]bool{ToolPrepare: false, ToolCommit: false, ToolRecall: true, ToolFind: true, ToolStatus: true, ToolRevert: false}
	for _, tool := range got.Tools {
		ro, known := wantReadOnly[tool.Name]
		if !known {
			t.Errorf("unexpected tool %s", tool.Name)
			continue
		}
		delete(wantReadOnly, tool.Name)
		if tool.Annotations["readOnlyHint"] != ro || tool.Annotations["openWorldHint"] != false || !tool.OutputSchem || tool.Description == "" {
			t.Errorf("%s as the node client sees it: annotations %v, output schema %v", tool.Name, tool.Annotations, tool.OutputSchem)
		}
	}
	for name := range wantReadOnly {
		t.Errorf("the node client does not see tool %s", name)
	}
	sr := got.StatusBefore.StartupRecovery
	if sr == nil || sr.RolledBack != 1 || len(sr.Leftovers) != 1 || sr.Leftovers[0] != "c.g2" {
		t.Errorf("the binary's start-up scan did not roll back the crashed commit: %s", describe(sr))
	}
	if len(got.StatusBefore.Pending) != 0 {
		t.Errorf("pending records after the start-up scan: %s", describe(got.StatusBefore.Pending))
	}
	if got.Prepare.PreparedID == "" || got.Prepare.BoundarySeq != boundarySeq || got.Prepare.Tape == "" {
		t.Errorf("prepare: %s", describe(got.Prepare))
	}
	if got.Commit.TargetID != "s.g2" || got.Commit.Source != "s" || got.Commit.TapeHash != got.Prepare.TapeHash {
		t.Errorf("commit: %s", describe(got.Commit))
	}
	if got.Recall.Content != firstGoal || !got.Recall.HumanInstruction {
		t.Errorf("recall: %s", describe(got.Recall))
	}
	if r := row(t, got.StatusAfter, "s"); r.State != "retired" || r.Head != "s.g2" {
		t.Errorf("status after commit: %s", describe(r))
	}
	if got.Revert.Source != "s" || got.Revert.Target != "s.g2" {
		t.Errorf("revert: %s", describe(got.Revert))
	}
	if !got.UnknownPrepared.IsError || !strings.HasPrefix(got.UnknownPrepared.Text, "unknown_prepared: ") {
		t.Errorf("unknown preparedId: %+v", got.UnknownPrepared)
	}
	if !got.Drift.IsError || !strings.HasPrefix(got.Drift.Text, "boundary_drift: ") || !strings.Contains(got.Drift.Text, "graft_prepare again") {
		t.Errorf("drift: %+v", got.Drift)
	}
}

// seedBlackBoxHome writes sessions s and d, and leaves a crashed commit of
// session c in the journal for the binary's start-up scan to roll back.
func seedBlackBoxHome(t *testing.T, home string) {
	t.Helper()
	svc, err := graft.Open(home, graft.Options{Hook: func(p txn.Point) {
		if p == txn.CommitTargetWritten {
			panic(errHookPanic)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"s", "d", "c"} {
		if _, err := svc.Append(id, seedEvents()); err != nil {
			t.Fatal(err)
		}
	}
	rv, err := svc.Prepare(context.Background(), "c", graft.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if v := recover(); v != errHookPanic {
			t.Fatalf("the commit of c did not stop at the hook: %v", v)
		}
	}()
	res, err := svc.Commit(context.Background(), rv.PreparedID, rv.TapeHash, "")
	t.Fatalf("the commit of c ran past the hook: %v, %v", res, err)
}

// lookTool finds a program; a missing one fails the test in CI and skips
// it elsewhere.
func lookTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required for the MCP black-box test (CI is set): %v", name, err)
	}
	t.Skipf("%s not found (%v); the MCP black-box test needs node and npm", name, err)
	return ""
}

func run(t *testing.T, timeout time.Duration, dir, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s (in %s): %v\n%s", name, strings.Join(args, " "), dir, err, out)
	}
}
