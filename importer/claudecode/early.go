package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/graft-project/graft/importer"
)

// Results written before their calls (doc.go, "A result before its
// call"): Claude Code 2.1.162 can write a tool's result a line before the
// assistant line that holds its call. A result whose call is not open
// waits for the next line, the line it came in kept whole: when that line
// holds its call, the call is imported, then the result (meta "line" its
// own); when it does not (it does not even name the call's id, or names
// it but holds no such call), the result is imported as one of no known
// call, as before, with the warning: before the next line's events in the
// first case, after them in the second.

// maxEarlyResults bounds the results that wait at once: past it the
// oldest is imported at once as a result of no known call.
const maxEarlyResults = 16

// earlyResult is a tool_result waiting for its call: the user line it came
// in, as written, and the call it names.
type earlyResult struct {
	Line int    `json:"line"`
	ID   string `json:"id"`
	Raw  string `json:"raw"`
}

// holdEarly keeps the result b of the line l for its call.
func (m *Mapper) holdEarly(l importer.Line, b block, out *importer.Output) {
	if len(m.early) >= maxEarlyResults {
		m.releaseEarly(0, out)
	}
	m.early = append(m.early, earlyResult{Line: l.Num, ID: b.ToolUseID, Raw: string(l.Bytes)})
}

// notNamed imports, before the line l is mapped, the waiting results
// whose call id l does not name: their calls are not on it.
func (m *Mapper) notNamed(l importer.Line, out *importer.Output) {
	for k := 0; k < len(m.early); {
		if e := m.early[k]; e.Line < l.Num && !bytes.Contains(l.Bytes, []byte(e.ID)) {
			m.releaseEarly(k, out)
			continue
		}
		k++
	}
}

// notCame imports, after the line num is mapped, the results of earlier
// lines still waiting: their calls were not on it.
func (m *Mapper) notCame(num int, out *importer.Output) {
	for k := 0; k < len(m.early); {
		if m.early[k].Line < num {
			m.releaseEarly(k, out)
			continue
		}
		k++
	}
}

// callCame imports the result waiting for the call id, if one does, right
// after its call.
func (m *Mapper) callCame(id string, out *importer.Output) {
	for k := range m.early {
		if m.early[k].ID == id {
			m.releaseEarly(k, out)
			return
		}
	}
}

// releaseEarly imports the waiting result k (its call open or not) with
// the line it came in, and forgets it.
func (m *Mapper) releaseEarly(k int, out *importer.Output) {
	e := m.early[k]
	m.early = append(m.early[:k], m.early[k+1:]...)
	ln, b, err := m.earlyBlock(e)
	if err != nil {
		out.Warn("the result of %q from line %d that waited for its call does not decode again (%v): not imported", e.ID, e.Line, err)
		return
	}
	m.heldLine = strconv.Itoa(e.Line)
	defer func() { m.heldLine = "" }()
	m.toolResult(ln, b, out)
}

// earlyBlock decodes the line a waiting result came in and finds its
// tool_result block.
func (m *Mapper) earlyBlock(e earlyResult) (*line, block, error) {
	var ln line
	if err := json.Unmarshal([]byte(e.Raw), &ln); err != nil {
		return nil, block{}, err
	}
	if ln.Message == nil {
		return nil, block{}, errors.New("user line without message")
	}
	_, blocks, _, err := m.content(ln.Message.Content)
	if err != nil {
		return nil, block{}, err
	}
	for _, b := range blocks {
		if b.Type == "tool_result" && b.ToolUseID == e.ID {
			return &ln, b, nil
		}
	}
	return nil, block{}, errors.New("no tool_result block of that id")
}

// Held implements importer.Holder: the results still waiting for their
// calls.
func (m *Mapper) Held() string {
	switch len(m.early) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("line %d: the result of %q waits for its call, which Claude Code may write on a later line; it is imported then", m.early[0].Line, m.early[0].ID)
	}
	return fmt.Sprintf("lines %d-%d: %d results wait for their calls, which Claude Code may write on later lines; they are imported then", m.early[0].Line, m.early[len(m.early)-1].Line, len(m.early))
}
