package tape

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// File operations of the Workspace Files block.
const (
	OpRead  = "read"
	OpWrite = "write"
	OpEdit  = "edit"
	// OpOutside is a change the host saw made outside the agent's tools
	// (session.MetaChangedOutside).
	OpOutside = "changed outside the agent"
)

// toolOps maps a tool name, lower-cased, to the file operation it performs.
// Claude Code: Read, Write, Edit, MultiEdit, NotebookEdit; generic and Codex
// names otherwise. apply_patch takes its paths and ops from the patch text.
var toolOps = map[string]string{
	"read":         OpRead,
	"read_file":    OpRead,
	"view":         OpRead,
	"write":        OpWrite,
	"write_file":   OpWrite,
	"create":       OpWrite,
	"edit":         OpEdit,
	"edit_file":    OpEdit,
	"str_replace":  OpEdit,
	"multiedit":    OpEdit,
	"notebookedit": OpEdit,
	"apply_patch":  OpEdit,
}

// todoTools write or read the todo list (Claude Code 2.1's task tools
// among them: the importer makes their calls a todo/write) or the goal the
// host keeps (Codex 0.171's and Qwen Code 0.24's goal tools: Task Status
// names the goal); their results do not make the list stale.
var todoTools = map[string]bool{"todowrite": true, "todo_write": true, "update_plan": true, "todoread": true, "todo_read": true,
	"taskcreate": true, "taskupdate": true, "tasklist": true, "taskget": true,
	"create_goal": true, "get_goal": true, "update_goal": true, "propose_goal": true, "write_todos": true}

// isPlanExit: name is the tool with which the agent asks the person to
// approve its plan and leave plan mode (Claude Code's ExitPlanMode, Gemini
// CLI's and Qwen Code's exit_plan_mode).
func isPlanExit(name string) bool {
	return name == "exit_plan_mode" || strings.EqualFold(name, "ExitPlanMode")
}

// isPlanEnter: name is the tool with which the agent enters plan mode
// (Claude Code's EnterPlanMode, Gemini CLI's and Qwen Code's
// enter_plan_mode).
func isPlanEnter(name string) bool {
	return name == "EnterPlanMode" || name == "enter_plan_mode"
}

