package tape

import (
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
	if !strings.Contains(files, "- src/store.rs: edit seq=3 (defines handle) (its last edit adds open_store_locked, lock_timeout, handle.set_busy_timeout)") {
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
