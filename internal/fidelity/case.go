package fidelity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Categories are the kinds of fact a case names, in the order tables print
// them (testdata/fidelity/README.md).
var Categories = []string{"task", "constraint", "file", "state", "todo", "decision"}

// Hosts a case can name: graft's names of the hosts it imports.
const (
	HostClaudeCode = "claude-code"
	HostCodex      = "codex"
	HostGemini     = "gemini"
	HostQwen       = "qwen"
)

var caseHosts = []string{HostClaudeCode, HostCodex, HostGemini, HostQwen}

// Case is one handoff of the truth set: a transcript, where it is cut, and
// the facts the next window must know there.
type Case struct {
	Name       string `json:"name"`
	Host       string `json:"host"`
	Transcript string `json:"transcript"`
	Cut        Cut    `json:"cut"`
	Written    string `json:"written"`
	// HeldOut marks a case written blind and kept out of the tape's work:
	// only its totals are read (README.md). The scorer reports these cases
	// apart, as the project's own check on unseen sessions does.
	HeldOut bool   `json:"heldOut,omitempty"`
	Facts   []Fact `json:"facts"`

	// File is the case file it was read from.
	File string `json:"-"`
	// Budget is the tape budget Run prepares with (0: the default); set
	// by the caller, never by a case file.
	Budget int `json:"-"`
}

// Cut is where the next window starts: after the first Lines lines, or just
// before the CompactBoundary-th compaction record.
type Cut struct {
	Lines           int `json:"lines,omitempty"`
	CompactBoundary int `json:"compactBoundary,omitempty"`
}

// Fact is one thing the next window must know, and the literal strings
// that every carrier of it contains.
type Fact struct {
	ID       string   `json:"id"`
	Category string   `json:"category"`
	Fact     string   `json:"fact"`
	Evidence []string `json:"evidence"`
}

// Load reads every cases/*.json under dir (testdata/fidelity), sorted by
// name, and checks each (Check).
func Load(dir string) ([]*Case, error) {
	files, err := filepath.Glob(filepath.Join(dir, "cases", "*.json"))
	if err != nil {
		return nil, err
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("fidelity: no case in %s", filepath.Join(dir, "cases"))
	}
	sort.Strings(files)
	var cases []*Case
	names := map[string]string{}
	for _, f := range files {
		c, err := LoadCase(f)
		if err != nil {
			return nil, err
		}
		if prev, dup := names[c.Name]; dup {
			return nil, fmt.Errorf("fidelity: %s: case name %q is also the name of %s", f, c.Name, prev)
		}
		names[c.Name] = f
		cases = append(cases, c)
	}
	return cases, nil
}

// LoadCase reads and checks one case file.
func LoadCase(path string) (*Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Case
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("fidelity: %s: %w", path, err)
	}
	c.File = path
	if err := c.Check(); err != nil {
		return nil, fmt.Errorf("fidelity: %s: %w", path, err)
	}
	return &c, nil
}

// Check validates the fields of a case.
func (c *Case) Check() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	if c.Name == "" {
		bad("no name")
	}
	if !slices.Contains(caseHosts, c.Host) {
		bad("host %q: want one of %s", c.Host, strings.Join(caseHosts, ", "))
	}
	if c.Transcript == "" || filepath.IsAbs(c.Transcript) || strings.Contains(filepath.ToSlash(c.Transcript), "../") {
		bad("transcript %q: want a path inside the repository, from its root", c.Transcript)
	}
	if (c.Cut.Lines > 0) == (c.Cut.CompactBoundary > 0) {
		bad("cut: want exactly one of lines and compactBoundary, positive")
	}
	if strings.TrimSpace(c.Written) == "" {
		bad("written: say how and when the facts were written")
	}
	if len(c.Facts) == 0 {
		bad("no facts")
	}
	ids := map[string]bool{}
	known := map[string]bool{}
	for _, k := range Categories {
		known[k] = true
	}
	for k, f := range c.Facts {
		where := fmt.Sprintf("fact %d (%s)", k+1, f.ID)
		if f.ID == "" || ids[f.ID] {
			bad("%s: id empty or repeated", where)
		}
		ids[f.ID] = true
		if !known[f.Category] {
			bad("%s: category %q: want one of %s", where, f.Category, strings.Join(Categories, ", "))
		}
		if strings.TrimSpace(f.Fact) == "" {
			bad("%s: no fact text", where)
		}
		if len(f.Evidence) < 1 || len(f.Evidence) > 3 {
			bad("%s: %d evidence strings: want 1 to 3", where, len(f.Evidence))
		}
		for _, e := range f.Evidence {
			if n := len([]rune(strings.TrimSpace(e))); n < 3 || strings.ContainsAny(e, "\n\r") {
				bad("%s: evidence %q: want one line of at least 3 characters", where, e)
			}
		}
	}
	return errors.Join(errs...)
}

