package tape

import (
	"bytes"
	"encoding/json"
	"fmt"
	"iter"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/graft-project/graft/anchors"
	"github.com/graft-project/graft/importer/genai"
	"github.com/graft-project/graft/session"
)

// Bounds of the action memory (tape/doc.go, Recent Actions).
const (
	keptCommands    = 26  // the last calls whose output is quoted (commands), with their results
	keptQuiet       = 4   // the last other calls (reads, edits, searches)
	keptVCS         = 12  // the last commands of version control and trackers
	keptChecks      = 6   // the last runs of tests, builds and linters
	refLineOverhead = 200 // bytes of a tool/result log line besides its output
	keptRefs        = 3   // outputs of look-ups of what the user named
	keptUserTokens  = 60  // identifiers the user named
	whatRunes       = 140 // the command, path or query of one call
	inFlightRunes   = 400 // a command in flight at the cut (Pending State)
	// inFlightPromptRunes is what a sub-agent in flight at the cut shows of
	// its prompt: its head and its end.
	inFlightPromptRunes = 600
	keyLineRunes        = 180 // one key line of an output
	maxKeyLines         = 4   // key lines quoted of one output
	refRunes            = 3000
	keptAnswers         = 8
	answerRunes         = 1500
	minRefRunes         = 400 // a shorter look-up output is a state line: Recent Actions has it
	maxSymbols          = 16  // definitions named per edited file (its outline)
	symbolScan          = 8 << 10
	maxEditInput        = 64 << 10 // a write or edit input past it names no definition
	// MaxOutputLine is the longest tool/result log line whose output the
	// tape quotes (key lines, a look-up): a longer one is named, not read.
	MaxOutputLine = 96 << 10
)

// action is one tool call and its result.
type action struct {
	Seq  int64  `json:"seq"`            // of the tool/result
	Off  int64  `json:"off"`            // byte offset of the result's log line; -1 when the fold had no file
	Size int    `json:"size,omitempty"` // bytes of that line
	Tool string `json:"tool"`
	What string `json:"what,omitempty"`
	OK   bool   `json:"ok"`
	// Kind is the milestone kind of what it ran (milestoneKind).
	Kind string `json:"kind,omitempty"`
	// Key are the key lines of the output when the fold had it in hand
	// (Add); with an offset they are read at Build (Outputs).
	Key []string `json:"key,omitempty"`
	// Declined is the result's session.MetaDeclined: the person declined
	// the call at the host's prompt ("user": it did not run) or stopped it
	// ("stopped": it may have run in part); OK is false.
	Declined string `json:"declined,omitempty"`
	// Writes: the command prints into a file (printsIntoAFile): it acts,
	// though its What reads.
	Writes bool `json:"writes,omitempty"`
	// Unreported: a shell command whose exit the host did not report (its
	// result has no ok: Codex's code mode, whose script printed only the
	// command's output); OK is true, and its line says "ran", not "ok".
	Unreported bool `json:"unreported,omitempty"`
	// Running: of those, a command still running when its call returned
	// (meta execRunning: Codex's unified exec); its line says "running".
	Running bool `json:"running,omitempty"`
	// Background is the call id of a call the host ran in the background
	// (session.MetaBackground): its result is the host's launch notice,
	// never quoted; its report, when one came, names the call.
	Background string `json:"background,omitempty"`
	// Reported is the seq of the report that named a background call,
	// kept in Sub-agent Reports or not (addReport).
	Reported int64 `json:"reported,omitempty"`
	// Ended is the seq of the host's notification that a command run in
	// the background ended (session.MetaTaskStatus), End what it said
	// (its summary: "… failed with exit code 10").
	Ended int64  `json:"ended,omitempty"`
	End   string `json:"end,omitempty"`
	// Poll: a call that waited on a command left running, fed it nothing
	// and did not fail (Codex's write_stdin with no input, its code
	// mode's wait: openCall.Poll); a run of them is one line (pollRuns).
	Poll bool `json:"poll,omitempty"`
}

// callWhat is the one line that says what a call did: the command, the
// path, the pattern or the query it named.
func callWhat(name string, input json.RawMessage, cwd string) string {
	return callWhatIn(name, input, cwd, whatRunes)
}

// callWhatIn is callWhat within runes.
func callWhatIn(name string, input json.RawMessage, cwd string, runes int) string {
	return (&callInput{raw: input}).what(cwd, runes)
}

// callInput is a tool call's input, its whatKeys read at most once: a
// call's what, its command line (shellCommand) and its prompt (delegated)
// are all among them, and addCall wants all three of most calls. Where
// StringFields reads whatKeys, it reads any of them alike: the same
// values, and fewer keys are never refused where more are not; where it
// cannot, each reader goes its own way as before.
type callInput struct {
	raw        json.RawMessage
	vals       []string // StringFields(raw, whatKeys...), once read
	read, fast bool     // fast: vals are read
}

// Indexes of whatKeys.
const (
	whatCommand = iota
	whatCmd
	_
	_
	_
	_
	_
	_
	_
	whatDescription
	whatPrompt
	whatPatch
	whatInput
)

// fields is whatKeys' values, ok false when the input needs
// encoding/json.
func (in *callInput) fields() (vals []string, ok bool) {
	if !in.read {
		in.read = true
		// The fast reader skips the other values (a Write's whole file); a
		// list (a Codex shell command) or anything unusual goes to
		// encoding/json.
		in.vals, in.fast = session.StringFields(in.raw, whatKeys...)
	}
	return in.vals, in.fast
}

// what is callWhatIn of the input.
func (in *callInput) what(cwd string, runes int) string {
	input := in.raw
	if len(input) == 0 {
		return ""
	}
	if vals, ok := in.fields(); ok {
		for k, v := range vals {
			if strings.TrimSpace(v) == "" {
				continue
			}
			return whatOf(whatKeys[k], v, cwd, runes)
		}
		return ""
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) != nil {
		var s string
		if json.Unmarshal(input, &s) == nil {
			return clipLine(s, runes)
		}
		return ""
	}
	for _, key := range whatKeys {
		raw, ok := m[key]
		if !ok {
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) == nil && strings.TrimSpace(s) != "" {
			return whatOf(key, s, cwd, runes)
		}
		var parts []string
		if json.Unmarshal(raw, &parts) == nil && len(parts) > 0 {
			// Codex shell: ["bash", "-lc", "cargo test"].
			if len(parts) == 3 && (parts[1] == "-lc" || parts[1] == "-c") {
				parts = parts[2:]
			}
			return clipLine(foldPaths(strings.Join(parts, " ")), runes)
		}
	}
	return ""
}

// delegated is the prompt of a call that hands work to a sub-agent (a
// description and a prompt: Claude Code's Task, Qwen Code's task), its
// lines joined; "" for any other call.
func delegated(input json.RawMessage) string {
	return (&callInput{raw: input}).delegated()
}

// delegated is delegated of the input.
func (in *callInput) delegated() string {
	vals, ok := in.fields()
	if ok {
		vals = []string{vals[whatDescription], vals[whatPrompt]}
	} else {
		vals, ok = session.StringFields(in.raw, "description", "prompt")
	}
	if !ok || strings.TrimSpace(vals[0]) == "" || strings.TrimSpace(vals[1]) == "" {
		return ""
	}
	return strings.Join(strings.Fields(vals[1]), " ")
}

// whatKeys are the input fields that say what a call did, in the order
// callWhat looks for them.
var whatKeys = []string{"command", "cmd", "file_path", "path", "notebook_path", "absolute_path", "pattern", "query", "url", "description", "prompt", "patch", "input"}

// pathKeys are the input fields that name the file a call touches, in
// the order a call's file is looked for: absolute_path is Gemini CLI's
// earlier read_file's, and Qwen Code's before 0.13.
var pathKeys = []string{"file_path", "path", "notebook_path", "absolute_path"}

// whatOf is callWhat's line for the value s of field key.
func whatOf(key, s, cwd string, runes int) string {
	if slices.Contains(pathKeys, key) {
		s = relPath(s, cwd)
	}
	if key == "patch" || key == "input" {
		if ts := patchTouches(s); len(ts) > 0 {
			var ps []string
			for _, t := range ts {
				ps = append(ps, relPath(t.Path, cwd))
			}
			return clipLine("patch "+strings.Join(ps, ", "), whatRunes)
		}
	}
	if key == "command" || key == "cmd" {
		s = foldPaths(dropCdIntoCwd(s, cwd))
		// A commit's message from a here-document: its subject, which
		// git commit -q and a commit in flight print nowhere.
		// (actionLine leaves it out where the output's commit line,
		// "[main 3f2a1b9] subject", says it).
		if msg := commitMessage(s); msg != "" {
			return clipLine(s, runes) + messageMark + clipLine(msg, commitSubjectRunes) + ")"
		}
	}
	return clipLine(s, runes)
}

// foldPaths shortens a command whose first line is longer than whatRunes:
// in each run of three or more path arguments (a git add of nine files)
// the first stays and the rest become "… (N paths)", so that the verbs
// and flags of a chain (git add -f x && bd sync) survive the clip. The
// files themselves are the Workspace Files block's.
func foldPaths(s string) string {
	first, rest := strings.TrimSpace(s), ""
	if i := strings.IndexByte(first, '\n'); i >= 0 {
		first, rest = strings.TrimSpace(first[:i]), first[i:] // clipLine marks that more followed
	}
	if utf8.RuneCountInString(first) <= whatRunes {
		return s
	}
	words := strings.Fields(first)
	var out []string
	for k := 0; k < len(words); {
		j := k
		for j < len(words) && isPathArg(words[j]) {
			j++
		}
		if j-k >= 3 {
			out = append(out, words[k], fmt.Sprintf("… (%d paths)", j-k))
			k = j
			continue
		}
		if j == k {
			j++
		}
		out = append(out, words[k:j]...)
		k = j
	}
	return strings.Join(out, " ") + rest
}

// isPathArg: a word that names a file, not a flag, an operator or a
// redirect: it holds a slash or a dot between letters.
func isPathArg(w string) bool {
	if w == "" || strings.ContainsAny(w[:1], "-&|;<>$(\"'`") || strings.ContainsAny(w, "=<>|;&") {
		return false
	}
	return strings.Contains(w, "/") || strings.Contains(strings.Trim(w, "."), ".")
}

// clipLine is s on one line (its first non-blank line, with " …" when more
// followed), at most n runes.
func clipLine(s string, n int) string {
	s = strings.TrimSpace(s)
	first := firstLine(s, n)
	if first != s && !strings.HasSuffix(first, "…") {
		first += " …"
	}
	return first
}

// relPath names p relative to the working directory when it lies inside it.
func relPath(p, cwd string) string {
	if cwd == "" {
		return p
	}
	c := strings.TrimSuffix(cwd, "/")
	if rest, ok := strings.CutPrefix(p, c+"/"); ok && rest != "" {
		return rest
	}
	if isWindowsPath(cwd) {
		// A Windows session's files (C:\Users\…\repo\scripts\x.py), as
		// git and the person name them: relative, with slashes; a
		// Windows path's case does not matter.
		c, q := slashed(cwd), slashed(p)
		if len(q) > len(c)+1 && q[len(c)] == '/' && strings.EqualFold(q[:len(c)], c) {
			return q[len(c)+1:]
		}
	}
	return p
}

