package importer

import (
	"fmt"
	"path/filepath"
	"strings"
)

// UnknownTranscriptError is Detect's refusal: the host of the file cannot
// be told from its first lines. It matches ErrUnknownTranscript.
type UnknownTranscriptError struct {
	Path string // the file, absolute
	// Lines is how many lines were looked at (non-blank, complete), Whole
	// set when they are all the file holds; none is a file the host has
	// not finished a line of.
	Lines int
	Whole bool
	// Tied names the hosts whose records the lines are as many of each
	// (more than one); empty when none recognises them.
	Tied []string
	// Hint, when set, is what a host's mapper says the file is and how to
	// go on (Hinter).
	Hint string
	// Names and Titles are the hosts looked for, as graft import takes
	// them and as people call them.
	Names, Titles []string
}

func (e *UnknownTranscriptError) Error() string {
	if e.Hint != "" {
		return fmt.Sprintf("%s %s (nothing was imported)", e.Path, e.Hint)
	}
	names := e.Names
	var b strings.Builder
	switch {
	case e.Lines == 0:
		fmt.Fprintf(&b, "%s holds no complete line yet, so its host cannot be told: name it", e.Path)
	case len(e.Tied) > 1:
		fmt.Fprintf(&b, "%s reads as the records of %s alike in %s: name its host", e.Path, orList(e.Tied), e.linesLooked())
		names = e.Tied
	default:
		fmt.Fprintf(&b, "%s holds no record of a host graft knows in %s (%s): name its host", e.Path, e.linesLooked(), orList(e.Titles))
	}
	fmt.Fprintf(&b, ": graft import %s %s (nothing was imported)", strings.Join(names, "|"), shellQuote(e.Path))
	return b.String()
}

func (e *UnknownTranscriptError) linesLooked() string {
	switch {
	case e.Whole && e.Lines == 1:
		return "its one line"
	case e.Whole:
		return fmt.Sprintf("its %d lines", e.Lines)
	}
	return fmt.Sprintf("its first %d lines", e.Lines)
}

func (e *UnknownTranscriptError) Unwrap() error { return ErrUnknownTranscript }

// orList joins words as "a, b or c".
func orList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// Detect names the host of the file at path for an import that names
// none: the one of among whose Recognizer takes the most of the file's
// first lines (SniffLines within SniffBytes, as Check reads them). A file
// whose lines no host's records are (a Hinter of one may say what it is),
// one where two hosts take as many, and one with no complete line yet are
// refused with an UnknownTranscriptError; a file that cannot be opened or
// is no regular file, with the error of that.
func Detect(path string, among []Other) (host string, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	f, err := openRegular(abs)
	if err != nil {
		return "", err
	}
	// Read only, so a failed close loses nothing; it is still reported.
	defer func() {
		if cerr := f.Close(); cerr != nil && err == nil {
			host, err = "", fmt.Errorf("importer: closing source %s: %w", abs, cerr)
		}
	}()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("importer: %w", err)
	}
	lines, _, end, err := firstLines(f, func([]byte) bool { return false })
	if err != nil {
		return "", fmt.Errorf("importer: reading %s: %w", abs, err)
	}
	e := &UnknownTranscriptError{Path: abs, Lines: len(lines), Whole: end && fi.Size() <= SniffBytes}
	best := 0
	for _, o := range among {
		rec, ok := o.Mapper.(Recognizer)
		if !ok {
			continue
		}
		title, _ := rec.Describe()
		e.Names, e.Titles = append(e.Names, o.Name), append(e.Titles, title)
		n := 0
		for _, l := range lines {
			if rec.Recognize(l) {
				n++
			}
		}
		switch {
		case n == 0 || n < best:
		case n > best:
			best, e.Tied = n, []string{o.Name}
		default:
			e.Tied = append(e.Tied, o.Name)
		}
	}
	if len(e.Tied) == 1 {
		return e.Tied[0], nil
	}
	if len(e.Tied) == 0 && len(lines) > 0 {
		for _, o := range among {
			if h, ok := o.Mapper.(Hinter); ok {
				if e.Hint = h.Hint(abs, lines); e.Hint != "" {
					break
				}
			}
		}
	}
	return "", e
}
