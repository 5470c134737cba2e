package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Compaction is one compaction Claude Code made of a session, as its files
// recorded it: the compact_boundary system record of the transcript, and
// the transcript of the model call that wrote the summary, the sub-agent
// transcript <uuid>/subagents/agent-acompact-*.jsonl beside it.
type Compaction struct {
	// Transcript is the session's transcript; SubAgent the compaction
	// call's ("" when none was found for this boundary).
	Transcript, SubAgent string
	// Trigger and PreTokens are the boundary's compactMetadata ("auto" or
	// "manual"; the context size in tokens when it compacted).
	Trigger   string
	PreTokens int64
	// Boundary is the compact_boundary record's timestamp; Before the
	// latest timestamp of the session's records before it (since the
	// previous boundary): the session waited from Before to Boundary.
	Boundary, Before time.Time
	// First and Last are the sub-agent transcript's first and last
	// timestamps. Its first records may be isMeta hook reminders the
	// compaction carried over from the session, with their own, older
	// timestamps: First is then not when the call started.
	First, Last time.Time
	// Prompt is the compaction prompt (the sub-agent's first user record
	// that is not isMeta: "Your task is to create a detailed summary…"),
	// Answer its last assistant record (the summary).
	Prompt, Answer time.Time
	// Requests counts the model requests (distinct message ids) of the
	// call; the token counts are their message.usage, as recorded.
	Requests                                                        int
	InputTokens, CacheCreationTokens, CacheReadTokens, OutputTokens int64
	// SummaryChars is the length, in characters, of the summary the call
	// returned (the assistant's text, analysis included).
	SummaryChars int
}

// Input is the input tokens of the call: input_tokens +
// cache_creation_input_tokens + cache_read_input_tokens.
func (c Compaction) Input() int64 {
	return c.InputTokens + c.CacheCreationTokens + c.CacheReadTokens
}

// Call is the model call's wall time: from the compaction prompt to the
// summary.
func (c Compaction) Call() time.Duration { return c.Answer.Sub(c.Prompt) }

// Stall is how long the session stood still for the compaction: from its
// last record before the boundary to the boundary.
func (c Compaction) Stall() time.Duration { return c.Boundary.Sub(c.Before) }

// ccRecord is the part of a Claude Code transcript record read here.
type ccRecord struct {
	Type            string `json:"type"`
	Subtype         string `json:"subtype"`
	Timestamp       string `json:"timestamp"`
	IsMeta          bool   `json:"isMeta"`
	RequestID       string `json:"requestId"`
	CompactMetadata *struct {
		Trigger   string `json:"trigger"`
		PreTokens int64  `json:"preTokens"`
	} `json:"compactMetadata"`
	Message *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input         int64 `json:"input_tokens"`
			CacheCreation int64 `json:"cache_creation_input_tokens"`
			CacheRead     int64 `json:"cache_read_input_tokens"`
			Output        int64 `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

func readRecords(path string, each func(num int, r *ccRecord, ts time.Time) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	for num, line := range bytes.Split(data, []byte{'\n'}) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r ccRecord
		if err := json.Unmarshal(line, &r); err != nil {
			return fmt.Errorf("bench: %s line %d: %w", path, num+1, err)
		}
		var ts time.Time
		if r.Timestamp != "" {
			if ts, err = time.Parse(time.RFC3339Nano, r.Timestamp); err != nil {
				return fmt.Errorf("bench: %s line %d: timestamp: %w", path, num+1, err)
			}
		}
		if err := each(num+1, &r, ts); err != nil {
			return err
		}
	}
	return nil
}

// Compactions reads the compactions of the Claude Code session whose
// transcript is at path: each compact_boundary record, with the sub-agent
// transcript of its call (the agent-acompact-*.jsonl whose summary came
// last before the boundary and after the previous one).
func Compactions(path string) ([]Compaction, error) {
	var out []Compaction
	var latest time.Time // since the previous boundary
	err := readRecords(path, func(_ int, r *ccRecord, ts time.Time) error {
		if r.Type == "system" && r.Subtype == "compact_boundary" {
			c := Compaction{Transcript: path, Boundary: ts, Before: latest}
			if m := r.CompactMetadata; m != nil {
				c.Trigger, c.PreTokens = m.Trigger, m.PreTokens
			}
			out = append(out, c)
			latest = time.Time{}
			return nil
		}
		if ts.After(latest) {
			latest = ts
		}
		return nil
	})
	if err != nil || len(out) == 0 {
		return out, err
	}
	dir := filepath.Join(strings.TrimSuffix(path, filepath.Ext(path)), "subagents")
	calls, err := filepath.Glob(filepath.Join(dir, "agent-acompact-*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	var subs []Compaction
	for _, p := range calls {
		c, err := compactionCall(p)
		if err != nil {
			return nil, err
		}
		subs = append(subs, c)
	}
	slices.SortFunc(subs, func(a, b Compaction) int { return a.Answer.Compare(b.Answer) })
	var prev time.Time
	for k := range out {
		b := &out[k]
		for _, s := range subs {
			if s.Answer.After(prev) && !s.Answer.After(b.Boundary) {
				s.Transcript, s.Trigger, s.PreTokens, s.Boundary, s.Before = b.Transcript, b.Trigger, b.PreTokens, b.Boundary, b.Before
				*b = s
			}
		}
		prev = b.Boundary
	}
	return out, nil
}

// compactionCall reads a compaction's sub-agent transcript.
func compactionCall(path string) (Compaction, error) {
	c := Compaction{SubAgent: path}
	type usage struct{ in, create, read, out int64 }
	byMessage := map[string]usage{}
	var summary strings.Builder
	err := readRecords(path, func(num int, r *ccRecord, ts time.Time) error {
		if !ts.IsZero() {
			if c.First.IsZero() {
				c.First = ts
			}
			c.Last = ts
		}
		switch r.Type {
		case "user":
			if !r.IsMeta && c.Prompt.IsZero() {
				c.Prompt = ts
			}
		case "assistant":
			c.Answer = ts
			if r.Message == nil {
				return nil
			}
			id := r.Message.ID
			if id == "" {
				id = r.RequestID
			}
			if id == "" {
				id = fmt.Sprint("line ", num)
			}
			// Claude Code writes one record per content block of a reply,
			// each with the reply's usage: a reply is counted once.
			if u := r.Message.Usage; u != nil {
				byMessage[id] = usage{u.Input, u.CacheCreation, u.CacheRead, u.Output}
			}
			var blocks []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			if err := json.Unmarshal(r.Message.Content, &blocks); err == nil {
				for _, b := range blocks {
					if b.Type == "text" {
						summary.WriteString(b.Text)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		return c, err
	}
	for _, u := range byMessage {
		c.Requests++
		c.InputTokens += u.in
		c.CacheCreationTokens += u.create
		c.CacheReadTokens += u.read
		c.OutputTokens += u.out
	}
	c.SummaryChars = utf8.RuneCountInString(summary.String())
	return c, nil
}
