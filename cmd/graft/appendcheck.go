package main

import (
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/graft-project/graft/session"
)

// appendError is an event graft append refuses before anything of the
// batch is written; it matches session.ErrBadEvent (exit 34, bad_event).
type appendError struct{ msg string }

func (e appendError) Error() string { return e.msg }
func (e appendError) Unwrap() error { return session.ErrBadEvent }

// refuse is the appendError of stdin line num at byte offset off.
func refuse(num int, off int64, format string, args ...any) error {
	return appendError{fmt.Sprintf("stdin line %d (byte offset %d): ", num, off) + fmt.Sprintf(format, args...) + "; nothing was appended"}
}

// checkRaw refuses what encoding/json would silently turn into U+FFFD: a
// byte that is not UTF-8, and a \u escape of a lone UTF-16 surrogate.
func checkRaw(line []byte, num int, off int64) error {
	for i := 0; i < len(line); {
		r, n := utf8.DecodeRune(line[i:])
		if r == utf8.RuneError && n <= 1 {
			return refuse(num, off, "invalid UTF-8 at byte %d of the line (%#02x): an event must be UTF-8", i, line[i])
		}
		i += n
	}
	for i := 0; i+1 < len(line); i++ {
		if line[i] != '\\' {
			continue
		}
		if line[i+1] != 'u' {
			i++ // \" \\ \n …: the escaped byte is no escape of its own
			continue
		}
		v, ok := hex4(line, i+2)
		if !ok {
			continue // not JSON; the decoder says so
		}
		switch {
		case v >= 0xD800 && v <= 0xDBFF:
			if lo, ok := hex4(line, i+8); ok && i+7 < len(line) && line[i+6] == '\\' && line[i+7] == 'u' && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 11 // a pair: one character
				continue
			}
		case v >= 0xDC00 && v <= 0xDFFF:
		default:
			i += 5
			continue
		}
		return refuse(num, off, "a lone UTF-16 surrogate \\u%04x at byte %d of the line: it would be read as U+FFFD", v, i)
	}
	return nil
}

// hex4 reads four hex digits at line[i:].
func hex4(line []byte, i int) (uint64, bool) {
	if i+4 > len(line) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(line[i:i+4]), 16, 16)
	return v, err == nil
}

// checkTodos refuses a todo status outside pending, in_progress and
// completed: the tape sorts, counts and flags todos by it.
func checkTodos(ev *session.Event, num int, off int64) error {
	if ev.Type != session.TypeTodoWrite {
		return nil
	}
	for k, td := range ev.Todos {
		switch td.Status {
		case session.TodoPending, session.TodoInProgress, session.TodoCompleted:
		default:
			return refuse(num, off, "todo/write: todo %d has status %q: want %s, %s or %s", k+1, td.Status, session.TodoPending, session.TodoInProgress, session.TodoCompleted)
		}
	}
	return nil
}
