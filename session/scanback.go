package session

import (
	"bytes"
	"fmt"
	"io"
	"slices"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/vfs"
)

// scanBackChunk is how much of a log ScanBack reads at a time, from its end.
const scanBackChunk = 1 << 20

// ScanBack hands fn the events of session id whose line holds one of
// needles (raw bytes, as the log spells them), newest first, reading the
// log backwards in chunks; fn returns false to stop. Only those lines are
// decoded, so finding the newest event of a rare kind costs a byte search
// of the log's end, not a decode of the log (a hook on every prompt
// looking for the last compaction). A line that holds a needle and is not
// an event is an error naming it.
func (s *Store) ScanBack(id string, needles [][]byte, fn func(ev *Event) (more bool, err error)) error {
	if err := ValidID(id); err != nil {
		return err
	}
	path := s.Path(id)
	if err := s.regularPath(path); err != nil {
		return err
	}
	f, err := s.FS.Open(path)
	if err != nil {
		return translate(path, err)
	}
	if err := regular(f); err != nil {
		return vfs.CloseAfter(f, err)
	}
	fi, err := f.Stat()
	if err != nil {
		return vfs.CloseAfter(f, fmt.Errorf("session: %s: %w", path, err))
	}
	if _, err := scanBack(f, path, fi.Size(), 0, needles, func(ev *Event, _ []byte) (bool, error) { return fn(ev) }); err != nil {
		return vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", path, err)
	}
	return nil
}

// scanBack hands fn the events (and their lines) whose line holds a
// needle among the whole lines of f from floor (a line boundary) to size,
// newest first, until fn returns false. It returns end, where the last
// whole line ends: a last line without its '\n' is a write still under way
// (or a torn one, which the store repairs), not an event yet.
func scanBack(f vfs.File, path string, size, floor int64, needles [][]byte, fn func(ev *Event, line []byte) (bool, error)) (end int64, err error) {
	end = -1
	at := size
	var carry []byte // the start of the line the previous chunk began inside
	// Room past the chunk for the carried start of a line, so that the
	// usual carry (a line's head) needs no new array per chunk.
	buf := make([]byte, scanBackChunk, scanBackChunk+scanBackChunk/4)
	for at > floor {
		n := min(int64(scanBackChunk), at-floor)
		start := at - n
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return 0, fmt.Errorf("session: reading %s: %w", path, err)
		}
		data := append(chunk, carry...)
		if end < 0 {
			// Until the last '\n' is found, what is read is the unfinished
			// last line: dropped.
			i := bytes.LastIndexByte(data, '\n')
			if i < 0 {
				carry = carry[:0]
				at = start
				continue
			}
			data, end = data[:i+1], start+int64(i)+1
		}
		at = start
		// Lines wholly in data: after its first '\n' unless data starts
		// at floor.
		first := 0
		if start > floor {
			i := bytes.IndexByte(data, '\n')
			if i < 0 {
				carry = append([]byte(nil), data...)
				continue
			}
			first = i + 1
		}
		region := data[first:]
		// The lines that hold a needle, found by a forward byte search of
		// the whole region (no per-line work), then handed over newest first.
		for _, ls := range hitLines(region, needles) {
			line := region[ls:]
			if i := bytes.IndexByte(line, '\n'); i >= 0 {
				line = line[:i]
			}
			var ev Event
			if err := Decode(line, &ev); err != nil {
				return 0, fmt.Errorf("session: %s: the line at byte %d: %w", path, start+int64(first+ls), err)
			}
			more, err := fn(&ev, line)
			if err != nil || !more {
				return end, err
			}
		}
		carry = append(carry[:0:0], data[:first]...)
	}
	return max(end, floor), nil
}

// hitLines are the offsets of the starts of region's lines that hold a
// needle, last line first, each once.
func hitLines(region []byte, needles [][]byte) []int {
	var starts []int
	for _, n := range needles {
		for pos := 0; len(n) > 0; {
			i := bytes.Index(region[pos:], n)
			if i < 0 {
				break
			}
			at := pos + i
			ls := bytes.LastIndexByte(region[:at], '\n') + 1
			starts = append(starts, ls)
			end := bytes.IndexByte(region[at:], '\n')
			if end < 0 {
				break
			}
			pos = at + end + 1
		}
	}
	slices.Sort(starts)
	starts = slices.Compact(starts)
	slices.Reverse(starts)
	return starts
}

// LastMatchEvery is how many bytes LastMatch reads past its memo before it
// writes a new one (a write is a temp file, fsync and rename).
var LastMatchEvery int64 = 1 << 20

// LastMatch returns the newest event of session id whose line holds one of
// needles and that keep accepts, nil when there is none; key names the
// query (needles and keep: another key is another query). It reads the log
// backwards like ScanBack, down to where the memo index/<id>.last of the
// same query left off (the newest accepted event before a line boundary,
// checked against the log like the state checkpoint: index/doc.go), so a
// look on every prompt for an event that never comes costs a read of what
// was appended since, not of the log. It writes a new memo after reading
// at least LastMatchEvery bytes past the old one. The memo is a hint: one
// that does not fit costs a longer read, never another answer; a memo
// write that fails is memoErr, beside the answer (the caller tells the
// person: the next look reads the log again).
func (s *Store) LastMatch(id, key string, needles [][]byte, keep func(ev *Event) bool) (ev *Event, memoErr, err error) {
	if err := ValidID(id); err != nil {
		return nil, nil, err
	}
	path := s.Path(id)
	if err := s.regularPath(path); err != nil {
		return nil, nil, err
	}
	f, err := s.FS.Open(path)
	if err != nil {
		return nil, nil, translate(path, err)
	}
	ev, memoErr, err = s.lastMatch(f, id, key, path, needles, keep)
	if err != nil {
		return nil, nil, vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return nil, nil, fmt.Errorf("session: closing %s: %w", path, err)
	}
	return ev, memoErr, nil
}

func (s *Store) lastMatch(f vfs.File, id, key, path string, needles [][]byte, keep func(ev *Event) bool) (*Event, error, error) {
	if err := regular(f); err != nil {
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("session: %s: %w", path, err)
	}
	dev, ino, haveIdentity := fileIdentity(fi)
	var memo *index.Last
	if haveIdentity {
		if memo, _, err = index.ReadLast(s.FS, s.home, id, key, f, dev, ino, fi.Size()); err != nil {
			return nil, nil, fmt.Errorf("session: the last-match memo of %s: %w", id, err)
		}
	}
	var memoEv *Event
	if memo != nil && len(memo.Event) > 0 {
		var ev Event
		if Decode(memo.Event, &ev) != nil {
			memo = nil // not a hint to trust: the whole log is read
		} else {
			memoEv = &ev
		}
	}
	floor := int64(0)
	if memo != nil {
		floor = memo.Offset
	}
	var found *Event
	var line []byte
	end, err := scanBack(f, path, fi.Size(), floor, needles, func(ev *Event, l []byte) (bool, error) {
		if keep(ev) {
			found, line = ev, l
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, nil, err
	}
	if found == nil && memoEv != nil {
		found, line = memoEv, memo.Event
	}
	var memoErr error
	if haveIdentity && end-floor >= LastMatchEvery {
		// A memo that cannot be written costs the next look a longer read.
		if err := index.NewWriter(s.FS, s.home).WriteLast(id, key, f, dev, ino, end, line); err != nil {
			memoErr = fmt.Errorf("session: the last-match memo of %s: %w", id, err)
		}
	}
	return found, memoErr, nil
}
