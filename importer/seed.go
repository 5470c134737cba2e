package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"time"

	"github.com/graft-project/graft/session"
)

// MapLines runs m over the complete lines of data (a last line without
// '\n' is not read), numbering them from first, and calls fn with each
// event (fn may be nil). A malformed line is an error when strict, skipped
// otherwise. It returns the lines read and the last source uuid.
func MapLines(data []byte, first int, m Mapper, strict bool, fn func(ev *session.Event)) (lines int, lastUUID string, err error) {
	var out Output
	for off := 0; off < len(data); {
		n := bytes.IndexByte(data[off:], '\n')
		if n < 0 {
			break
		}
		num := first + lines
		lines++
		out.reset()
		if err := m.Map(Line{Num: num, Offset: int64(off), Bytes: data[off : off+n]}, &out); err != nil {
			return lines, lastUUID, fmt.Errorf("line %d: %w", num, err)
		}
		off += n + 1
		if out.malformed != nil {
			if strict {
				return lines, lastUUID, fmt.Errorf("line %d does not map: %w", num, out.malformed)
			}
			continue
		}
		if out.uuid != "" {
			lastUUID = out.uuid
		}
		for k := range out.events {
			if fn != nil {
				fn(&out.events[k])
			}
		}
	}
	return lines, lastUUID, nil
}

// Seed writes the cursor of session id as if an import of data, the whole
// content of the transcript at path, had produced its events up to lastSeq.
// graft writes a host transcript from a session it already holds (export);
// seeding lets the next import of that transcript append only what the host
// writes after it. dev and ino are the transcript's identity; m maps data's
// lines (their events are dropped) so the cursor keeps the mapper's state
// and last source uuid. data must end with '\n'.
func Seed(st *session.Store, home, id, path string, dev, ino uint64, data []byte, lastSeq int64, m Mapper) error {
	if err := session.ValidID(id); err != nil {
		return err
	}
	if len(data) == 0 || data[len(data)-1] != '\n' {
		return fmt.Errorf("importer: seeding the cursor of %s: the transcript must end with a complete line", id)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("importer: resolving %s: %w", path, err)
	}
	lines, lastUUID, err := MapLines(data, 1, m, true, nil)
	if err != nil {
		return fmt.Errorf("importer: seeding the cursor of %s: %w", id, err)
	}
	state, bin, err := saveState(m)
	if err != nil {
		return fmt.Errorf("importer: saving %s importer state of %s: %w", m.Format(), id, err)
	}
	h := sha256.New()
	h.Write(data)
	hashState, tail, err := hashMarks(h, bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return fmt.Errorf("importer: seeding the cursor of %s: %w", id, err)
	}
	return saveCursor(st.FS, home, &Cursor{
		HashState:      hashState,
		TailSHA256:     tail,
		VerifiedOffset: int64(len(data)),
		Format:         m.Format(),
		Session:        id,
		Source:         abs,
		Device:         dev,
		Inode:          ino,
		Size:           int64(len(data)),
		Offset:         int64(len(data)),
		Lines:          lines,
		LastUUID:       lastUUID,
		PrefixSHA256:   hex.EncodeToString(h.Sum(nil)),
		LastSeq:        lastSeq,
		Settings:       m.Settings(),
		State:          state,
		binState:       bin,
		Updated:        st.Now().UTC().Format(time.RFC3339Nano),
	}, nil)
}
