package codex

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/graft-project/graft/importer"
)

// Code mode (doc.go, "Code mode"): the model's tool calls are a script
// for the custom tool exec, which calls the other tools as tools.<name>.

// cellCall is a code-mode call waiting for its output: the tool its
// script calls (Tool, "" for a script that is not one call) and the
// command it runs or polls ("" for none known).
type cellCall struct {
	Tool    string `json:"tool,omitempty"`
	Command string `json:"command,omitempty"`
	// Session is the unified-exec session a write_stdin polls, when its
	// command is not known.
	Session string `json:"session,omitempty"`
}

// cmdExit is how a command unified exec ran ended, from Codex's
// CommandExecution item_completed event: the command bash ran and its
// exit code.
type cmdExit struct {
	Command string `json:"command"`
	Exit    int    `json:"exit"`
}

// toolsCallRE finds the calls of nested tools in a script; declRE the
// declarations of its names, up to the value.
var (
	toolsCallRE = regexp.MustCompile(`\btools\.([A-Za-z_][A-Za-z0-9_]*)\s*\(`)
	declRE      = regexp.MustCompile(`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*`)
)

// codeModeCall reads a code-mode script that is one call of a nested tool
// (the rest of it prints the result: text(…)): the tool's name and its
// argument as JSON, an object literal converted, or for apply_patch the
// patch given as a string literal or as a constant the script declared
// with one. ok is false for any other script (several calls, a loop, an
// argument computed), which is imported as the exec call it is.
func codeModeCall(script string) (name string, input json.RawMessage, ok bool) {
	calls := toolsCallRE.FindAllStringSubmatchIndex(script, 2)
	if len(calls) != 1 {
		return "", nil, false
	}
	name = script[calls[0][2]:calls[0][3]]
	p := &jsParser{s: script, i: calls[0][1]}
	p.space()
	if p.i < len(p.s) && p.s[p.i] != '{' && p.s[p.i] != '"' && p.s[p.i] != '\'' {
		// An identifier: the constant a declaration set to a string.
		id := p.ident()
		if id == "" {
			return "", nil, false
		}
		at := -1
		for _, d := range declRE.FindAllStringSubmatchIndex(script[:calls[0][0]], -1) {
			if script[d[2]:d[3]] == id {
				at = d[1]
				break
			}
		}
		if at < 0 {
			return "", nil, false
		}
		p = &jsParser{s: script, i: at}
	}
	v, good := p.value()
	if !good {
		return "", nil, false
	}
	if s, isString := v.(string); isString {
		if name != "apply_patch" {
			return "", nil, false
		}
		return name, patchInput(s), true
	}
	if _, isObject := v.(map[string]any); !isObject {
		return "", nil, false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", nil, false
	}
	return name, b, true
}

// codeModeHead opens the output of a code-mode call: how the script
// ended (completed, failed, or still running in a cell a wait call
// names), its wall time, then "Output:". Codex 0.171 writes it as the
// first of a list of output items, what the script printed the others
// (each text() call one), or as the whole output, a string, for a
// script still running.
var codeModeHead = regexp.MustCompile(`^Script (completed|failed|running with cell ID (\S+))\nWall time [^\n]*\nOutput:\n`)

// codeModeOutput reads a code-mode call's output: how the script ended
// ("completed", "failed", "running"), the cell a running one goes on in,
// and what the script printed (each item on its own lines). ok is false
// for an output without the head, kept as it is.
func codeModeOutput(raw json.RawMessage) (status, cell, text string, ok bool) {
	var items []textPart
	var whole string
	if json.Unmarshal(raw, &whole) == nil {
		items = []textPart{{Type: "input_text", Text: whole}}
	} else if json.Unmarshal(raw, &items) != nil || len(items) == 0 {
		return "", "", "", false
	}
	m := codeModeHead.FindStringSubmatchIndex(items[0].Text)
	if m == nil || items[0].Type == "input_image" {
		return "", "", "", false
	}
	status = items[0].Text[m[2]:m[3]]
	if m[4] >= 0 {
		status, cell = "running", items[0].Text[m[4]:m[5]]
	}
	var printed []string
	rest := append([]textPart{{Type: "input_text", Text: items[0].Text[m[1]:]}}, items[1:]...)
	for _, it := range rest {
		t := it.Text
		if it.Type == "input_image" {
			t = "[image]"
		}
		if t = strings.TrimSuffix(t, "\n"); t != "" {
			printed = append(printed, t)
		}
	}
	return status, cell, strings.Join(printed, "\n"), true
}

// jsParser reads the literal values of a script: objects, arrays,
// strings (quoted, or a template without ${…}), numbers, true, false and
// null, as encoding/json would decode them.
type jsParser struct {
	s string
	i int
}