// baseName is the last element of a slash or backslash path.
func baseName(p string) string {
	return p[strings.LastIndexAny(p, `/\`)+1:]
}

// fileTouch is one path a tool call reads, writes or edits.
type fileTouch struct {
	Path string `json:"path"`
	Op   string `json:"op"`
}

// fileTouches returns the paths a call of tool name with input touches; ok
// is false when the tool is not a file tool. A file tool whose input names
// no path returns ok with no touches.
func fileTouches(name string, input json.RawMessage) (touches []fileTouch, ok bool) {
	return (&callInput{raw: input}).fileTouches(name)
}

// fileTouches is fileTouches of a call of tool name with the input.
func (in *callInput) fileTouches(name string) (touches []fileTouch, ok bool) {
	input := in.raw
	op, ok := toolOp(name)
	if !ok {
		// A shell call is a file tool when it writes a here-document
		// into a file (heredoc.go).
		if len(input) > 0 && isShellTool(name) {
			if ts := in.shellTouches(); len(ts) > 0 {
				return ts, true
			}
		}
		return nil, false
	}
	if len(input) == 0 {
		return nil, true
	}
	if op == OpEdit && len(name) >= len("apply_patch") && strings.ToLower(name) == "apply_patch" {
		return patchTouches(in.patch()), true
	}
	// The fast reader skips the other values (a Write's whole file) and
	// leaves anything unusual to encoding/json, which it answers as.
	paths, read := session.StringFields(input, pathKeys...)
	if !read {
		var fields struct { // pathKeys, in their order
			FilePath     string `json:"file_path"`
			Path         string `json:"path"`
			NotebookPath string `json:"notebook_path"`
			AbsolutePath string `json:"absolute_path"`
		}
		if json.Unmarshal(input, &fields) != nil {
			// Not an object: a tool input we cannot read names no path;
			// the caller counts it as unattributed and says so in the
			// warnings.
			return nil, true
		}
		paths = []string{fields.FilePath, fields.Path, fields.NotebookPath, fields.AbsolutePath}
	}
	for _, p := range paths {
		if p != "" {
			return []fileTouch{{Path: p, Op: op}}, true
		}
	}
	return nil, true
}

// toolOp is toolOps[strings.ToLower(name)].
func toolOp(name string) (string, bool) { return lowerIn(toolOps, name) }

// lowerIn is set[strings.ToLower(name)], without building the lower case
// of a short ASCII name (every call's name, looked up several times per
// call): a map index of a converted byte slice allocates nothing.
func lowerIn[V any](set map[string]V, name string) (V, bool) {
	var buf [24]byte
	if len(name) > len(buf) {
		v, ok := set[strings.ToLower(name)]
		return v, ok
	}
	for k := 0; k < len(name); k++ {
		c := name[k]
		if c >= utf8.RuneSelf {
			v, ok := set[strings.ToLower(name)] // K (Kelvin) lowers to k
			return v, ok
		}
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[k] = c
	}
	v, ok := set[string(buf[:len(name)])]
	return v, ok
}

// patchText is the patch of an apply_patch input: a JSON string, or the
// "patch" or "input" field of an object.
func patchText(input json.RawMessage) string {
	return (&callInput{raw: input}).patch()
}

// patch is patchText of the input.
func (in *callInput) patch() string {
	input := in.raw
	if vals, ok := in.fields(); ok {
		// An object whose fields StringFields read as encoding/json would.
		if vals[whatPatch] != "" {
			return vals[whatPatch]
		}
		return vals[whatInput]
	}
	var s string
	// Only a JSON string can decode into a string: an object (the usual
	// input) need not be tried.
	if t := bytes.TrimLeft(input, " \t\r\n"); len(t) > 0 && t[0] == '"' && json.Unmarshal(input, &s) == nil {
		return s
	}
	var fields struct {
		Patch string `json:"patch"`
		Input string `json:"input"`
	}
	if json.Unmarshal(input, &fields) != nil {
		return ""
	}
	if fields.Patch != "" {
		return fields.Patch
	}
	return fields.Input
}

// patchTouches reads the file headers of an apply_patch patch:
// "*** Add File:" writes, "*** Update File:" and "*** Delete File:" edit,
// "*** Move to:" writes the new path.
func patchTouches(patch string) []fileTouch {
	var out []fileTouch
	for line := range strings.SplitSeq(patch, "\n") {
		if op, p, _, ok := patchHeader(line); ok && p != "" {
			out = append(out, fileTouch{Path: p, Op: op})
		}
	}
	return out
}

// patchHeaders are the lines of a patch that name a file, and what each
// does to it; "*** Move to:" goes with the file header before it.
var patchHeaders = []struct{ prefix, op string }{
	{"*** Add File:", OpWrite},
	{"*** Update File:", OpEdit},
	{"*** Delete File:", OpEdit},
	{"*** Move to:", OpWrite},
}

// patchHeader reads line as one of patchHeaders: its op and path (trimmed;
// "" for none), and whether it is a "*** Move to:".
func patchHeader(line string) (op, path string, move, ok bool) {
	line = strings.TrimRight(line, "\r")
	for _, h := range patchHeaders {
		if p, found := strings.CutPrefix(line, h.prefix); found {
			return h.op, strings.TrimSpace(p), h.prefix == "*** Move to:", true
		}
	}
	return "", "", false, false
}

// patchParts are the parts of a patch that changes several files, by
// path, each a patch of its own ("*** Begin Patch", the file's header and
// its lines up to the next file's header, "*** End Patch"; a "*** Move
// to:" path has its section too): a patch that changes several files
// says of each what it does to that file alone. nil for a patch of fewer
// than two files.
func patchParts(patch string) map[string]string {
	type section struct {
		paths []string
		lines []string
	}
	var sections []*section
	var cur *section
	for line := range strings.SplitSeq(patch, "\n") {
		t := strings.TrimRight(line, "\r")
		_, p, move, header := patchHeader(t)
		switch {
		case header && !move:
			cur = &section{paths: []string{p}, lines: []string{t}}
			sections = append(sections, cur)
		case strings.HasPrefix(t, "*** Begin Patch"), strings.HasPrefix(t, "*** End Patch"):
			cur = nil
		case cur != nil:
			if move {
				cur.paths = append(cur.paths, p)
			}
			cur.lines = append(cur.lines, t)
		}
	}
	if len(sections) < 2 {
		return nil
	}
	parts := map[string]string{}
	for _, s := range sections {
		for _, p := range s.paths {
			if parts[p] != "" {
				parts[p] = strings.TrimSuffix(parts[p], "\n*** End Patch") + "\n" + strings.Join(s.lines, "\n") + "\n*** End Patch"
				continue
			}
			parts[p] = "*** Begin Patch\n" + strings.Join(s.lines, "\n") + "\n*** End Patch"
		}
	}
	return parts
}

// patchInputs are the inputs of a write or an edit as it changes each file,
// by path: of a patch that changes several files, an apply_patch input of
// the file's part alone (patchParts); nil for any other call, which is
// read whole.
func patchInputs(name string, input json.RawMessage) map[string]json.RawMessage {
	for _, t := range editTexts(name, input) {
		if !isPatch(t) {
			continue
		}
		parts := patchParts(t)
		if parts == nil {
			return nil
		}
		out := make(map[string]json.RawMessage, len(parts))
		for p, part := range parts {
			if b, err := json.Marshal(map[string]string{"patch": part}); err == nil {
				out[p] = b
			}
		}
		return out
	}
	return nil
}

// inputFor is the tool and input of a call as it changes path, from its
// patchInputs (parts): the part of path when there is one, else the call
// whole.
func inputFor(name string, input json.RawMessage, parts map[string]json.RawMessage, path string) (string, json.RawMessage) {
	if in, ok := parts[path]; ok {
		return "apply_patch", in
	}
	return name, input
}