// dropCdIntoCwd is cmd without the "cd <the session's folder> &&" (or
// ";", or a line of its own) it opens with: Claude Code on Windows runs
// each Bash call from a fresh shell, and its agents open every command
// with it; what the call ran is the rest. A cd elsewhere stays.
func dropCdIntoCwd(cmd, cwd string) string {
	rest, ok := strings.CutPrefix(strings.TrimLeft(cmd, " \t"), "cd ")
	if !ok || cwd == "" {
		return cmd
	}
	rest = strings.TrimLeft(rest, " \t")
	var dir string
	if rest != "" && (rest[0] == '"' || rest[0] == '\'') {
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return cmd
		}
		dir, rest = rest[1:1+end], rest[2+end:]
	} else {
		i := strings.IndexAny(rest, " \t\n;&")
		if i < 0 {
			return cmd
		}
		dir, rest = rest[:i], rest[i:]
	}
	rest = strings.TrimLeft(rest, " \t")
	var after string
	switch {
	case strings.HasPrefix(rest, "&&"):
		after = rest[2:]
	case strings.HasPrefix(rest, ";"), strings.HasPrefix(rest, "\n"), strings.HasPrefix(rest, "\r\n"):
		// A cd into the folder the call runs in changes nothing, whatever
		// follows it: a script of several lines opens with one too.
		after = strings.TrimLeft(rest, ";\r\n")
	default:
		return cmd
	}
	if !sameDir(dir, cwd) {
		return cmd
	}
	return strings.TrimLeft(after, " \t\r\n")
}

// sameDir: dir names the folder cwd is. Of a Windows cwd, whatever the
// case and the slashes, and as Git Bash names it (/c/Users/… for
// C:\Users\…).
func sameDir(dir, cwd string) bool {
	if !isWindowsPath(cwd) {
		return dir != "" && strings.TrimRight(dir, "/") == strings.TrimRight(cwd, "/")
	}
	d := slashed(dir)
	if len(d) >= 2 && d[0] == '/' && ('a' <= d[1]|0x20 && d[1]|0x20 <= 'z') && (len(d) == 2 || d[2] == '/') {
		d = d[1:2] + ":" + d[2:]
	}
	return strings.EqualFold(d, slashed(cwd))
}

// isWindowsPath: a path with a drive letter (C:\…, C:/…).
func isWindowsPath(p string) bool {
	return len(p) >= 3 && p[1] == ':' && (p[2] == '\\' || p[2] == '/') && ('a' <= p[0]|0x20 && p[0]|0x20 <= 'z')
}