func (p *jsParser) space() {
	for p.i < len(p.s) && strings.IndexByte(" \t\r\n", p.s[p.i]) >= 0 {
		p.i++
	}
}

func (p *jsParser) ident() string {
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '_' || c == '$' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || p.i > start && '0' <= c && c <= '9' {
			p.i++
			continue
		}
		break
	}
	return p.s[start:p.i]
}

// maxJSDepth bounds the nesting of a literal the parser reads.
const maxJSDepth = 32

func (p *jsParser) value() (any, bool) { return p.valueAt(0) }

func (p *jsParser) valueAt(depth int) (any, bool) {
	if depth > maxJSDepth {
		return nil, false
	}
	p.space()
	if p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"' || c == '\'' || c == '`':
		return p.str()
	case c == '-' || '0' <= c && c <= '9':
		start := p.i
		p.i++
		for p.i < len(p.s) && strings.IndexByte("0123456789.eE+-_", p.s[p.i]) >= 0 {
			p.i++
		}
		num := strings.ReplaceAll(p.s[start:p.i], "_", "")
		if _, err := strconv.ParseFloat(num, 64); err != nil {
			return nil, false
		}
		return json.Number(num), true
	}
	switch p.ident() {
	case "true":
		return true, true
	case "false":
		return false, true
	case "null":
		return nil, true
	}
	return nil, false
}

func (p *jsParser) object(depth int) (any, bool) {
	p.i++ // {
	obj := map[string]any{}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		if p.s[p.i] == '}' {
			p.i++
			return obj, true
		}
		var key string
		if c := p.s[p.i]; c == '"' || c == '\'' {
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			key = k.(string)
		} else if key = p.ident(); key == "" {
			return nil, false
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, false // a shorthand property or a spread: computed
		}
		p.i++
		v, ok := p.valueAt(depth + 1)
		if !ok {
			return nil, false
		}
		obj[key] = v
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == '}' {
			p.i++
			return obj, true
		}
		return nil, false
	}
}

func (p *jsParser) array(depth int) (any, bool) {
	p.i++ // [
	arr := []any{}
	for {
		p.space()
		if p.i >= len(p.s) {
			return nil, false
		}
		if p.s[p.i] == ']' {
			p.i++
			return arr, true
		}
		v, ok := p.valueAt(depth + 1)
		if !ok {
			return nil, false
		}
		arr = append(arr, v)
		p.space()
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == ']' {
			p.i++
			return arr, true
		}
		return nil, false
	}
}

// str reads a string literal with JavaScript's escapes; a template that
// interpolates (${…}) is no literal.
func (p *jsParser) str() (any, bool) {
	q := p.s[p.i]
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			return b.String(), true
		case q == '`' && c == '$' && p.i+1 < len(p.s) && p.s[p.i+1] == '{':
			return nil, false
		case (c == '\n' || c == '\r') && q != '`':
			return nil, false
		case c != '\\':
			b.WriteByte(c)
			p.i++
			continue
		}
		p.i++ // the backslash
		if p.i >= len(p.s) {
			return nil, false
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '0':
			if p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
				return nil, false // a legacy octal escape
			}
			b.WriteByte(0)
		case 'x':
			r, ok := p.hex(2)
			if !ok {
				return nil, false
			}
			b.WriteRune(r)
		case 'u':
			r, ok := p.unicode()
			if !ok {
				return nil, false
			}
			b.WriteRune(r)
		case '\r':
			if p.i < len(p.s) && p.s[p.i] == '\n' {
				p.i++ // a line continuation
			}
		case '\n':
			// a line continuation: nothing
		default:
			if '1' <= e && e <= '9' {
				return nil, false // a legacy octal escape
			}
			// \" \' \\ \` and any other character stand for themselves;
			// a multi-byte one is copied whole.
			p.i--
			r, size := utf8.DecodeRuneInString(p.s[p.i:])
			p.i += size
			b.WriteRune(r)
		}
	}
	return nil, false
}

