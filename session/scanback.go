package session

import (
	"bytes"
	"fmt"
	"io"
	"slices"

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
	if err := scanBack(f, path, needles, fn); err != nil {
		return vfs.CloseAfter(f, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: closing %s: %w", path, err)
	}
	return nil
}

func scanBack(f vfs.File, path string, needles [][]byte, fn func(ev *Event) (bool, error)) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("session: %s: %w", path, err)
	}
	end := fi.Size()
	var carry []byte // the start of the line the previous chunk began inside
	// Room past the chunk for the carried start of a line, so that the
	// usual carry (a line's head) needs no new array per chunk.
	buf := make([]byte, scanBackChunk, scanBackChunk+scanBackChunk/4)
	for end > 0 || len(carry) > 0 {
		n := min(int64(scanBackChunk), end)
		start := end - n
		chunk := buf[:n]
		if _, err := f.ReadAt(chunk, start); err != nil && err != io.EOF {
			return fmt.Errorf("session: reading %s: %w", path, err)
		}
		data := append(chunk, carry...)
		if end == fi.Size() {
			// A last line without its '\n' is a write still under way (or a
			// torn one, which the store repairs): not an event yet.
			data = data[:bytes.LastIndexByte(data, '\n')+1]
		}
		end = start
		// Lines wholly in data: after its first '\n' unless data starts the file.
		first := 0
		if start > 0 {
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
				return fmt.Errorf("session: %s: the line at byte %d: %w", path, start+int64(first+ls), err)
			}
			more, err := fn(&ev)
			if err != nil || !more {
				return err
			}
		}
		carry = append(carry[:0:0], data[:first]...)
		if start == 0 {
			break
		}
	}
	return nil
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