// slashed is a Windows path with slashes and no trailing one.
func slashed(p string) string {
	return strings.TrimRight(strings.ReplaceAll(p, `\`, "/"), "/")
}

// noiseDirs are folders of dependencies, builds and caches: files read
// there are not the work (tape/doc.go, Workspace files).
var noiseDirs = map[string]bool{
	"node_modules": true, "deps": true, "_build": true, ".git": true, "vendor": true, "dist": true,
	"target": true, "__pycache__": true, ".venv": true, "venv": true, "site-packages": true,
	".next": true, ".cache": true, ".elixir_ls": true, ".gradle": true, "coverage": true, ".tox": true,
	".mypy_cache": true, ".pytest_cache": true, "bower_components": true, ".cargo": true, "pkg": false,
}

// isNoise: a path under a dependency, build or cache folder.
func isNoise(p string) bool {
	for seg := range strings.SplitSeq(p, "/") {
		if noiseDirs[seg] {
			return true
		}
	}
	return false
}

// definition finds the name a line of code defines, in the usual forms
// of the common languages (def, defp, defmodule, func, function, fn,
// class, interface, type, struct, enum, trait, module, const/let/var …).
var assignment = regexp.MustCompile(`^\s*[+]?\s*(?:export\s+)?(?:const\s+|let\s+|var\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\s*=\s*(?:\{|function|async|\(|class)`)

var definition = regexp.MustCompile(`^\s*[+]?\s*(?:export\s+|pub(?:\([a-z]+\))?\s+|public\s+|private\s+|protected\s+|static\s+|async\s+|default\s+)*(?:def|defp|defmodule|defmacro|defmacrop|func|function|fn|class|interface|type|struct|enum|trait|module|const|let|var|val|object|impl)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$.?!]*)`)

// testDefinition: a test named by a string (bats' @test "…", Jest's and
// Mocha's it("…")/test("…")/describe("…"), ExUnit's test "…" do).
var testDefinition = regexp.MustCompile("^\\s*[+]?\\s*(?:@test|test|it|describe)\\s*\\(?\\s*([\"'`])([^\"'`]{3,100})[\"'`]")

// editSymbols are the names an edit's new text defines, at most
// maxSymbols: those its unindented lines define first (a file's types,
// its functions, its tests: what the rest of the code calls), then those
// of its indented lines (the methods inside them), each in order.
func editSymbols(name string, input json.RawMessage) []string {
	texts := editTexts(name, input)
	var out []string
	seen := map[string]bool{}
	for _, nested := range []bool{false, true} {
		for _, t := range texts {
			if len(t) > symbolScan {
				t = t[:symbolScan]
			}
			for line := range strings.SplitSeq(t, "\n") {
				if len(out) == maxSymbols {
					return out
				}
				if indented(line) != nested {
					continue
				}
				if nested && localBinding(line) {
					continue
				}
				if n := definedName(line); n != "" && !seen[n] {
					seen[n] = true
					out = append(out, n)
				}
			}
		}
	}
	return out
}

// definedName is the name a line of new code defines ("" for none, or
// one shorter than 3 bytes): a test by its string, else a definition or
// an "a.b = {" assignment. A patch's removed line and its "***" headers
// define nothing.
func definedName(line string) string {
	if strings.HasPrefix(line, "-") || strings.HasPrefix(line, "***") {
		return ""
	}
	name := ""
	if namesTest(line) {
		if m := testDefinition.FindStringSubmatch(line); m != nil {
			name = m[2]
		}
	} else if mayDefine(line) {
		m := definition.FindStringSubmatch(line)
		if m == nil {
			m = assignment.FindStringSubmatch(line) // Hooks.TranscriptHighlighter = {
		}
		if m != nil {
			name = m[1]
		}
	}
	if len(name) < 3 {
		return ""
	}
	return name
}

// localBinding: an indented line that binds a local name (const, let,
// var, val inside a body) or sets a field of the object at hand
// ("this.config = {", "self.x = …"): no name the rest of the code calls.
// A Swift or Kotlin property declared in a type's body (an indented let,
// var or val) reads alike and goes too: the type and its functions stay.
func localBinding(line string) bool {
	t := strings.TrimSpace(strings.TrimPrefix(line, "+"))
	for _, p := range []string{"const ", "let ", "var ", "val ", "this.", "self."} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// indented: a line of code that starts with a space or a tab, past a
// patch's '+' (a line the patch adds).
func indented(line string) bool {
	line = strings.TrimPrefix(line, "+")
	return line != "" && (line[0] == ' ' || line[0] == '\t')
}

// noiseLine: output lines that look like key lines but say nothing of the
// outcome (package-manager chatter).
func noiseLine(l string) bool {
	t := strings.TrimSpace(l)
	if t == ", stderr:" {
		return true // the end of Codex's "failed in sandbox … stdout: …", no stderr
	}
	if codexExecHeader(t) {
		return true
	}
	if ruleLine(t) {
		return true
	}
	if msysLine(t) || strings.HasSuffix(t, "fork: retry: Resource temporarily unavailable") {
		return true // Git Bash's runtime on Windows, failing to fork and retrying
	}
	if strings.HasPrefix(unlabelled(t), "(?) ") {
		return true // GitHub's advice in a rejected push (TestAHostsAdviceIsNoKeyLine)
	}
	if len(t) > 40 {
		t = t[:40] // every prefix below is shorter
	}
	t = strings.ToLower(t)
	for _, p := range noisePrefixes {
		if strings.HasPrefix(t, p) || t != "" && t[0] == '(' && strings.HasPrefix(t[1:], p) {
			return true
		}
	}
	return logLine(t)
}

// pendingKey is what Pending State shows of a failure's key lines (more
// than 2, in output order), in output order: the first that names its
// error (errorIndex; else the first) with the line below it when it is a
// bare header whose message is there ("Error:", GHC's "error: [GHC-…]":
// bareErrorHeader); else that one and the last that counts (a test
// run's verdict, "4 failed, 31 passed"); without a count, the first line
// and the one that names the error (the first two when it is one of
// them: past a script's echo of its command, "> tsc", the compiler's
// error). Never a wrapper's line ("Exit code 1", make's "*** [lint]
// Error 1", "exit status 1"), which says no more than FAILED.
func pendingKey(key []string) []string {
	lines := unwrapped(key)
	if len(lines) <= 2 {
		return lines
	}
	e := max(errorIndex(lines), 0)
	if err := errorWithMessage(lines, e); len(err) == 2 {
		return err // a bare header and its message: the two say the error
	}
	for k := len(lines) - 1; k >= 0; k-- {
		if k != e && countLine(lines[k]) {
			if k < e {
				return []string{lines[k], lines[e]}
			}
			return []string{lines[e], lines[k]}
		}
	}
	if e < 2 {
		return lines[:2]
	}
	return []string{lines[0], lines[e]}
}

// workaround: the shell command fixed ran what failed another way: with
// a flag it lacked ("git commit --no-gpg-sign …" after "git commit …",
// "git push --set-upstream origin x" after "git push"), or the same script
// another way (sameScriptRun: "cd assets && node build.js" after "node
// assets/build.js"). Not the same command again (a retry), nor one that
// only shares its first words ("go test ./b/..." after "go test
// ./a/..."), nor another tool's retry.
func workaround(f failure, by string) bool {
	if !isShellTool(f.Tool) || f.What == "" || by == "" || f.What == by {
		return false
	}
	if sameScriptRun(f.What, by) {
		return true
	}
	had := map[string]bool{}
	for _, w := range strings.Fields(f.What) {
		had[w] = true
	}
	for _, w := range strings.Fields(by) {
		if len(w) > 1 && w[0] == '-' && w != "--" && !had[w] {
			return true
		}
	}
	return false
}

// errorLineOf is the line of key that names an error (errorIndex), else
// its first, wrappers aside, with the line below it when it is a bare
// header ("Error:" and its message: bareErrorHeader); "" for none.
func errorLineOf(key []string) string {
	lines := unwrapped(key)
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(errorWithMessage(lines, max(errorIndex(lines), 0)), " ")
}

// errorWithMessage is lines[e], the line that names an error, with the
// line below it when it is a bare header whose message is there ("Error:",
// GHC's "error: [GHC-44287]": bareErrorHeader, as keyLines takes it)
// (TestPendingStateShowsTheMessageUnderABareErrorHeader).
func errorWithMessage(lines []string, e int) []string {
	if e+1 < len(lines) && bareErrorHeader(lines[e]) {
		return lines[e : e+2]
	}
	return lines[e : e+1]
}

// unwrapped are key's lines but a wrapper's (wrapperLine).
func unwrapped(key []string) []string {
	var lines []string
	for _, l := range key {
		if !wrapperLine(l) {
			lines = append(lines, l)
		}
	}
	return lines
}

// errorIndex is the index of the first line that names an error
// (namesError), else of the first that holds an error word (isErrorLine);
// -1 for none.
func errorIndex(lines []string) int {
	if k := slices.IndexFunc(lines, namesError); k >= 0 {
		return k
	}
	return slices.IndexFunc(lines, isErrorLine)
}

// countLine: a line that counts what a run found ("4 failed, 31 passed",
// "1 file changed"): a number followed by a count word, paths aside.
func countLine(l string) bool {
	found := false
	eachWord(withoutPaths(l), func(w string, afterNumber bool) bool {
		found = afterNumber && countWords[w]
		return !found
	})
	return found
}

// wrapperLine: a line a host or make puts around a failed command's own
// output, "Exit code 1" (Claude Code), "make: *** [Makefile:40: lint]
// Error 1", "exit status 1" (go run, go test): it says no more than
// FAILED does.
func wrapperLine(l string) bool {
	t := strings.TrimSpace(l)
	if exitLine(t) {
		return true
	}
	if strings.HasPrefix(t, "make") && strings.Contains(t, ": *** [") {
		_, after, ok := strings.Cut(t, "] Error ")
		after = strings.TrimSuffix(after, " (ignored)")
		return ok && after != "" && strings.Trim(after, "0123456789") == ""
	}
	return false
}

// msysLine: a message of the MSYS/Cygwin runtime under Git Bash on
// Windows, "0 [main] bash (1620) child_copy: …" or "0 [main] bash 403
// dofork: …": a number, the thread in brackets, the program, its pid (in
// parentheses or not) and the routine that speaks.
func msysLine(t string) bool {
	i := 0
	for i < len(t) && '0' <= t[i] && t[i] <= '9' {
		i++
	}
	if i == 0 || !strings.HasPrefix(t[i:], " [") {
		return false
	}
	rest := t[i+2:]
	end := strings.Index(rest, "] ")
	if end <= 0 {
		return false
	}
	f := strings.Fields(rest[end+2:])
	// The program, then its pid, in parentheses or not.
	return len(f) >= 3 && strings.HasSuffix(f[2], ":") && strings.Trim(f[1], "()") != "" && strings.Trim(f[1], "()0123456789") == ""
}

// noisePrefixes open a line of output that says nothing of how a command
// went: package managers' chatter, a debugger's, how long a
// run took, advice on what to run next (lower case; also after an
// opening parenthesis).
var noisePrefixes = []string{
	// A GitHub Actions runner's housekeeping in a run's log (gh run view
	// --log-failed): its groups and cleanup (actionslog.go).
	"##[group]", "##[endgroup]", "cleaning up orphan processes", "post job cleanup", "terminate orphan process",
	"npm warn", "npm notice", "warn deprecated", "(node:", "debugger attached", "waiting for the debugger", "[output truncated", "(use \"git ",
	"finished in ", "analysis took ", "done in ", "time elapsed", "elapsed time",
	"use `", "run `", "hint:", "please report", "to find out more", "for more information",
	// A runtime's advice on how to see more, after the warning or error it
	// is about (CPython, Node's "(Use `node --trace-warnings …`)", Rust,
	// Gradle): TestRuntimeAdviceIsNoKeyLine.
	"enable tracemalloc", "note: run with `rust_backtrace", "run with --",
	// WSL, mapping a Windows PATH entry before every command
	// (TestWSLChatterIsNoKeyLine).
	"wsl: failed to translate '",
	// Codex's note that it cut a command's output for its model, before
	// the output.
	"warning: truncated output (original",
}

// unlabelled is t past a bare label ("remote:", one word and its colon)
// and the spaces after it.
func unlabelled(t string) string {
	if i := strings.IndexByte(t, ':'); i > 0 && !strings.ContainsAny(t[:i], " \t") {
		return strings.TrimLeft(t[i+1:], " \t")
	}
	return t
}

// adviceLines returns a filter of an output's lines, in order, that says
// which belong to a host's advice: GitHub's, in a rejected push, runs from
// its "(?) " line (noiseLine) to the next blank line, the page to read or
// the settings page to visit on the lines between
// (TestAPushProtectionFailureKeepsItsFindings).
func adviceLines() func(line string) bool {
	in := false
	return func(line string) bool {
		t := strings.TrimSpace(line)
		switch u := unlabelled(t); {
		case u == "":
			in = false
		case strings.HasPrefix(u, "(?) "):
			in = true
		}
		return in
	}
}

// ruleRunes are the runes a rule is drawn with.
const ruleRunes = "-=_~—―─━═"

// squeezeRules shortens each run of more than 4 of a rule's characters in
// a line ("—— Stripe API Key ————…") to 2: the run says nothing past them.
func squeezeRules(l string) string {
	long, run := false, 0
	var prev rune
	for _, r := range l { // most lines have no such run: no copy
		if r == prev {
			run++
		} else {
			prev, run = r, 1
		}
		if run > 4 && strings.ContainsRune(ruleRunes, r) {
			long = true
			break
		}
	}
	if !long {
		return l
	}
	rs := []rune(l)
	var b strings.Builder
	for i := 0; i < len(rs); {
		j := i + 1
		for j < len(rs) && rs[j] == rs[i] {
			j++
		}
		n := j - i
		if n > 4 && strings.ContainsRune(ruleRunes, rs[i]) {
			n = 2
		}
		for k := 0; k < n; k++ {
			b.WriteRune(rs[i])
		}
		i = j
	}
	return b.String()
}

// ruleLine: a line that only separates what a command printed (a rule of
// dashes, equals signs or box-drawing characters, a table's border), after
// a bare label ("remote:"): at least 4 such characters and nothing else but
// spaces (TestARuleIsNoKeyLine). "---" and "..." are short enough to be
// something else (a YAML document's start, an ellipsis) and stay.
func ruleLine(t string) bool {
	t = unlabelled(t)
	n := 0
	for _, r := range t {
		switch {
		case r == ' ' || r == '\t':
		case strings.ContainsRune("-=_*#~.+|:•·–—―", r) || r >= 0x2500 && r <= 0x259f:
			n++
		default:
			return false
		}
	}
	return n >= 4
}

// exitLine: a host's line that says only how a command exited ("Exit
// code 1", Codex's "Exit code: 1" and "Process exited with code 1", Go's
// "exit status 1"): no key line, the call is marked FAILED or ok already.
func exitLine(t string) bool {
	for _, p := range []string{"Exit code ", "exit status ", "Exit code: ", "Process exited with code "} {
		if rest, ok := strings.CutPrefix(t, p); ok {
			return rest != "" && strings.Trim(rest, "0123456789") == ""
		}
	}
	return false
}

// outputBody is out without the header Codex's unified exec puts before a
// command's output ("Command: …" (0.115), "Chunk ID: …", "Wall time: …",
// "Process exited with code N", "Original token count: …", "Output:"), or
// its shell_command does ("Exit code: N", "Wall time: …", "Output:"):
// what follows its "Output:" line when out opens with that header within
// its first 8 lines; else out as it is. The importer reads the same header
// for a call's exit (importer/codex ParseExec); the tape names no host's
// package (docscheck's TestNoHostNamedOutsideItsPackage), so it knows the
// header by its text. Claude Code's words for an empty output ("(Bash
// completed with no output)") are no output, and a sub-agent's result
// ends before the bookkeeping it appends ("agentId: …", <usage>: reportBody)
// (TestTheHostsWordsInAResultAreNoKeyLines). What is left, when it is one
// JSON document with escaped text, is the text it holds (jsonText); key
// lines read withoutHeader's, the document as it is.
func outputBody(out string) string {
	body := withoutHeader(out)
	if text, ok := jsonText(body); ok {
		return text
	}
	return body
}

// withoutHeader is outputBody before jsonText.
func withoutHeader(out string) string {
	t := strings.TrimLeft(out, " \t\r\n")
	if trimmed := strings.TrimRight(t, " \t\r\n"); trimmed == emptyBashOutput {
		return "" // Claude Code's words for an empty output: "ok" says it ran
	} else if strings.HasSuffix(trimmed, "</usage>") {
		// A sub-agent's result with the bookkeeping Claude Code appends
		// for its model ("agentId: …", <usage>): not the agent's words.
		return reportBody(t)
	}
	if body, ok := shellSections(t); ok {
		return body
	}
	if !strings.HasPrefix(t, "Command: ") && !strings.HasPrefix(t, "Chunk ID: ") && !strings.HasPrefix(t, "Wall time: ") && !shellCommandHeader(t) {
		return out
	}
	rest := t
	for k := 0; k < 8 && rest != ""; k++ {
		line, more, _ := strings.Cut(rest, "\n")
		if strings.TrimSuffix(line, "\r") == "Output:" {
			return more
		}
		if k > 0 && !codexExecHeader(strings.TrimSpace(line)) && !exitLine(strings.TrimSpace(line)) {
			return out // not the header after all
		}
		rest = more
	}
	return out
}

// shellCommandHeader: t opens with the exit line of Codex's shell_command
// header ("Exit code: N", then "Wall time: …" and "Output:").
func shellCommandHeader(t string) bool {
	if !strings.HasPrefix(t, "Exit code: ") {
		return false
	}
	first, _, _ := strings.Cut(t[:min(len(t), 64)], "\n")
	return exitLine(strings.TrimSpace(first))
}

// emptyBashOutput is what Claude Code gives its model for a command that
// printed nothing.
const emptyBashOutput = "(Bash completed with no output)"

// shellSections is the output inside the sections another host's shell
// tool gives its model (Gemini CLI's and Qwen Code's: genai.ParseShellOutput,
// which the importer reads the command's outcome from too), with a process
// error kept and the host's "(empty)" none; else t without the
// <untrusted_context> wrapper Gemini CLI puts around a tool's output. ok
// is false when t has neither.
func shellSections(t string) (string, bool) {
	if so, ok := genai.ParseShellOutput(t); ok {
		return so.Body, true
	}
	if w, found := strings.CutPrefix(t, "<untrusted_context>"); found {
		return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(w), "</untrusted_context>")), true
	}
	return t, false
}

// codexExecHeader: a line of the header Codex's unified exec puts before a
// command's output ("Chunk ID: …", "Wall time: … seconds", "Process
// running with session ID N", "Original token count: N", "Output:"), or
// the count it puts before an output it cut for its model to the head and
// end ("Total output lines: N"); its "Process exited with code N" is a
// wrapper's line (wrapperLine).
func codexExecHeader(t string) bool {
	if t == "Output:" {
		return true
	}
	for _, p := range []string{"Chunk ID: ", "Wall time: ", "Process running with session ID ", "Original token count: ", "Total output lines: "} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

// logLine: a program's own log line below an error, timestamped or not
// ("21:23:45.773 [warning] …", "[info] …"): what the code under test
// logged, not the verdict of the run.
func logLine(t string) bool {
	i := 0
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == ':' || t[i] == '.' || t[i] == '-' || t[i] == 't' || t[i] == 'z') {
		i++
	}
	timed := i >= 8 && strings.Count(t[:i], ":") >= 2
	if timed {
		t = strings.TrimLeft(t[i:], " ")
	}
	for _, lvl := range []string{"[debug]", "[info]", "[notice]"} {
		if strings.HasPrefix(t, lvl) {
			return true
		}
	}
	return timed && (strings.HasPrefix(t, "[warning]") || strings.HasPrefix(t, "[warn]"))
}

// keyLines are the lines of an output the next window needs of it (at
// most maxKeyLines, in output order): for a failure the first line that
// names an error and the last line; for a success the key lines (isKeyLine)
// nearest the end and the last line.
func keyLines(out string, ok bool) []string { return keyLinesSkipping(out, ok, nil) }

// saysSomething: t holds a letter or a digit. A line of punctuation
// alone (a JSON object's closing "}", "],", a lone "✓") says nothing
// by itself and is no key line (TestALineOfPunctuationIsNoKeyLine).
func saysSomething(t string) bool {
	return strings.IndexFunc(t, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) >= 0
}

// ruleHeading: a line framed by one rule (ruleRunes) on both sides, as
// squeezeRules leaves pytest's "===== test session starts =====" ("==
// test session starts ==") or "---- Captured stdout call ----": a
// runner's section heading.
func ruleHeading(t string) bool {
	rs := []rune(t)
	n := len(rs)
	return n > 4 && strings.ContainsRune(ruleRunes, rs[0]) && rs[1] == rs[0] && rs[n-2] == rs[0] && rs[n-1] == rs[0]
}

// diffHunk is what a unified diff's hunk has left of its lines, by the
// counts its header gives ("@@ -593,6 +610,10 @@": 6 old lines, 10 new;
// a context line is one of each): the output goes on past it with lines
// of its own (git status --short's " M path" is no context line).
type diffHunk struct{ oldN, newN int }

// next reads the output's line l and reports whether it is a hunk's: its
// header or one of its lines (added "+…", removed "-…", context " …" or
// empty where its space was trimmed, git's "\ No newline at end of
// file").
func (h *diffHunk) next(l string) bool {
	l = strings.TrimRight(l, "\r")
	if rest, ok := strings.CutPrefix(l, "@@ -"); ok {
		if o, n, ok := hunkCounts(rest); ok {
			h.oldN, h.newN = o, n
			return true
		}
	}
	if strings.HasPrefix(l, `\ No newline`) {
		return true
	}
	if h.oldN <= 0 && h.newN <= 0 {
		return false
	}
	switch {
	case l == "" || l[0] == ' ':
		h.oldN--
		h.newN--
	case l[0] == '-':
		h.oldN--
	case l[0] == '+':
		h.newN--
	default:
		h.oldN, h.newN = 0, 0 // a hunk cut short (head -n): its output goes on
		return false
	}
	return true
}

// hunkCounts reads "a,b +c,d @@…" (a hunk header past its "@@ -"): the old
// and new line counts, 1 where the count is left out ("@@ -5 +5 @@").
func hunkCounts(rest string) (oldN, newN int, ok bool) {
	ranges, _, ok := strings.Cut(rest, " @@")
	if !ok {
		return 0, 0, false
	}
	a, b, ok := strings.Cut(ranges, " +")
	if !ok {
		return 0, 0, false
	}
	count := func(r string) (int, bool) {
		start, n, has := strings.Cut(r, ",")
		if _, err := strconv.Atoi(start); err != nil {
			return 0, false
		}
		if !has {
			return 1, true
		}
		v, err := strconv.Atoi(n)
		return v, err == nil && v >= 0
	}
	oldN, okOld := count(a)
	newN, okNew := count(b)
	return oldN, newN, okOld && okNew
}

// keyLinesSkipping are keyLines, past the lines of skip (shellNoise).
func keyLinesSkipping(out string, ok bool, skip map[string]bool) []string {
	body := withoutHeader(out)
	if cs, rest := reviewComments(body); cs != nil {
		// A fetch of a pull request's comments: the work they ask for,
		// and the key lines of what follows them, the newest
		// maxKeyLines/2 (a script's verdict on the checks).
		more := keyLinesSkipping(rest, ok, skip)
		more = more[max(0, len(more)-maxKeyLines/2):]
		return append(commentLines(cs, maxKeyLines-len(more)), more...)
	}
	var lines []string
	var changed []bool // a file git status --short names as changed
	advice := adviceLines()
	var banner npmBannerLines // what ran, said by the action's line (TestAPackageManagersBannerIsNoKeyLine)
	var hunk diffHunk         // the lines a diff's hunk has left (TestADiffsHunkLinesAreNoKeyLines)
	for l := range strings.SplitSeq(stripANSI(body), "\n") {
		t := strings.TrimSpace(l)
		if m, ok := actionsLogMessage(t); ok {
			t, l = m, m // a CI log's line: its message (actionslog.go)
		}
		if banner.next(t) || hunk.next(l) {
			continue // a banner, or code the diff adds, removes or shows around them
		}
		if !advice(t) && saysSomething(t) && !noiseLine(t) && !exitLine(t) && !skip[t] {
			lines = append(lines, squeezeRules(t))
			changed = append(changed, shortStatusLine(strings.TrimRight(l, "\r")))
		}
	}
	if len(lines) == 0 {
		return nil
	}
	lines, checks := foldChecks(lines)
	// A count of nothing is no line of the run beside one of its shape
	// that counts: cargo's doc tests end its output with "running 0
	// tests" (TestACountOfNothingYieldsToOneOfItsShape).
	// Most outputs hold no such line: their shapes are not drawn at all.
	var counted map[string]bool
	if slices.ContainsFunc(lines, countsNothing) {
		counted = countedShapes(lines)
	}
	nothing := func(k int) bool { return counted != nil && countsNothing(lines[k]) && counted[lineShape(lines[k])] }
	pick := map[int]bool{}
	if last := len(lines) - 1; !nothing(last) {
		pick[last] = true
	}
	if checks >= 0 {
		changed = make([]bool, len(lines)) // a checks table is no git status
		pick[checks] = true
	}
	if len(lines) > 1 && strings.HasPrefix(lines[0], "## ") && slices.Contains(changed, true) {
		pick[0] = true // git status -sb: the branch and how far from its upstream
	}
	if !ok {
		// Line 0 is kept anyway (the output's first line, often after a
		// host's few words on where it failed: "failed in sandbox …, exit
		// code 128: …"); the error is looked for past it, a line
		// that names one (pytest's "E " line, "TypeError: …") before one
		// that merely holds an error word (a quoted source line).
		if k := indexPast0(lines, namesError); k > 0 {
			pick[k] = true
			if k+1 < len(lines) && bareErrorHeader(lines[k]) {
				pick[k+1] = true // GHC's message is on the line below its header
			}
		} else if !isErrorLine(lines[0]) {
			if k := indexPast0(lines, isErrorLine); k > 0 {
				pick[k] = true
			}
		}
		if !ruleHeading(lines[0]) || isKeyLine(lines[0]) {
			pick[0] = true
		}
	}
	verdict := false
	picked := map[string]bool{}
	for k := range pick {
		picked[lines[k]] = true
	}
	// More key lines of one shape than the quote has room for (cargo's
	// "test result" line per test binary, twenty in a workspace): the one
	// that counts the most, the run's largest suite, goes first.
	if k := largestOfCrowdedShape(lines, pick); k >= 0 {
		verdict = true
		pick[k], picked[lines[k]] = true, true
	}
	// Git's state above the paths of its status (a merge stopped on its
	// conflicts, a branch ahead of its upstream) before the paths, which
	// may be more than the room.
	for k := 0; k < len(lines) && len(pick) < maxKeyLines; k++ {
		if gitStateLine(lines[k]) && !picked[lines[k]] {
			verdict = true
			pick[k], picked[lines[k]] = true, true
		}
	}
	// A check's count before the paths git names after it (a command
	// that validates, then lists what it changed): the count, and of the
	// paths, which Workspace Files names, the last alone
	// (TestACountBeforeThePathsGitNamesStays).
	hasCount := false
	if slices.Contains(changed, true) {
		for k := len(lines) - 1; k >= 0; k-- {
			if !changed[k] && !nothing(k) && checkCount(lines[k]) {
				hasCount = true
				if !picked[lines[k]] {
					pick[k], picked[lines[k]] = true, true
				}
				break
			}
		}
	}
	for k := len(lines) - 1; k >= 0 && len(pick) < maxKeyLines; k-- {
		if nothing(k) || hasCount && changed[k] {
			continue // cargo's doc tests, none: the run's count is another line
		}
		if changed[k] || isKeyLine(lines[k]) {
			verdict = true
			if picked[lines[k]] {
				continue // said again: once is enough, and room goes to another line
			}
			pick[k], picked[lines[k]] = true, true
		}
	}
	if len(lines) <= 3 && (!ok || !verdict) {
		// A short output without a verdict is shown whole.
		for k := range lines {
			pick[k] = true
		}
	}
	var outLines []string
	shown := map[string]bool{}
	for k, l := range lines {
		if pick[k] && !shown[l] {
			shown[l] = true
			outLines = append(outLines, jsonLine(l, keyLineRunes))
		}
	}
	if len(outLines) > maxKeyLines {
		outLines = outLines[len(outLines)-maxKeyLines:]
	}
	return outLines
}

// jsonLine is l in n runes (firstLine), but a JSON object longer than
// that (gh pr view --json, a script's result) with each long value
// clipped in place, so that a long field (a pull request's body) does not
// take the room of every field after it (TestAJSONLineShowsEveryField).
func jsonLine(l string, n int) string {
	if !strings.HasPrefix(l, "{") || utf8.RuneCountInString(l) <= n {
		return firstLine(l, n)
	}
	type field struct{ key, val string }
	var fields []field
	dec := json.NewDecoder(strings.NewReader(l))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return firstLine(l, n)
	}
	for dec.More() {
		key, err := dec.Token()
		var raw json.RawMessage
		if err != nil || dec.Decode(&raw) != nil {
			return firstLine(l, n)
		}
		k, _ := json.Marshal(key) // a string always marshals
		fields = append(fields, field{string(k), string(raw)})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') || dec.More() || len(fields) < 2 {
		return firstLine(l, n)
	}
	room := n - 1 // the braces and the commas
	for _, f := range fields {
		room -= utf8.RuneCountInString(f.key) + 2
	}
	const least = 12 // a clipped value's runes at least
	if room < least*len(fields) {
		return firstLine(l, n)
	}
	order := make([]int, len(fields))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(fields[a].val) - len(fields[b].val) })
	for left, i := range order {
		share := room / (len(order) - left)
		if v := fields[i].val; utf8.RuneCountInString(v) > share {
			r := []rune(v)[:share-1]
			if v[0] == '"' {
				r = r[:len(r)-1]
			}
			if r[len(r)-1] == '\\' {
				r[len(r)-1] = ' ' // not half an escape
			}
			if r = append(r, '…'); v[0] == '"' {
				r = append(r, '"')
			}
			fields[i].val = string(r)
		}
		room -= utf8.RuneCountInString(fields[i].val)
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f.key + ":" + f.val)
	}
	b.WriteByte('}')
	return b.String()
}

