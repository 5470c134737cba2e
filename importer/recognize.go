package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strings"
)

// Recognizer is a Mapper that tells its host's records by their shape: a
// first import of a file none of whose first lines is one is refused
// (Check; doc.go "A run", step 0).
type Recognizer interface {
	Mapper
	// Recognize says whether line (complete, without its '\n') is a record
	// of the format. It judges the shape, not the record type: a record
	// type newer than the mapper is still one of its host's.
	Recognize(line []byte) bool
	// Describe names the format for a person: the host ("Claude Code")
	// and what its files are ("a Claude Code transcript").
	Describe() (host, file string)
}

// Hinter is a Recognizer that can tell what a file it refuses is, when it
// is its host's in a shape the mapper does not read, and how to get one it
// reads (Gemini CLI's earlier one-document sessions).
type Hinter interface {
	// Hint says what the refused file whose first lines are lines is and
	// what to do; "" when it cannot tell.
	Hint(path string, lines [][]byte) string
}

// Other is another host a refused file may be of (Options.Others).
type Other struct {
	// Name is the host's name in the registry, as graft import takes it
	// ("codex").
	Name   string
	Mapper Mapper
}

// The first lines a first import looks at: at most SniffLines complete
// lines, all within the first SniffBytes of the file.
const (
	SniffLines = 64
	SniffBytes = 1 << 20
)

// NotTranscriptError is the refusal of a first import of a file none of
// whose first lines is a record of the mapper's host. It matches
// ErrNotTranscript.
type NotTranscriptError struct {
	Path   string // the file, absolute
	Format string // the format asked for (a host's name)
	Host   string // what people call that host ("Claude Code")
	// Lines is how many lines were looked at (non-blank, complete); Whole
	// is set when they are all the file holds.
	Lines int
	Whole bool
	// LooksLike is the host whose records the lines are (its name, "" when
	// none of Options.Others recognises them), LooksLikeFile what its files
	// are ("a Codex rollout").
	LooksLike, LooksLikeFile string
	// Hint, when set, is what the asked host's mapper says the file is
	// and how to go on (Hinter).
	Hint string
}

func (e *NotTranscriptError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("%s %s (nothing was imported)", e.Path, e.Hint)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s holds no %s record ", e.Path, e.Host)
	switch {
	case e.Whole && e.Lines == 1:
		b.WriteString("in its one line")
	case e.Whole:
		fmt.Fprintf(&b, "in its %d lines", e.Lines)
	default:
		fmt.Fprintf(&b, "in its first %d lines", e.Lines)
	}
	if e.LooksLike != "" {
		fmt.Fprintf(&b, "; it reads as %s: graft import %s %s", e.LooksLikeFile, e.LooksLike, shellQuote(e.Path))
	} else {
		b.WriteString(", nor a record of another host graft knows")
	}
	b.WriteString(" (nothing was imported)")
	return b.String()
}

func (e *NotTranscriptError) Unwrap() error { return ErrNotTranscript }

