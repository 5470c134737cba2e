package importer

import (
	"fmt"
	"strings"
)

// Recognizer is a Mapper that tells its host's records by their shape: a
// first import of a file none of whose first lines is one is refused
// (ErrNotTranscript, doc.go "A run", step 3).
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
	// LooksLike is the format whose records the lines are ("" when none
	// of Options.Others recognises them), LooksLikeFile what its files are
	// ("a Codex rollout").
	LooksLike, LooksLikeFile string
}

func (e *NotTranscriptError) Error() string {
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