// largestOfCrowdedShape is the index of the verdict with the largest
// first number among the verdicts (a line with a verdict word: "test
// result: ok. 632 passed") of a shape (numbers aside, the same text) that
// outnumber the room maxKeyLines leaves beside pick, when that line is not
// picked yet; -1 when no shape is that crowded.
func largestOfCrowdedShape(lines []string, pick map[int]bool) int {
	room := maxKeyLines - len(pick)
	if len(lines) <= room {
		return -1 // every line fits: no shape is crowded
	}
	return largestOfShapeOver(lines, pick, room)
}

// largestOfShapeOver is the index of the verdict with the largest first
// number among the verdicts not in pick of a shape with more than over
// verdicts; -1 when there is none.
func largestOfShapeOver(lines []string, pick map[int]bool, over int) int {
	count := map[string]int{}
	verdicts := make([]bool, len(lines))
	for k, l := range lines {
		eachWord(withoutPaths(l), func(w string, _ bool) bool {
			verdicts[k] = verdictWords[w]
			return !verdicts[k]
		})
		if verdicts[k] {
			count[lineShape(l)]++
		}
	}
	best, bestN := -1, -1
	for k, l := range lines {
		if pick[k] || !verdicts[k] || count[lineShape(l)] <= over {
			continue
		}
		if n, ok := firstNumber(l); ok && n > bestN {
			best, bestN = k, n
		}
	}
	return best
}

// largestRepeatedVerdict is the index of the verdict whose first number
// is larger than that of every other line of its shape, among the
// verdicts of a shape that holds two or more of them; -1 when there is
// none (a tie: a timestamp that opens each line of a log counts nothing).
func largestRepeatedVerdict(lines []string) int {
	k := largestOfShapeOver(lines, nil, 1)
	if k < 0 {
		return -1
	}
	n, _ := firstNumber(lines[k])
	shape := lineShape(lines[k])
	for j, l := range lines {
		if m, ok := firstNumber(l); j != k && ok && m >= n && lineShape(l) == shape {
			return -1
		}
	}
	return k
}

// countsNothing: every number in l is zero ("running 0 tests", "test
// result: ok. 0 passed; 0 failed; … finished in 0.00s"), and it has one.
func countsNothing(l string) bool {
	digits := false
	for _, r := range l {
		if '1' <= r && r <= '9' {
			return false
		}
		digits = digits || r == '0'
	}
	return digits
}

// countedShapes are the shapes (lineShape) of the lines that count
// something: a count of nothing beside one of them says nothing of the
// run (TestACountOfNothingYieldsToOneOfItsShape).
func countedShapes(lines []string) map[string]bool {
	var shapes map[string]bool
	for _, l := range lines {
		if strings.ContainsAny(l, "0123456789") && !countsNothing(l) {
			if shapes == nil {
				shapes = map[string]bool{}
			}
			shapes[lineShape(l)] = true
		}
	}
	return shapes
}