// Normalize is the form texts and evidence are compared in: lower case,
// every run of white space one space.
func Normalize(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Carries reports whether the normalized text holds every evidence string
// of f.
func Carries(normText string, f Fact) bool {
	for _, e := range f.Evidence {
		if !strings.Contains(normText, Normalize(e)) {
			return false
		}
	}
	return true
}

// Prefix is a case's transcript cut where the next window starts.
type Prefix struct {
	// Lines are the transcript's lines before the cut, each with its '\n'.
	Lines [][]byte
	// HostSummary is the host's own compaction summary written at the cut
	// (compactBoundary cuts only).
	HostSummary string
}

// CutTranscript reads the case's transcript (root is the repository) and
// cuts it.
func (c *Case) CutTranscript(root string) (*Prefix, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(c.Transcript)))
	if err != nil {
		return nil, fmt.Errorf("fidelity: %s: %w", c.Name, err)
	}
	defer f.Close()
	var lines [][]byte
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, append(append([]byte(nil), sc.Bytes()...), '\n'))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("fidelity: %s: reading %s: %w", c.Name, c.Transcript, err)
	}
	if c.Cut.Lines > 0 {
		if c.Cut.Lines > len(lines) {
			return nil, fmt.Errorf("fidelity: %s: cut after line %d, the transcript has %d", c.Name, c.Cut.Lines, len(lines))
		}
		return &Prefix{Lines: lines[:c.Cut.Lines]}, nil
	}
	seen, lastSnapshot := 0, ""
	for k, l := range lines {
		snap, ok := compaction(c.Host, l)
		if !ok {
			continue
		}
		if c.Host == HostGemini {
			// A resume writes the whole list again, an earlier
			// compression's snapshot in it: only a new snapshot is a
			// compaction.
			if snap == lastSnapshot {
				continue
			}
			lastSnapshot = snap
		}
		seen++
		if seen < c.Cut.CompactBoundary {
			continue
		}
		summary, err := hostSummary(c.Host, lines, k)
		if err != nil {
			return nil, fmt.Errorf("fidelity: %s: %w", c.Name, err)
		}
		return &Prefix{Lines: lines[:k], HostSummary: summary}, nil
	}
	return nil, fmt.Errorf("fidelity: %s: compaction record %d: the transcript has %d", c.Name, c.Cut.CompactBoundary, seen)
}

type compactLine struct {
	Type             string `json:"type"`
	Subtype          string `json:"subtype"`
	IsCompactSummary bool   `json:"isCompactSummary"`
	Message          *struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Payload *struct {
		Message string `json:"message"`
	} `json:"payload"`
	// Qwen Code's chat_compression record.
	SystemPayload *struct {
		CompressedHistory []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text string `json:"text"`
			} `json:"parts"`
		} `json:"compressedHistory"`
	} `json:"systemPayload"`
	// Gemini CLI's {"$set": {"messages": [...]}}, the list a compression
	// writes.
	Set *struct {
		Messages []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	} `json:"$set"`
}

// snapshotTag opens the summary Gemini CLI and Qwen Code have the model
// write at a compression.
const snapshotTag = "<state_snapshot>"

// compaction says whether line is a compaction record: Claude Code's
// compact_boundary system record, Codex's compacted record, Qwen Code's
// chat_compression system record, Gemini CLI's $set of a message list
// holding a user message that opens with <state_snapshot> (that message,
// snapshot, tells a new compaction from a list written again).
func compaction(host string, line []byte) (snapshot string, ok bool) {
	if !bytes.Contains(line, []byte("compact")) && !bytes.Contains(line, []byte(snapshotTag)) {
		return "", false
	}
	var l compactLine
	if json.Unmarshal(line, &l) != nil {
		return "", false
	}
	switch host {
	case HostCodex:
		return "", l.Type == "compacted"
	case HostQwen:
		return "", l.Type == "system" && l.Subtype == "chat_compression"
	case HostGemini:
		return geminiSnapshot(&l)
	}
	return "", l.Type == "system" && l.Subtype == "compact_boundary"
}

// geminiSnapshot is the <state_snapshot> user message of a $set list.
func geminiSnapshot(l *compactLine) (string, bool) {
	if l.Set == nil {
		return "", false
	}
	for _, m := range l.Set.Messages {
		if m.Type != "user" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) != nil {
			var parts []struct {
				Text string `json:"text"`
			}
			if json.Unmarshal(m.Content, &parts) != nil {
				continue
			}
			var b strings.Builder
			for _, p := range parts {
				b.WriteString(p.Text)
			}
			text = b.String()
		}
		if strings.HasPrefix(strings.TrimSpace(text), snapshotTag) {
			return text, true
		}
	}
	return "", false
}

// hostSummary is the summary the host wrote for the compaction at line k:
// Claude Code's isCompactSummary user record after the boundary, Codex's
// compacted message, the <state_snapshot> of Qwen Code's compressed
// history or of Gemini CLI's rewritten list.
func hostSummary(host string, lines [][]byte, k int) (string, error) {
	switch host {
	case HostCodex, HostQwen, HostGemini:
		var l compactLine
		if err := json.Unmarshal(lines[k], &l); err != nil {
			return "", err
		}
		var s string
		switch host {
		case HostCodex:
			if l.Payload != nil {
				s = l.Payload.Message
			}
		case HostGemini:
			s, _ = geminiSnapshot(&l)
		case HostQwen:
			if l.SystemPayload != nil {
			history:
				for _, m := range l.SystemPayload.CompressedHistory {
					for _, p := range m.Parts {
						if m.Role == "user" && strings.Contains(p.Text, snapshotTag) {
							s = p.Text
							break history
						}
					}
				}
			}
		}
		if strings.TrimSpace(s) == "" {
			return "", fmt.Errorf("compaction record at line %d has no summary", k+1)
		}
		return s, nil
	}
	for j := k + 1; j < len(lines) && j <= k+5; j++ {
		var l compactLine
		if json.Unmarshal(lines[j], &l) != nil || !l.IsCompactSummary || l.Message == nil {
			continue
		}
		var s string
		if json.Unmarshal(l.Message.Content, &s) == nil {
			return s, nil
		}
		var blocks []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(l.Message.Content, &blocks); err != nil {
			return "", fmt.Errorf("isCompactSummary record at line %d: %w", j+1, err)
		}
		var parts []string
		for _, b := range blocks {
			if b.Type == "text" {
				parts = append(parts, b.Text)
			}
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("no isCompactSummary record within 5 lines after the compact_boundary at line %d", k+1)
}