func (p *jsParser) hex(n int) (rune, bool) {
	if p.i+n > len(p.s) {
		return 0, false
	}
	v, err := strconv.ParseUint(p.s[p.i:p.i+n], 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += n
	return rune(v), true
}

// unicode reads the rest of a \u escape: four hex digits (a surrogate
// pair's high half followed by \u and its low half makes one rune), or
// {…}. A lone surrogate becomes U+FFFD, as encoding/json makes it.
func (p *jsParser) unicode() (rune, bool) {
	if p.i < len(p.s) && p.s[p.i] == '{' {
		end := strings.IndexByte(p.s[p.i:], '}')
		if end < 2 {
			return 0, false
		}
		v, err := strconv.ParseUint(p.s[p.i+1:p.i+end], 16, 32)
		if err != nil || v > utf8.MaxRune {
			return 0, false
		}
		p.i += end + 1
		return rune(v), true
	}
	r, ok := p.hex(4)
	if !ok {
		return 0, false
	}
	if 0xD800 <= r && r < 0xDC00 && strings.HasPrefix(p.s[p.i:], `\u`) {
		save := p.i
		p.i += 2
		if lo, ok := p.hex(4); ok && 0xDC00 <= lo && lo < 0xE000 {
			return (r-0xD800)<<10 + (lo - 0xDC00) + 0x10000, true
		}
		p.i = save
	}
	if 0xD800 <= r && r < 0xE000 {
		return utf8.RuneError, true
	}
	return r, true
}

// codeModeCall imports a code-mode exec call: as the call of the tool its
// script makes (meta viaTool "exec") when the script is one such call,
// else as the exec call with the script as its input; either way its
// output is read as a script's (codeModeResult).
func (m *Mapper) codeModeCall(rl *rolloutLine, callID, script string, out *importer.Output) {
	name, input, ok := codeModeCall(script)
	if !ok {
		m.toolCall(rl, "exec", callID, freeformInput(script), out)
		m.addCell(callID, cellCall{})
		return
	}
	command := m.toolCallVia(rl, name, callID, input, "exec", out)
	c := cellCall{Tool: name, Command: command}
	if name == "write_stdin" && command == "" {
		var in struct {
			SessionID json.Number `json:"session_id"`
		}
		if json.Unmarshal(input, &in) == nil {
			c.Session = in.SessionID.String()
		}
	}
	m.addCell(callID, c)
}

// addCell keeps a code-mode call until its output, at most maxOpenCells
// (a call whose output never came is forgotten, the oldest first).
func (m *Mapper) addCell(callID string, c cellCall) {
	if m.cells == nil {
		m.cells = map[string]cellCall{}
	}
	if len(m.cells) >= maxOpenCells {
		// Such a rollout lost its outputs: forget one, the same one on
		// every import (the least call_id), so a follow and a whole
		// import agree.
		delete(m.cells, slices.Min(slices.Collect(maps.Keys(m.cells))))
	}
	m.cells[callID] = c
}

// maxOpenCells bounds the code-mode calls a Mapper waits on.
const maxOpenCells = 256

// codeModeResult reads the output of the code-mode call c: what its script
// printed, and ok false when the script failed, the exit of its command
// when Codex said how it ended (noteExit), else absent (a script that
// completed says nothing of its command's exit). A script still running
// in a cell leaves that cell to a wait call, named by its command. found
// is false for an output without a script's head (kept as it is).
// running is the session a command runs on in when its script printed
// unified exec's result object with a session_id and no exit_code.
func (m *Mapper) codeModeResult(c cellCall, raw json.RawMessage) (text string, ok *bool, running string, found bool) {
	status, cell, text, found := codeModeOutput(raw)
	if !found {
		return "", nil, "", false
	}
	if c.Tool == "exec_command" || c.Tool == "write_stdin" || c.Tool == "wait" && (c.Command != "" || c.Session != "") {
		// text(JSON.stringify(r)): unified exec's result object (of a
		// wait, the waited cell's script was one such call).
		if out, exit, session, isResult := execResult(text); isResult {
			text = out
			if exit != nil {
				good := *exit == 0
				return text, &good, "", true
			}
			if c.Tool != "wait" {
				// The command runs on in that session: a write_stdin
				// to it is named by it, as after unified exec's
				// "Process running with session ID" header.
				running = session
			}
		}
	}
	switch status {
	case "failed":
		failed := false
		return text, &failed, "", true
	case "running":
		if cell != "" && (c.Command != "" || c.Session != "") {
			m.running = append(slices.DeleteFunc(m.running, func(e execSession) bool { return e.ID == cell }), execSession{ID: cell, Command: c.Command, Session: c.Session})
			if len(m.running) > keptExecs {
				m.running = m.running[len(m.running)-keptExecs:]
			}
		}
		return text, nil, running, true
	}
	if c.Command != "" {
		for k := len(m.exits) - 1; k >= 0; k-- {
			if m.exits[k].Command == c.Command {
				good := m.exits[k].Exit == 0
				m.exits = slices.Delete(m.exits, k, k+1)
				return text, &good, "", true
			}
		}
	}
	return text, nil, running, true
}

// noteExit keeps how a command ended from an item_completed event whose
// item is a CommandExecution (Codex 0.171: its command as bash ran it,
// ["/bin/bash", "-lc", cmd], and its exit_code), for the code-mode call
// that ran it, whose output comes next.
func (m *Mapper) noteExit(payload json.RawMessage) {
	var em struct {
		Item struct {
			Type     string   `json:"type"`
			Command  []string `json:"command"`
			ExitCode *int     `json:"exit_code"`
		} `json:"item"`
	}
	if json.Unmarshal(payload, &em) != nil || em.Item.Type != "CommandExecution" || em.Item.ExitCode == nil || len(em.Item.Command) == 0 {
		return
	}
	cmd := em.Item.Command[len(em.Item.Command)-1]
	if r := []rune(cmd); len(r) > maxExecCommand {
		cmd = string(r[:maxExecCommand]) + "…" // as execCalls keeps it
	}
	m.exits = append(m.exits, cmdExit{Command: cmd, Exit: *em.Item.ExitCode})
	if len(m.exits) > keptExecs {
		m.exits = m.exits[len(m.exits)-keptExecs:]
	}
}

// execResult reads text as the result object of a unified exec call
// (exec_command, write_stdin) that a script printed whole: its output,
// and its exit_code when the command ended (none while it runs: its
// session_id instead, session). isResult is false for any other text: the object
// needs its output and the wall_time_seconds or chunk_id unified exec
// gives every result, and an exit_code, when there is one, a number.
func execResult(text string) (output string, exit *int, session string, isResult bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "{") || !strings.HasSuffix(t, "}") {
		if cut, ok := cutResult(t); ok {
			t = cut
		} else {
			return "", nil, "", false
		}
	}
	var r struct {
		Output    *string     `json:"output"`
		ExitCode  *int        `json:"exit_code"`
		Wall      *float64    `json:"wall_time_seconds"`
		ChunkID   *string     `json:"chunk_id"`
		SessionID json.Number `json:"session_id"`
	}
	if json.Unmarshal([]byte(t), &r) != nil || r.Output == nil || r.Wall == nil && r.ChunkID == nil {
		return "", nil, "", false
	}
	if r.ExitCode == nil {
		session = r.SessionID.String()
	}
	return strings.TrimSuffix(*r.Output, "\n"), r.ExitCode, session, true
}