// lineShape is l with each run of digits one '#'.
func lineShape(l string) string {
	var b strings.Builder
	digit := false
	for _, r := range l {
		if '0' <= r && r <= '9' {
			if !digit {
				b.WriteByte('#')
			}
			digit = true
			continue
		}
		digit = false
		b.WriteRune(r)
	}
	return b.String()
}

// firstNumber is the first run of digits of l (at most 9 of them).
func firstNumber(l string) (int, bool) {
	i := strings.IndexAny(l, "0123456789")
	if i < 0 {
		return 0, false
	}
	n := 0
	for j := i; j < len(l) && j-i < 9 && '0' <= l[j] && l[j] <= '9'; j++ {
		n = n*10 + int(l[j]-'0')
	}
	return n, true
}

// npmBannerLines reads an output's lines for a package manager's banner
// (npmBanner) and the "> command" line that goes with it.
type npmBannerLines struct{ after bool } // the line before was a banner

// next reports whether the trimmed line t is of a banner.
func (b *npmBannerLines) next(t string) bool {
	if npmBanner(t) || b.after && strings.HasPrefix(t, "> ") {
		b.after = npmBanner(t)
		return true
	}
	if t != "" {
		b.after = false
	}
	return false
}

// npmBanner: the line npm, pnpm and yarn open a script's run with, "> "
// and the package's name@version and the script's name ("> app@1.0.0
// build"); the line after it, "> " and the command, goes with it.
func npmBanner(t string) bool {
	rest, ok := strings.CutPrefix(t, "> ")
	if !ok {
		return false
	}
	f := strings.Fields(rest)
	if len(f) != 2 {
		return false
	}
	at := strings.LastIndexByte(f[0], '@')
	if at <= 0 {
		return false
	}
	v := f[0][at+1:]
	return v != "" && v[0] >= '0' && v[0] <= '9' && strings.Count(v, ".") >= 2
}

// indexPast0 is the index of the first line past line 0 that f is true
// for, 0 when there is none.
func indexPast0(lines []string, f func(string) bool) int {
	for k := 1; k < len(lines); k++ {
		if f(lines[k]) {
			return k
		}
	}
	return 0
}

// namesError: a line that names the error: pytest's "E " line, Go's
// "x_test.go:12: …" (where a test said what failed), a compiler's
// "file.go:12:3: …" or "a.ts(3,7): error TS2322: …", or one naming an
// error or exception type with its colon ("AssertionError: …", "error:
// …").
func namesError(l string) bool {
	if strings.HasPrefix(l, "E ") || compilerLine(l) {
		return true
	}
	if i := strings.Index(l, "_test.go:"); i > 0 && !strings.ContainsAny(l[:i], " \t") {
		rest := l[i+len("_test.go:"):]
		if j := strings.IndexByte(rest, ':'); j > 0 && strings.Trim(rest[:j], "0123456789") == "" {
			return true
		}
	}
	if anchors.NamesErrorType(l) {
		return true
	}
	lower := strings.ToLower(l)
	i := strings.Index(lower, "error:")
	return i == 0 || i > 0 && !unicode.IsLetter(rune(lower[i-1]))
}