// shellQuote quotes s for a POSIX shell when it holds anything but the
// characters a path usually has.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+:,@%=") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Check is what Run refuses before it writes anything (doc.go "A run",
// step 0): a first import (no cursor for o.ID) with a Recognizer m of a
// file that holds complete lines, none of whose first ones (SniffLines,
// within SniffBytes) is a record of m's host. It returns the
// NotTranscriptError, naming the one of o.Others whose records the lines
// are. A file with no complete line yet is not refused (a hook sees a file
// its host has only begun), nor is an import that resumes from a cursor,
// nor one whose cursor or file cannot be read here: Run says why then.
func Check(o Options, m Mapper) (err error) {
	rec, ok := m.(Recognizer)
	if !ok || !checkFirstLines {
		return nil
	}
	// A cursor there (whether it reads or not: Run says) is no first
	// import; a stat, not a read, on every follow.
	if _, err := o.Store.FS.Lstat(CursorPath(o.Home, o.ID)); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	path, err := filepath.Abs(o.Source)
	if err != nil {
		return nil
	}
	f, err := openRegular(path)
	if err != nil {
		return nil
	}
	// Read only, so a failed close loses nothing; it is still reported.
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("importer: closing source %s: %w", path, cerr)
		}
	}()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	lines, found, end, err := firstLines(f, rec.Recognize)
	if err != nil {
		return fmt.Errorf("importer: reading %s: %w", path, err)
	}
	if found || len(lines) == 0 {
		return nil
	}
	host, _ := rec.Describe()
	e := &NotTranscriptError{Path: path, Format: m.Format(), Host: host, Lines: len(lines),
		Whole: end && fi.Size() <= SniffBytes}
	if h, ok := m.(Hinter); ok {
		if e.Hint = h.Hint(path, lines); e.Hint != "" {
			return e
		}
	}
	best := 0
	for _, other := range o.Others {
		or, ok := other.Mapper.(Recognizer)
		if !ok || other.Mapper.Format() == m.Format() {
			continue
		}
		n := 0
		for _, l := range lines {
			if or.Recognize(l) {
				n++
			}
		}
		if n > best {
			best = n
			e.LooksLike = other.Name
			_, e.LooksLikeFile = or.Describe()
		}
	}
	return e
}

// checkFirstLines is off only in tests that feed a mapper another host's
// lines on purpose (the golden imports pin what it makes of them, as a
// resumed import of a file that changed host would).
var checkFirstLines = true

// firstLines reads the first SniffLines lines of r that end within its
// first SniffBytes until one is a record (found); else it returns the
// non-blank ones, and end when it read up to the end of the SniffBytes
// (all the lines there are, when r is no longer).
func firstLines(r io.ReaderAt, record func([]byte) bool) (lines [][]byte, found, end bool, err error) {
	br := bufio.NewReader(io.NewSectionReader(r, 0, SniffBytes))
	for n := 0; n < SniffLines; n++ {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			// The end, or a line not finished (by the host, or within
			// SniffBytes): not a line; but a whole JSON document there,
			// with no newline after it, is one (a file written at once,
			// not a line the host has begun: Gemini CLI's checkpoint).
			if line = bytes.TrimSpace(line); len(line) > 0 && json.Valid(line) {
				if record(line) {
					return nil, true, false, nil
				}
				lines = append(lines, line)
			}
			return lines, false, true, nil
		}
		if err != nil {
			return nil, false, false, err
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		if record(line) {
			return nil, true, false, nil
		}
		lines = append(lines, line)
	}
	return lines, false, false, nil
}

// Shape is the top-level fields of a JSON object line, for the
// Recognizers. Its keys match as encoding/json matches a struct's fields,
// whatever their case: a line a mapper reads is a line its Recognizer
// judges.
type Shape map[string]json.RawMessage

// ShapeOf is the shape of line; ok is false when it is no JSON object.
func ShapeOf(line []byte) (s Shape, ok bool) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(line, &fields); err != nil || fields == nil {
		return nil, false
	}
	s = make(Shape, len(fields))
	for k, v := range fields {
		s[strings.ToLower(k)] = v
	}
	return s, true
}

// Get is the value of field key ("" when absent).
func (s Shape) Get(key string) json.RawMessage { return s[strings.ToLower(key)] }

// Has says whether any of keys is a field (null included).
func (s Shape) Has(keys ...string) bool {
	for _, k := range keys {
		if _, ok := s[strings.ToLower(k)]; ok {
			return true
		}
	}
	return false
}

// String says whether field key is a non-empty JSON string.
func (s Shape) String(key string) bool {
	var v string
	raw := s.Get(key)
	return len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &v) == nil && v != ""
}

// Object is the shape of field key when it is a JSON object.
func (s Shape) Object(key string) (Shape, bool) {
	raw := bytes.TrimSpace(s.Get(key))
	if len(raw) == 0 || raw[0] != '{' {
		return nil, false
	}
	return ShapeOf(raw)
}