// truncatedHead opens a text Codex cut to its model's budget
// (truncate.rs): "Warning: truncated output (original token count: N)",
// then "Total output lines: N" and a blank line; the text's head and end
// follow around one truncationMark.
const truncatedHead = "Warning: truncated output (original token count: "

// truncationMark is the mark Codex puts where it cut a text:
// "…N tokens truncated…" (or chars).
var truncationMark = regexp.MustCompile(`…\d+ (?:tokens|chars) truncated…`)

// cutResult reads text, a result object Codex cut in its middle (a
// script printed it on one line, and the cut fell in its output, the
// field it ends with), as the object it was: its fields before the cut,
// and an output that is the output's head and end around the mark, each
// without an escape the cut split. ok is false for any other text: no
// such head, not one mark, or an object that does not end with its output.
func cutResult(text string) (object string, ok bool) {
	rest, found := strings.CutPrefix(text, truncatedHead)
	if !found {
		return "", false
	}
	if _, rest, found = strings.Cut(rest, "\n\n"); !found {
		return "", false
	}
	rest = strings.TrimSpace(rest)
	marks := truncationMark.FindAllStringIndex(rest, 2)
	if len(marks) != 1 || !strings.HasPrefix(rest, "{") || !strings.HasSuffix(rest, `"}`) {
		return "", false
	}
	head, mark, tail := rest[:marks[0][0]], rest[marks[0][0]:marks[0][1]], rest[marks[0][1]:len(rest)-2]
	const field = `,"output":"`
	i := strings.LastIndex(head, field)
	if i < 0 {
		return "", false
	}
	fields, outHead := head[:i], head[i+len(field):]
	first, okHead := jsonStringPart(outHead, false)
	last, okTail := jsonStringPart(tail, true)
	if !okHead || !okTail {
		return "", false
	}
	out, err := json.Marshal(first + "\n" + mark + "\n" + last)
	if err != nil {
		return "", false
	}
	return fields + `,"output":` + string(out) + "}", true
}

// jsonStringPart decodes s, a part of a JSON string's contents that a cut
// ended (or, fromEnd, began): at most 6 bytes on the cut's side go, the
// longest escape ("\u00e9") the cut may have split.
func jsonStringPart(s string, fromEnd bool) (string, bool) {
	for k := 0; k <= 6 && k <= len(s); k++ {
		part := s[:len(s)-k]
		if fromEnd {
			part = s[k:]
		}
		var v string
		if json.Unmarshal([]byte(`"`+part+`"`), &v) == nil {
			return v, true
		}
	}
	return "", false
}
