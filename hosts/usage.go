package hosts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"syscall"
)

// usageTail is how much of a transcript's end ContextTokens reads: the last
// model reply's usage is near the end, and a long tool output after it is
// not read whole.
const usageTail = 1 << 20

// ContextTokens is the context size of a host session's last model
// request, read from the end of its transcript: Claude Code's last
// assistant message.usage (input + cache creation + cache read tokens),
// Codex's last token_count event (last_token_usage, else
// total_token_usage, input_tokens). ok is false when none is recorded.
func ContextTokens(host Host, path string) (tokens int64, ok bool, err error) {
	f, fi, err := openTranscript(path)
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	off := max(fi.Size()-usageTail, 0)
	buf := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(buf, off); err != nil && err != io.EOF {
		return 0, false, fmt.Errorf("hosts: reading %s: %w", path, err)
	}
	lines := bytes.Split(buf, []byte{'\n'})
	if off > 0 {
		lines = lines[1:] // cut mid-line
	}
	for k := len(lines) - 1; k >= 0; k-- {
		if n, found := lineTokens(host, lines[k]); found {
			return n, true, nil
		}
	}
	return 0, false, nil
}

type usageCounts struct {
	Input         int64 `json:"input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
}

func lineTokens(host Host, line []byte) (int64, bool) {
	switch host {
	case ClaudeCode:
		if !bytes.Contains(line, []byte(`"usage"`)) {
			return 0, false
		}
		var rec struct {
			Type    string `json:"type"`
			Message struct {
				Usage *usageCounts `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "assistant" || rec.Message.Usage == nil {
			return 0, false
		}
		u := rec.Message.Usage
		return u.Input + u.CacheCreation + u.CacheRead, true
	case Codex:
		if !bytes.Contains(line, []byte(`"token_count"`)) {
			return 0, false
		}
		var rec struct {
			Type    string `json:"type"`
			Payload struct {
				Type string `json:"type"`
				Info *struct {
					Last  *usageCounts `json:"last_token_usage"`
					Total *usageCounts `json:"total_token_usage"`
				} `json:"info"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &rec) != nil || rec.Type != "event_msg" || rec.Payload.Type != "token_count" || rec.Payload.Info == nil {
			return 0, false
		}
		if u := rec.Payload.Info.Last; u != nil {
			return u.Input, true
		}
		if u := rec.Payload.Info.Total; u != nil {
			return u.Input, true
		}
	}
	return 0, false
}

// openTranscript opens a host transcript for reading without ever
// blocking: anything but a regular file (a FIFO's open waits for a writer)
// is ErrNoTranscript, checked before the open and again on the open file.
func openTranscript(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrNoTranscript, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, path, fi.Mode().Type())
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, fmt.Errorf("hosts: opening %s: %w", path, err)
	}
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err == nil {
			err = fmt.Errorf("%w: %s is not a regular file (%s)", ErrNoTranscript, path, fi.Mode().Type())
		}
		return nil, nil, err
	}
	return f, fi, nil
}
