package tape

import (
	"fmt"
	"strings"
	"testing"
)

// A Codex patch that updates a file names what it adds as an Edit does:
// the identifiers of its "+" lines that its "-" lines lacked. A patch
// that adds a file is a write, whose definitions name it.
func TestAPatchNamesWhatItAdds(t *testing.T) {
	patch := `{"input":"*** Begin Patch\n*** Update File: src/store.rs\n@@ impl Store {\n-    let handle = open_store(path)?;\n+    let handle = open_store_locked(path, lock_timeout)?;\n+    handle.set_busy_timeout(lock_timeout);\n     Ok(handle)\n*** End Patch"}`
	tp := build(t, "s", seqd(withMeta(human("Lock the store."), "cwd", "/r"), call("apply_patch", "p1", patch), result("apply_patch", "p1", true, "Success. Updated the following files:\nM src/store.rs")), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	// "let handle" inside a body binds a local: no definition
	// (TestALocalBindingIsNoDefinition).
	if !strings.Contains(files, "- src/store.rs: edit seq=3 (its last edit adds open_store_locked, lock_timeout, handle.set_busy_timeout)") {
		t.Fatalf("the patch's new names:\n%s", files)
	}
	if strings.Contains(files, "adds open_store,") {
		t.Fatalf("a name the removed lines had is named as added:\n%s", files)
	}
}

// An edit names, after the identifiers it adds, the first two messages
// it adds (double-quoted strings of 12 to 100 runes with a space): an
// error or a log line is how the change is known. A message the old text
// had, a short string and one with an escape are no new message.
func TestAnEditNamesTheMessagesItAdds(t *testing.T) {
	in := `{"file_path":"/r/stats.go","old_string":"\tlog.Printf(\"reading the stats table\")\n\treturn q","new_string":"\tlog.Printf(\"reading the stats table\")\n\tif !validMetricName.MatchString(m) {\n\t\treturn fmt.Errorf(\"invalid metric name: %q\", m)\n\t}\n\tlog.Printf(\"ok done\")\n\tfmt.Println(\"a line\\nwith an escape\")\n\tcclog.Warnf(\"skipping metric %s with an invalid name\", m)\n\tcclog.Warnf(\"a third new message here\")\n\treturn q"}`
	tp := build(t, "s", seqd(withMeta(human("Check metric names."), "cwd", "/r"), call("Edit", "e1", in), result("Edit", "e1", true, "ok")), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	want := `(its last edit adds validMetricName.MatchString, fmt.Errorf, fmt.Println, cclog.Warnf, "invalid metric name: %q", "skipping metric %s with an invalid name")`
	if !strings.Contains(files, want) {
		t.Fatalf("the edit's new names and messages, want %s:\n%s", want, files)
	}
	line, _, _ := strings.Cut(files[strings.Index(files, "- stats.go: edit"):], "\n")
	for _, not := range []string{"reading the stats table", "ok done", "with an escape", "a third new message"} {
		if strings.Contains(line, not) {
			t.Errorf("%q is named as a message the edit adds: %s", not, line)
		}
	}
}

// A name bound inside a body (const, let, var or val on an indented
// line) or a field set on the object at hand ("this.config = {") is no
// definition: the rest of the code calls a file's types, functions and
// methods, not its locals. A TypeScript class's Workspace Files entry had
// read "defines TaskRequest, SandboxQueueProcessor, this.config, tasks,
// sandboxTasks, files".
func TestALocalBindingIsNoDefinition(t *testing.T) {
	code := "export interface TaskRequest {\n  file: string;\n}\n\nexport class SandboxQueueProcessor {\n  constructor(key: string) {\n    this.config = {\n      model: key,\n    };\n  }\n\n  async processQueue(): Promise<void> {\n    const tasks = await this.loadTasksFromQueue();\n    let count = 0;\n  }\n\n  private async loadTasksFromQueue(): Promise<TaskRequest[]> {\n    return [];\n  }\n}\n"
	in := `{"file_path":"/r/src/lib/SandboxQueueProcessor.ts","content":` + quoteJSON(code) + `}`
	tp := build(t, "s", seqd(withMeta(human("Write the class."), "cwd", "/r"), call("Write", "w1", in), result("Write", "w1", true, "ok")), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	line := files[strings.Index(files, "- src/lib/SandboxQueueProcessor.ts"):]
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(line, "(defines TaskRequest, SandboxQueueProcessor") {
		t.Fatalf("the class's definitions:\n%s", files)
	}
	for _, local := range []string{"this.config", "tasks", "count"} {
		if strings.Contains(line, "defines") && strings.Contains(strings.SplitN(line, "(defines ", 2)[1], local) {
			t.Errorf("a local (%s) is named among the definitions: %s", local, line)
		}
	}
}

// A file written whole is named by its outline: its definitions, up to
// maxSymbols (16) of them, in order. A new module of a dozen functions
// had been named by its first six, and the ones the work was written for
// came later in the file (a review's commit_touched_path after its
// helpers normalise, _run, repo_root, _git, resolve and
// is_shallow_repository); past the cap the rest is left to recall.
func TestANewModulesOutlineNamesItsLaterDefinitions(t *testing.T) {
	var code strings.Builder
	for k := 1; k <= 20; k++ {
		fmt.Fprintf(&code, "def helper_%02d(x):\n    return x\n\n", k)
	}
	in := `{"file_path":"/r/src/provenance.py","content":` + quoteJSON(code.String()) + `}`
	tp := build(t, "s", seqd(withMeta(human("Write the module."), "cwd", "/r"), call("Write", "w1", in), result("Write", "w1", true, "ok")), Options{}, nil)
	files := blockText(t, tp, "Workspace Files")
	line := files[strings.Index(files, "- src/provenance.py"):]
	line, _, _ = strings.Cut(line, "\n")
	if !strings.Contains(line, "helper_01, ") || !strings.Contains(line, "helper_16)") {
		t.Fatalf("the module's first 16 definitions, in order:\n%s", line)
	}
	if strings.Contains(line, "helper_17") {
		t.Fatalf("more than 16 definitions named: %s", line)
	}
}