// userTokens are the identifiers a human instruction names (a bead, an
// issue, a branch, a file): words with a digit beside letters or one of
// - _ . # / inside, 4 to 80 characters, trimmed of punctuation.
func userTokens(text string) []string {
	var out []string
	seen := map[string]bool{}
	for w := range strings.FieldsSeq(text) {
		w = strings.Trim(w, "`'\"()[]{}<>,;:!?.")
		n := utf8.RuneCountInString(w)
		if n < 4 || n > 80 || seen[w] || strings.Contains(w, "://") {
			continue
		}
		hasLetter, hasDigit, hasMark := false, false, false
		for _, r := range w {
			switch {
			case r >= '0' && r <= '9':
				hasDigit = true
			case r == '-' || r == '_' || r == '.' || r == '#' || r == '/':
				hasMark = true
			case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
				hasLetter = true
			}
		}
		if hasLetter && (hasDigit || hasMark) {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// hostCommands are the hosts' own slash commands: they steer the host,
// they are not the work (compaction, model, login …), so they are not a
// goal. Claude Code's are its binary's built-in commands of type local and
// local-jsx, but for those whose arguments are words the model reads
// (/goal, /plan, /btw, /background, /ultraplan, /subtask, /autofix-pr,
// /branch, /import, /teleport, /ultrareview, /recap, /brief); Codex's
// (/approvals, /new, /diff, /mention …) and those both hosts share are
// among them.
var hostCommands = map[string]bool{
	"fast": true, "effort": true, "color": true, "focus": true, "rename": true, "stickers": true,
	"voice": true, "version": true, "restart": true, "reload-plugins": true, "reload-skills": true,
	"skills": true, "usage-credits": true, "extra-usage": true, "autocompact": true, "heapdump": true,
	"scroll-speed": true, "copy": true, "mobile": true, "desktop": true, "install": true,
	"install-github-app": true, "install-slack-app": true, "remote-control": true, "remote-env": true,
	"setup-bedrock": true, "setup-vertex": true, "skill-doctor": true, "passes": true, "powerup": true,
	"session": true, "tui": true, "tasks": true, "pause-memory": true, "rate-limit-options": true,
	"pro-trial-expired": true, "web-setup": true, "wellbeing": true, "radio": true, "project": true,
	"list-agents": true, "advisor": true, "stop": true, "cloud-plugins": true, "design-consent": true,
	"design-revoke": true, "design-login": true, "access": true, "use-case": true, "auto-mode-setup": true,
	"daemon": true, "cd": true, "workflows": true, "artifacts": true,
	"compact": true, "clear": true, "exit": true, "quit": true, "model": true, "cost": true, "help": true,
	"config": true, "status": true, "context": true, "resume": true, "login": true, "logout": true,
	"doctor": true, "memory": true, "permissions": true, "hooks": true, "agents": true, "mcp": true,
	"ide": true, "vim": true, "theme": true, "terminal-setup": true, "export": true, "usage": true,
	"statusline": true, "rewind": true, "add-dir": true, "bashes": true, "privacy-settings": true,
	"upgrade": true, "release-notes": true, "feedback": true, "bug": true, "approvals": true,
	"new": true, "diff": true, "mention": true, "fork": true, "output-style": true, "plugin": true,
}

// isHostCommand: a human instruction that is one of the hosts' own slash
// commands.
func isHostCommand(text string) bool {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return false
	}
	name, _, _ := strings.Cut(t[1:], " ")
	name, _, _ = strings.Cut(name, "\n")
	return hostCommands[strings.ToLower(name)]
}

// Outputs reads, at Build, what the fold only located: the output of a
// tool/result, or the input of a tool/call (a file's last write or edit),
// from the log line of seq, size bytes at byte offset off. The tape quotes
// key lines of the outputs of its last actions, failures and look-ups and
// the definitions of the files it lists; the fold itself never holds an
// output (session.ScanFoldSums), nor a write's content.
type Outputs interface {
	Output(seq, off int64, size int) (string, error)
	Input(seq, off int64, size int) (json.RawMessage, error)
}

// outputOf is the output of a, read through src when the fold did not
// have it; "" (and a note) when it cannot be quoted.
func outputOf(src Outputs, seq, off int64, size int) (string, string, error) {
	if size > MaxOutputLine {
		// Whether the fold had it in hand or not: the same tape.
		return "", fmt.Sprintf("output of %d KiB not quoted: recall seq=%d", size>>10, seq), nil
	}
	if off < 0 || src == nil {
		return "", "", nil
	}
	out, err := src.Output(seq, off, size)
	if err != nil {
		return "", "", fmt.Errorf("tape: reading the output of seq %d: %w", seq, err)
	}
	return out, "", nil
}

// trackerPrefix names the tools of Gemini CLI's task tracker
// (tracker_create_task, tracker_update_task …).
const trackerPrefix = "tracker_"

// isTodoTool: the todo tools, whose results are not actions.
func isTodoTool(name string) bool {
	switch name {
	case "TodoWrite", "todo_write", "update_plan", "TodoRead", "todo_read", "TaskCreate", "TaskUpdate", "TaskList", "TaskGet",
		"create_goal", "get_goal", "update_goal", "propose_goal", "write_todos":
		return true
	}
	if len(name) > len(trackerPrefix) && strings.HasPrefix(name, trackerPrefix) {
		return true // Gemini CLI's task tracker: the importer makes its list a todo/write
	}
	if len(name) < 7 || len(name) > 12 {
		return false // no todo tool's name has another length
	}
	todo, _ := lowerIn(todoTools, name)
	return todo
}

var _ = session.TypeToolResult

// quotesOutput: the tools whose outputs say how things went (shell
// commands, and any tool that is neither a file tool nor a search): their
// key lines are quoted. A file read, an edit's acknowledgement, a search
// listing say nothing the call does not.
func quotesOutput(name string) bool {
	if isShellTool(name) {
		return true // the commands, by far the most calls
	}
	switch name {
	case "Grep", "Glob", "LS", "WebSearch", "WebFetch", "NotebookRead", "TodoWrite", "TodoRead", "update_plan":
		return false
	}
	if _, file := toolOp(name); file {
		return false
	}
	if isPlanExit(name) {
		return false // the plan approved: Task Status shows it
	}
	quiet, _ := lowerIn(quietTools, name)
	return !quiet
}

// quietTools are the searches and listings quotesOutput leaves unquoted,
// lower-cased.
var quietTools = map[string]bool{"grep": true, "glob": true, "ls": true, "list_dir": true, "find": true, "search": true,
	"websearch": true, "web_search": true, "webfetch": true, "notebookread": true, "todowrite": true, "todoread": true, "update_plan": true,
	// The host loading the schemas of its deferred tools (Claude Code's
	// ToolSearch "select:…", answered by a tool_reference block; Codex's
	// tool_search): no outcome of the work.
	"toolsearch": true, "tool_search": true}

// readsToolList: a Codex code-mode script (exec) that reads the model's
// tool list (ALL_TOOLS.filter(…), ALL_TOOLS.find(…)) and calls no tool
// (await, tools.…): the model looking up its tools, as tool_search is, no
// outcome of the work.
func readsToolList(name string, input json.RawMessage) bool {
	if name != "exec" || !bytes.Contains(input, []byte("ALL_TOOLS")) {
		return false
	}
	vals, ok := session.StringFields(input, "input")
	if !ok {
		return false
	}
	return strings.Contains(vals[0], "ALL_TOOLS") && !strings.Contains(vals[0], "await") && !strings.Contains(vals[0], "tools.")
}

// readCommands only read or list: a shell command made of them alone (cat,
// sed -n, nl, rg, ls …, as Codex reads files) is a read, its output the
// file, not an outcome.
var readCommands = map[string]bool{
	"cat": true, "head": true, "tail": true, "nl": true, "less": true, "more": true, "rg": true, "grep": true,
	"ag": true, "find": true, "fd": true, "ls": true, "tree": true, "wc": true, "file": true, "stat": true,
	"pwd": true, "echo": true, "which": true, "type": true, "sort": true, "uniq": true, "cut": true,
	"sed": true, "awk": true, "jq": true, "printf": true, "du": true, "realpath": true, "basename": true, "dirname": true,
}

// readsOnly: every command of the chain is a readCommand (sed only with
// -n, which prints and does not edit) or asks for its help (asksHelp).
func readsOnly(what string) bool {
	return eachReads(what, func(w1, w2, rest string) bool { return readCommands[w1] || asksHelp(w2, rest) })
}

// asksHelp: a command's words past its first ask for its help: "--help"
// among them ("bd close --help", "claude --help"), or "help" as its
// subcommand ("go help build"). It prints how to use it and changes
// nothing (TestAHelpRequestOnlyReads). Not "-h", which is many
// commands' flag for something else ("df -h"), nor a "--help" past a
// quoted argument (git commit -m "fix the --help text").
//
// eachCommandRest gives a second word that is a flag in rest, so "--help"
// is looked for there.
func asksHelp(w2, rest string) bool {
	if w2 == "help" {
		return true
	}
	for {
		var w string
		if w, rest = nextWord(rest); w == "" {
			return false
		}
		if w == "--help" {
			return true
		}
		if w[0] == '"' || w[0] == '\'' {
			return false // a quoted argument is data: a message, a pattern
		}
	}
}

// eachReads: what is a chain of commands each of which reads (sed only
// with -n), by reads of its first two words and the rest.
func eachReads(what string, reads func(w1, w2, rest string) bool) bool {
	if what == "" {
		return false
	}
	all, any := true, false
	eachCommandRest(what, func(w1, w2, rest string) bool {
		if !reads(w1, w2, rest) || w1 == "sed" && !strings.Contains(what, "sed -n") {
			all = false
			return false
		}
		any = true
		return true
	})
	return all && any
}

// viewVerbs are the subcommands by which command-line tools show a record
// without changing it ("git show", "bd list", "gh issue view", "jira
// issue view", "kubectl describe"): with the readCommands, what a look-up
// runs.
var viewVerbs = map[string]bool{
	"show": true, "view": true, "list": true, "ls": true, "get": true, "describe": true, "status": true,
	"log": true, "diff": true, "blame": true, "grep": true, "ls-files": true, "cat": true, "read": true,
	"search": true, "info": true, "inspect": true, "ready": true,
}

// views: a command whose subcommand, or its noun's verb ("gh issue
// view"), shows without changing.
func views(w2, rest string) bool {
	if viewVerbs[w2] {
		return true
	}
	w3, _ := nextWord(rest)
	return w2 != "" && viewVerbs[w3]
}

// readCmdlets are PowerShell's readers (Codex on Windows runs its
// commands in PowerShell).
var readCmdlets = map[string]bool{"get-content": true, "gc": true, "select-string": true, "get-childitem": true}

// looksUp: a call whose output is a look-up of what it names. A shell
// command does when it is made of readers and viewers alone (cat, sed -n,
// rg, git log, bd show, gh issue view, Get-Content): one that does something to what the
// user named (copies it, runs it, runs its tests or a build through any
// wrapper) is an action, whatever it prints. Another tool (an MCP
// server's search, a tracker's) does unless it is a milestone.
func looksUp(name, what string) bool {
	if !isShellTool(name) {
		return milestoneKind(what) == ""
	}
	return eachReads(what, func(w1, w2, rest string) bool {
		return readCommands[w1] || views(w2, rest) || readCmdlets[strings.ToLower(w1)]
	})
}

// sameRunWords: a later call that runs what a failed one ran, given
// lw = commandList(later). For commands, every program and subcommand of
// the failed one (each command of a chain split at &&, ||, ; and |, by its
// first two words) is run by the later one: "git push" is fixed by "git
// push --set-upstream origin b", "git commit -m …" by "git add x && git
// commit -m …". Otherwise the same text.
func sameRunWords(failed, later string, lw []string) bool {
	return readFailedRun(failed).fixedBy(failed, later, lw)
}

// failedRun is what sameRunWords reads of a failed call's text, read
// once: a pending failure is set against every later successful call of
// its tool (addResult), and reading its text again for each cost the
// fold more than anything else it did per result.
type failedRun struct {
	words [][2]string // eachCommand's first two words of each command
	// The script failed ran, if it ran one (sameScriptRun): its file name
	// ("" for none) and its first argumentRunes of arguments.
	script, args string
}

func readFailedRun(failed string) *failedRun {
	r := &failedRun{}
	eachCommand(failed, func(w1, w2 string) bool {
		r.words = append(r.words, [2]string{w1, w2})
		return true
	})
	r.script, r.args, _ = scriptRunOf(failed)
	return r
}

// fixedBy is sameRunWords(failed, later, lw) for r, failed's failedRun.
func (r *failedRun) fixedBy(failed, later string, lw []string) bool {
	if failed == later {
		return true
	}
	if len(lw) == 0 {
		return false
	}
	all := len(r.words) > 0
	for _, w := range r.words {
		if !slices.ContainsFunc(lw, func(l string) bool { return sameWords(l, w[0], w[1]) }) {
			all = false
			break
		}
	}
	return all || r.script != "" && runsScript(r.script, r.args, later)
}

// chainCommands are the commands of a failed chain (commandList) that a
// later call may run part by part, nil for a failure of one command.
func chainCommands(failed string) []string {
	if l := commandList(failed); len(l) > 1 {
		return l
	}
	return nil
}

// chainLeft: of left, the failed chain's commands no earlier successful
// call ran, those lw does not run. A chain that later calls ran part by
// part ("git add x && git commit" failed on an ignored file; then "git add
// -f x", then "git commit") is fixed once none is left.
func chainLeft(left, lw []string) []string {
	if !slices.ContainsFunc(left, func(c string) bool { return slices.Contains(lw, c) }) {
		return left // nothing of it ran: no copy
	}
	return slices.DeleteFunc(slices.Clone(left), func(c string) bool { return slices.Contains(lw, c) })
}

// sameScriptRun: failed ran one script (a path, or an interpreter and a
// path: "bash x.sh …", "python3 tools/y.py …") and later runs the same
// script another way, with the same arguments: through a copy cleaned of
// carriage returns, an interpreter, a different working directory ("tr -d
// '\r' < x.sh > $tmp; bash $tmp --json"): the script's file name and the
// failed call's first argumentRunes of arguments are in later's text;
// with no arguments, a command of later runs a script of that file name
// ("node assets/build.js" is fixed by "cd assets && node build.js").
func sameScriptRun(failed, later string) bool {
	name, args, ok := scriptRunOf(failed)
	return ok && runsScript(name, args, later)
}

// scriptRunOf is the script failed ran, if it ran one (sameScriptRun):
// its file name and its first argumentRunes of arguments.
func scriptRunOf(failed string) (name, args string, ok bool) {
	failed = strings.TrimSuffix(strings.TrimSpace(failed), "…")
	for _, r := range []string{" 2>&1", " 2>/dev/null", " >/dev/null"} {
		failed = strings.ReplaceAll(failed, r, "")
	}
	if strings.ContainsAny(failed, "&|;") {
		return "", "", false
	}
	w1, rest := nextWord(failed)
	interp := false
	switch w1 {
	case "bash", "sh", "zsh", "python", "python3", "node", "ruby", "perl":
		w1, rest = nextWord(rest)
		interp = true
	}
	if !interp && !strings.Contains(w1, "/") || strings.ContainsAny(w1, "\"'$<>") {
		return "", "", false // a program on the PATH, not a script of the project
	}
	name = w1[strings.LastIndexByte(w1, '/')+1:]
	if !strings.Contains(name, ".") {
		return "", "", false // a program's path (/usr/bin/x), not a script of the project
	}
	args, _ = prefixRunes(strings.TrimSpace(rest), argumentRunes)
	return name, args, true
}

// runsScript: later runs the script of file name name with arguments args
// (sameScriptRun).
func runsScript(name, args, later string) bool {
	if args != "" {
		return strings.Contains(later, name) && strings.Contains(later, args)
	}
	// No arguments: a later command runs a script of that file name.
	runs := false
	eachCommand(later, func(w1, w2 string) bool {
		runs = path.Base(w1) == name || path.Base(w2) == name
		return !runs
	})
	return runs
}

// argumentRunes is how much of a failed script run's arguments a later run
// must repeat to be the same run.
const argumentRunes = 40

// sameWords: l is joinWords(w1, w2), compared without building it.
func sameWords(l, w1, w2 string) bool {
	if w2 == "" {
		return l == w1
	}
	return len(l) == len(w1)+1+len(w2) && l[:len(w1)] == w1 && l[len(w1)] == ' ' && l[len(w1)+1:] == w2
}

// commandList is the first two words of each command of the chain cmd
// (eachCommand), in order, repeats kept.
func commandList(cmd string) []string {
	var out []string
	eachCommand(cmd, func(w1, w2 string) bool { out = append(out, joinWords(w1, w2)); return true })
	return out
}

func joinWords(w1, w2 string) string {
	if w2 == "" {
		return w1
	}
	return w1 + " " + w2
}

// eachCommand calls fn with the first two words of each command of the
// chain cmd (split at && || ; |; leading NAME=value assignments and "cd
// dir" commands left out; w2 is "" when the second word is a flag, a quote
// or absent), until fn says stop; it builds nothing.
func eachCommand(cmd string, fn func(w1, w2 string) bool) {
	eachCommandRest(cmd, func(w1, w2, _ string) bool { return fn(w1, w2) })
}

// eachCommandRest is eachCommand with what follows the two words in the
// command (its arguments past them).
func eachCommandRest(cmd string, fn func(w1, w2, rest string) bool) {
	cmd = strings.TrimSuffix(strings.TrimSpace(cmd), " …")
	for cmd != "" {
		part := cmd
		if i := separatorAt(cmd); i >= 0 {
			part, cmd = cmd[:i], strings.TrimLeft(cmd[i:], "&|;")
		} else {
			cmd = ""
		}
		rest := part
		var w1, w2 string
		for {
			w1, rest = nextWord(rest)
			if w1 == "" || !strings.Contains(w1, "=") || strings.HasPrefix(w1, "-") {
				break // leading NAME=value assignments are not the command
			}
		}
		if w1 == "" || w1 == "cd" || strings.HasPrefix(w1, "2>") {
			continue
		}
		w2, after := nextWord(rest)
		if strings.HasPrefix(w2, "-") || strings.ContainsAny(w2, "\"'$<>") {
			w2, after = "", rest
		}
		if !fn(w1, w2, after) {
			return
		}
	}
}

// separatorAt is the index of the first &, | or ; that ends a command,
// -1 if none: one inside quotes ('a|b', "x;y"), escaped (find's \;) or
// the & of a redirection (2>&1, >&2) does not.
func separatorAt(cmd string) int {
	at := -1
	shellScan(cmd, 0, func(i int) bool {
		switch c := cmd[i]; {
		case c == '&' && i > 0 && cmd[i-1] == '>':
		case c == '&' || c == '|' || c == ';':
			at = i
			return false
		}
		return true
	})
	return at
}

// shellScan calls fn with the index of each byte of s that is shell
// syntax: outside quotes, and not escaped by a backslash outside single
// quotes. quote is the quote open where s starts (0: none); shellScan
// stops when fn says false and returns the quote open where it stopped.
func shellScan(s string, quote byte, fn func(i int) bool) byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote == '"' && c == '\\':
			i++ // an escaped character inside double quotes
		case quote != 0:
		case c == '\\':
			i++
		case c == '\'' || c == '"':
			quote = c
		default:
			if !fn(i) {
				return quote
			}
		}
	}
	return quote
}

// nextWord is the first space-separated word of s and what follows it.
func nextWord(s string) (string, string) {
	s = strings.TrimLeft(s, " \t\r\n")
	i := strings.IndexAny(s, " \t\r\n")
	if i < 0 {
		return s, ""
	}
	return s[:i], s[i:]
}

// appendRing appends e to a ring of the last n: past 2n entries the ring
// is cut to its last n in one copy, so a fold of 200,000 events moves a
// ring once per n appends, not once per append. The ring's own last n
// are the same whenever it is cut (ringLast).
func appendRing[T any](x []T, e T, n int) []T {
	x = append(x, e)
	if len(x) > 2*n {
		x = keepLast(x, n)
	}
	return x
}

// ringLast is the last n of a ring appendRing keeps.
func ringLast[T any](x []T, n int) []T {
	if len(x) > n {
		return x[len(x)-n:]
	}
	return x
}

// keepLast is the last n of x, moved down in place (a ring the fold
// appends to once per event must not allocate once per event).
func keepLast[T any](x []T, n int) []T {
	if len(x) <= n {
		return x
	}
	k := len(x) - n
	copy(x, x[k:])
	clear(x[n:])
	return x[:n]
}

// Milestone commands are the checkpoints of the work: version control,
// pull requests and trackers ("vcs"); tests, builds, linters and type
// checkers ("check"). A command is read by the first two words of each
// command of its chain (eachCommand), so no pattern runs over it.
var (
	vcsPairs = map[[2]string]bool{
		{"git", "commit"}: true, {"git", "push"}: true, {"git", "merge"}: true, {"git", "rebase"}: true, {"git", "tag"}: true,
		{"git", "cherry-pick"}: true, {"git", "revert"}: true, {"git", "stash"}: true, {"git", "rm"}: true, {"git", "reset"}: true,
		{"gh", "pr"}: true, {"gh", "issue"}: true, {"gh", "release"}: true, {"glab", "mr"}: true, {"glab", "issue"}: true,
		{"bd", "close"}: true, {"bd", "create"}: true, {"bd", "update"}: true, {"bd", "sync"}: true,
	}
	vcsFlags   = []string{"--no-verify", "--force", "git add -f", "git checkout -b", "git switch -c", "git reset --hard"}
	checkFirst = map[string]bool{
		"pytest": true, "jest": true, "vitest": true, "rspec": true, "phpunit": true, "ctest": true, "tsc": true,
		"mypy": true, "ruff": true, "eslint": true, "golangci-lint": true, "make": true, "gradle": true,
		"./gradlew": true, "mvn": true, "credo": true, "dialyzer": true, "tox": true, "nox": true, "bazel": true,
	}
	checkPairs = map[[2]string]bool{
		{"go", "test"}: true, {"go", "vet"}: true, {"go", "build"}: true, {"cargo", "test"}: true, {"cargo", "build"}: true,
		{"cargo", "check"}: true, {"cargo", "clippy"}: true, {"mix", "test"}: true, {"mix", "compile"}: true, {"mix", "credo"}: true,
		{"mix", "dialyzer"}: true, {"npm", "test"}: true, {"npm", "run"}: true, {"pnpm", "test"}: true, {"pnpm", "run"}: true,
		{"yarn", "test"}: true, {"yarn", "build"}: true, {"yarn", "lint"}: true, {"dotnet", "test"}: true, {"dotnet", "build"}: true,
		{"bun", "test"}: true, {"deno", "test"}: true, {"swift", "test"}: true, {"swift", "build"}: true, {"python", "-m"}: true,
		{"npx", "vitest"}: true, {"npx", "jest"}: true, {"npx", "tsc"}: true, {"uv", "run"}: true, {"poetry", "run"}: true,
	}
)

// milestoneKind is "vcs", "check" or "" for a command.
func milestoneKind(what string) string {
	if what == "" {
		return ""
	}
	for _, f := range vcsFlags {
		if strings.Contains(what, f) {
			return "vcs"
		}
	}
	kind := ""
	eachCommandRest(what, func(w1, w2, rest string) bool {
		if vcsPairs[[2]string{w1, w2}] && !views(w2, rest) { // "gh issue view" changes nothing
			kind = "vcs"
			return false
		}
		if kind == "" && (checkPairs[[2]string{w1, w2}] || checkFirst[w1] || strings.Contains(w1, "test")) {
			kind = "check"
		}
		return true
	})
	return kind
}

// editChange is the first lines of what an edit or a write puts in, for a
// file whose edits define no name: at most two non-blank lines.
func editChange(name string, input json.RawMessage) string {
	text := ""
	for _, t := range editTexts(name, input) {
		if strings.TrimSpace(t) != "" {
			text = t
			break
		}
	}
	if len(text) > symbolScan {
		text = text[:symbolScan]
	}
	// Of an edit, the lines its new text has that its old text had not
	// (the context it repeats is no change).
	old := map[string]bool{}
	for _, o := range editOldTexts(name, input) {
		for l := range strings.SplitSeq(o, "\n") {
			old[strings.TrimSpace(l)] = true
		}
	}
	var lines []string
	n := 0
	var skip boilerplate
	for l := range addedLines(text, isPatch(text)) { // of a patch, the lines it adds
		if t := strings.TrimSpace(l); t != "" && !old[t] && !skip.line(t) {
			lines = append(lines, t)
			if n += utf8.RuneCountInString(t) + 3; n > changeLongRunes {
				break
			}
		}
	}
	return firstLine(strings.Join(lines, " ⏎ "), changeLongRunes)
}

// boilerplate tells the lines of a change that say nothing of the work:
// imports (a multi-line one to its end), a shebang, a package clause, a
// line of brackets alone. They open most new files; the lines after
// them are the change.
type boilerplate struct{ open byte } // the bracket an import block ends with

func (b *boilerplate) line(t string) bool {
	if b.open != 0 {
		if strings.IndexByte(t, b.open) >= 0 {
			b.open = 0
		}
		return true
	}
	if strings.Trim(t, "{}()[];,") == "" || strings.HasPrefix(t, "#!") {
		return true
	}
	if strings.HasPrefix(t, "using ") && !strings.HasSuffix(t, ";") {
		return false // C#'s using statement opens a block of code
	}
	for _, p := range importOpeners {
		if strings.HasPrefix(t, p) {
			switch {
			case strings.HasSuffix(t, "{"):
				b.open = '}'
			case strings.HasSuffix(t, "("):
				b.open = ')'
			}
			return true
		}
	}
	return strings.Contains(t, "= require(") && strings.Count(t, "=") == 1
}

// importOpeners open a line that imports (Go, JavaScript, TypeScript,
// Python, Rust, PHP, C, C#, Java, Kotlin, Swift, Ruby, CSS).
var importOpeners = []string{"import ", "from ", "use ", "#include ", "using ", "package ", "extern crate ", "require ", "require_once ", "@import "}

// A file's entry shows the first two lines its last change adds
// (changeRunes); the newest keptLongChanges written files, the work in
// hand, show its added lines up to changeLongRunes in a section of their
// own where room is left (filesBlock).
const (
	changeRunes     = 160
	changeLongRunes = 600
	keptLongChanges = 3
)

// shortChange is a change cut to its first two lines and changeRunes;
// when both are comments and code follows (a "# Keep this pinned …" over
// the line it pins), the first comment and the first line of code: what
// the change does, and why. A Markdown document's "#" lines are its
// headings, no comments.
func shortChange(change string, markdown bool) string {
	parts := strings.Split(change, " ⏎ ")
	if len(parts) > 2 {
		if !markdown && commentLine(parts[0]) && commentLine(parts[1]) {
			for _, p := range parts[2:] {
				if !commentLine(p) {
					parts[1] = p
					break
				}
			}
		}
		parts = parts[:2]
	}
	return firstLine(strings.Join(parts, " ⏎ "), changeRunes)
}

// commentLine: a line of code that is only a comment (#, //, /*, *, --,
// ;), trimmed.
func commentLine(l string) bool {
	for _, p := range []string{"#", "//", "/*", "* ", "--", ";"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return l == "*" || l == "*/"
}

// addMilestone appends m and keeps the last keptVCS version-control and
// tracker commands and the last keptChecks test and build runs, in seq
// order: past its kind's count, the oldest of that kind goes.
func addMilestone(ms []action, m action) []action {
	ms = append(ms, m)
	limit := keptChecks
	if m.Kind == "vcs" {
		limit = keptVCS
	}
	n, oldest := 0, -1
	for k, x := range ms {
		if (x.Kind == "vcs") == (m.Kind == "vcs") {
			if oldest < 0 {
				oldest = k
			}
			n++
		}
	}
	if n > limit {
		copy(ms[oldest:], ms[oldest+1:])
		ms[len(ms)-1] = action{}
		ms = ms[:len(ms)-1]
	}
	return ms
}

// editTexts are the new texts of a write or an edit: new_string,
// content, patch, input, then each of MultiEdit's edits; read with the
// fast reader, which skips what it does not want (the file a Write
// carries is validated, not built, past symbolScan… it is built: only
// what is read here).
func editTexts(name string, input json.RawMessage) []string {
	if len(input) == 0 || len(input) > maxEditInput {
		return nil // a large write's definitions are not worth building it
	}
	if isShellTool(name) {
		return shellTexts(input)
	}
	if !strings.EqualFold(name, "multiedit") {
		if vals, ok := session.StringFields(input, "new_string", "content", "patch", "input"); ok {
			return vals
		}
	}
	var in struct {
		NewString string `json:"new_string"`
		Content   string `json:"content"`
		Edits     []struct {
			NewString string `json:"new_string"`
		} `json:"edits"`
		Patch string `json:"patch"`
		Input string `json:"input"`
	}
	if json.Unmarshal(input, &in) != nil {
		var s string
		if strings.EqualFold(name, "apply_patch") && json.Unmarshal(input, &s) == nil {
			return []string{s}
		}
		return nil
	}
	texts := []string{in.NewString, in.Content, in.Patch, in.Input}
	for _, e := range in.Edits {
		texts = append(texts, e.NewString)
	}
	return texts
}

// defineWords open the lines definition and assignment can match: a line
// without one is not given to the patterns.
var defineWords = []string{"def", "func", "fn ", "class", "type ", "interface", "struct", "enum", "trait", "module", "const", "let ", "var ", "val ", "object", "impl", " = "}

// namesTest: the line opens as testDefinition's do (@test, test, it,
// describe), so that prose with "it" in it is given to no pattern.
func namesTest(line string) bool {
	t := strings.TrimLeft(strings.TrimLeft(strings.TrimLeft(line, " \t"), "+"), " \t")
	for _, w := range []string{"@test", "test", "it", "describe"} {
		if rest, ok := strings.CutPrefix(t, w); ok && rest != "" && strings.ContainsRune(" (\t", rune(rest[0])) {
			return true
		}
	}
	return false
}

func mayDefine(line string) bool {
	for _, w := range defineWords {
		if strings.Contains(line, w) {
			return true
		}
	}
	return false
}

// touchesWhat is what a file tool's call names: its paths, relative.
func touchesWhat(ts []fileTouch, cwd string) string {
	switch len(ts) {
	case 0:
		return ""
	case 1:
		return relPath(ts[0].Path, cwd)
	}
	var ps []string
	for _, t := range ts {
		ps = append(ps, relPath(t.Path, cwd))
	}
	return clipLine("patch "+strings.Join(ps, ", "), whatRunes)
}

// editAdds are the identifiers an edit puts in that its old text did not
// have (snake_case, camelCase or dotted names of 6 runes or more: the
// functions, fields and modules the change introduced), at most maxAdds,
// in the order they appear, then the messages it adds (eachMessage), at
// most maxAddedMessages, quoted; none for a write, whose definitions say
// it.
func editAdds(name string, input json.RawMessage) []string {
	if len(input) == 0 || len(input) > maxEditInput {
		return nil
	}
	if markdownOnly(name, input) {
		return headingAdds(name, input)
	}
	olds, news := editPairs(name, input)
	old := map[string]bool{}
	for _, t := range olds {
		eachIdent(t, func(w string) { old[w] = true })
	}
	var out []string
	seen := map[string]bool{}
	for _, t := range news {
		eachIdent(t, func(w string) {
			if len(out) < maxAdds && !old[w] && !seen[w] {
				seen[w] = true
				out = append(out, w)
			}
		})
	}
	// Then the messages it adds: what the changed code says to a person
	// (an error, a log line, a test's name) is how the change is known.
	oldMsgs := map[string]bool{}
	for _, t := range olds {
		eachMessage(t, func(m string) { oldMsgs[m] = true })
	}
	n := 0
	for _, t := range news {
		eachMessage(t, func(m string) {
			if n < maxAddedMessages && !oldMsgs[m] && !seen[m] {
				seen[m] = true
				n++
				out = append(out, `"`+m+`"`)
			}
		})
	}
	return out
}

// Bounds of the messages an edit adds (editAdds, eachMessage).
const (
	maxAddedMessages = 2
	minAddedRunes    = 12
	maxAddedRunes    = 100
)

// eachMessage calls fn with each double-quoted string on a line of s (its
// first symbolScan bytes) that reads as a message: minAddedRunes to
// maxAddedRunes runes with a space, and no escape in it.
func eachMessage(s string, fn func(string)) {
	if len(s) > symbolScan {
		s = s[:symbolScan]
	}
	for line := range strings.SplitSeq(s, "\n") {
		for {
			i := strings.IndexByte(line, '"')
			if i < 0 {
				break
			}
			j := strings.IndexByte(line[i+1:], '"')
			if j < 0 {
				break
			}
			m := line[i+1 : i+1+j]
			line = line[i+2+j:]
			if n := utf8.RuneCountInString(m); n >= minAddedRunes && n <= maxAddedRunes && strings.ContainsRune(m, ' ') && !strings.ContainsRune(m, '\\') {
				fn(m)
			}
		}
	}
}

const maxAdds = 6

// markdownOnly: every file the call writes is a Markdown document.
func markdownOnly(name string, input json.RawMessage) bool {
	touches, ok := fileTouches(name, input)
	if !ok || len(touches) == 0 {
		return false
	}
	for _, t := range touches {
		if !isMarkdown(t.Path) {
			return false
		}
	}
	return true
}

// isMarkdown: the file at p is a Markdown document.
func isMarkdown(p string) bool {
	switch strings.ToLower(path.Ext(p)) {
	case ".md", ".markdown", ".mdx":
		return true
	}
	return false
}

// headingAdds are a Markdown document's names: the headings a write or an
// edit puts in that its old text did not have ("User Story 2 - Dedicated
// Codex Queue (Priority: P2)"), of a patch its added lines, each clipped
// to headingRunes, at most maxAdds, in order.
func headingAdds(name string, input json.RawMessage) []string {
	old := map[string]bool{}
	if vals, ok := session.StringFields(input, "old_string"); ok {
		eachHeading(vals[0], false, func(h string) { old[h] = true })
	}
	var out []string
	for _, text := range editTexts(name, input) {
		eachHeading(text, isPatch(text), func(h string) {
			if len(out) < maxAdds && !old[h] {
				old[h] = true
				out = append(out, firstLine(h, headingRunes))
			}
		})
	}
	return out
}

// isPatch: text is an apply_patch patch ("*** Begin Patch").
func isPatch(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "*** Begin Patch")
}

// editPairs are the old and new texts of an edit (Edit's old_string and
// new_string, MultiEdit's edits, an apply_patch patch's removed and
// added lines of the files it updates: patchPairs); none for other
// tools.
func editPairs(name string, input json.RawMessage) (olds, news []string) {
	var in struct {
		OldString string `json:"old_string"`
		NewString string `json:"new_string"`
		Edits     []struct {
			OldString string `json:"old_string"`
			NewString string `json:"new_string"`
		} `json:"edits"`
	}
	if vals, ok := session.StringFields(input, "old_string", "new_string"); ok && !strings.EqualFold(name, "multiedit") && vals[0]+vals[1] != "" {
		return []string{vals[0]}, []string{vals[1]}
	}
	if p := patchOf(name, input); p != "" {
		return patchPairs(p)
	}
	if json.Unmarshal(input, &in) == nil {
		olds, news = []string{in.OldString}, []string{in.NewString}
		for _, e := range in.Edits {
			olds, news = append(olds, e.OldString), append(news, e.NewString)
		}
	}
	return olds, news
}

// editOldTexts are the old texts an edit replaces (editPairs).
func editOldTexts(name string, input json.RawMessage) []string {
	if len(input) == 0 || len(input) > maxEditInput || isShellTool(name) {
		return nil
	}
	olds, _ := editPairs(name, input)
	return olds
}

// addedLines yields the lines text puts in: each of its lines, or, of a
// patch, the lines it adds without their "+".
func addedLines(text string, patch bool) iter.Seq[string] {
	return func(yield func(string) bool) {
		for l := range strings.SplitSeq(text, "\n") {
			if patch {
				if !strings.HasPrefix(l, "+") || strings.HasPrefix(l, "+++") {
					continue
				}
				l = l[1:]
			}
			if !yield(l) {
				return
			}
		}
	}
}

// eachHeading calls fn with the text of each ATX heading of a Markdown
// text ("## Phase 1: Setup" → "Phase 1: Setup"); of a patch, of the lines
// it adds.
func eachHeading(text string, patch bool, fn func(string)) {
	if len(text) > symbolScan*4 {
		text = text[:symbolScan*4]
	}
	for l := range addedLines(text, patch) {
		t := strings.TrimSpace(l)
		h := strings.TrimLeft(t, "#")
		if n := len(t) - len(h); n == 0 || n > 6 || !strings.HasPrefix(h, " ") {
			continue
		}
		if h = strings.TrimSpace(strings.TrimRight(strings.TrimSpace(h), "#")); h != "" {
			fn(h)
		}
	}
}

const headingRunes = 60

// eachIdent calls fn with each identifier of s that names something of
// the code: letters, digits, _ and inner dots, 6 runes or more, with an
// _ , a dot or a capital past its first rune.
func eachIdent(s string, fn func(string)) {
	if len(s) > symbolScan {
		s = s[:symbolScan]
	}
	isID := func(c byte) bool {
		return c == '_' || c == '.' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
	}
	for i := 0; i < len(s); {
		if !isID(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isID(s[j]) {
			j++
		}
		w := strings.Trim(s[i:j], ".")
		i = j
		if len(w) < 6 || w[0] >= '0' && w[0] <= '9' {
			continue
		}
		marked := false
		for k := 1; k < len(w); k++ {
			if c := w[k]; c == '_' || c == '.' || 'A' <= c && c <= 'Z' {
				marked = true
				break
			}
		}
		if marked {
			fn(w)
		}
	}
}

// labelledLines are the lines of what an edit or a write puts in that
// state a value under a label: "**Scale/Scope**: up to 5 runs", "-
// Decision: one queue", "Status: PASS": at most maxLabelled, each clipped.
func labelledLines(name string, input json.RawMessage) []string {
	var out []string
	for _, text := range editTexts(name, input) {
		fenced := false
		for l := range addedLines(text, isPatch(text)) {
			t := strings.TrimSpace(l)
			if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
				fenced = !fenced
				continue
			}
			if fenced {
				continue // code, not the document's prose
			}
			for _, m := range []string{"- ", "* ", "+ "} {
				t = strings.TrimPrefix(t, m)
			}
			if strings.HasPrefix(t, "**") {
				// "**Label**: value" and "**Label:** value" read "Label: value".
				if label, rest, ok := strings.Cut(t[2:], "**"); ok {
					t = label + rest
				}
			}
			if !isLabelled(t) {
				continue
			}
			out = append(out, firstLine(t, labelledRunes))
			if len(out) == maxLabelled {
				return out
			}
		}
	}
	return out
}

const (
	maxLabelled   = 6
	labelledRunes = 140
)

// isLabelled: a line "Label: value" or "**Label**: value", the label one
// to four words starting with a capital letter, the value present.
func isLabelled(t string) bool {
	i := strings.Index(t, ":")
	if i <= 0 || i > 40 || i+2 >= len(t) {
		return false
	}
	label := strings.TrimSpace(t[:i])
	if r, _ := utf8.DecodeRuneInString(label); label == "" || !unicode.IsUpper(r) || len(strings.Fields(label)) > 4 || strings.ContainsAny(label, "`[]()") {
		return false
	}
	rest := strings.TrimSpace(t[i+1:])
	return len(rest) >= 8 && !strings.HasPrefix(rest, "//")
}

// patchOf is the patch an apply_patch call carries ("" for none).
func patchOf(name string, input json.RawMessage) string {
	if !strings.EqualFold(name, "apply_patch") {
		return "" // a Write's content is not read again to find none
	}
	for _, t := range editTexts(name, input) {
		if isPatch(t) {
			return t
		}
	}
	return ""
}

// patchPairs are a patch's removed lines (olds) and added lines (news)
// in the sections that update a file ("*** Update File:"); a file the
// patch adds is written, not edited, and names nothing as added.
func patchPairs(patch string) (olds, news []string) {
	var o, n strings.Builder
	update := false
	for line := range strings.SplitSeq(patch, "\n") {
		if op, _, move, ok := patchHeader(line); ok {
			if !move {
				update = op == OpEdit
			}
			continue
		}
		if !update || strings.HasPrefix(line, "***") {
			continue
		}
		switch {
		case strings.HasPrefix(line, "-"):
			o.WriteString(line[1:])
			o.WriteByte('\n')
		case strings.HasPrefix(line, "+"):
			n.WriteString(line[1:])
			n.WriteByte('\n')
		}
	}
	return []string{o.String()}, []string{n.String()}
}

// failedCheckLine: a line by which a compiler, a linter or a test runner
// says the run failed: Go's "file.go:12:3: …" and FAIL lines, an
// "error:" or "error[E0425]:" line (cargo, rustc and most compilers),
// pytest's "FAILED path::test" and a summary that counts a failure or an
// error ("=== 1 failed, 44 passed ==="), TypeScript's "error TS2322:",
// npm's "npm ERR!", cargo's "test result: FAILED".
func failedCheckLine(l string) bool {
	switch {
	case l == "FAIL", strings.HasPrefix(l, "FAIL\t"), strings.HasPrefix(l, "FAIL "), strings.HasPrefix(l, "--- FAIL: "),
		strings.HasPrefix(l, "npm ERR! "), strings.HasPrefix(l, "test result: FAILED"):
		return true
	case strings.HasPrefix(l, "FAILED ") && strings.Contains(l, "::"), strings.HasPrefix(l, "ERROR ") && strings.Contains(l, "::"):
		return true
	case compilerLine(l), strings.HasPrefix(l, "error") && compilerErrorLine.MatchString(l):
		return true
	case strings.HasPrefix(l, "=") && failedCount.MatchString(l):
		return true
	}
	return false
}

// compilerLine: a compiler's line that names a file and the error in it,
// Go's "file.go:12:3: …" or TypeScript's "a.ts(3,7): error TS2322: …" (a
// substring first: the pattern only where it may match).
func compilerLine(l string) bool {
	return strings.Contains(l, ".go:") && goErrorLine.MatchString(l) ||
		strings.Contains(l, "error TS") && tscErrorLine.MatchString(l)
}

var (
	goErrorLine       = regexp.MustCompile(`^[\w./-]+\.go:\d+:\d+: \S`)
	compilerErrorLine = regexp.MustCompile(`^error(\[E\d+\])?: \S`)
	tscErrorLine      = regexp.MustCompile(`\): error TS\d+: `)
	failedCount       = regexp.MustCompile(`\b[1-9]\d* (failed|errors?)\b`)
)

// bareErrorHeader: an error line whose message is on the lines below it:
// nothing, or only a bracketed code, after its last "error:" (GHC's
// "Main.hs:290:5: error: [GHC-44287]").
func bareErrorHeader(l string) bool {
	lower := strings.ToLower(l) // offsets of lower, not of l: a rune may grow
	i := strings.LastIndex(lower, "error:")
	if i < 0 {
		return false
	}
	rest := strings.TrimSpace(lower[i+len("error:"):])
	return rest == "" || strings.HasPrefix(rest, "[") && strings.HasSuffix(rest, "]") && !strings.Contains(rest, " ")
}
