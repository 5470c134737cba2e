package catalog

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"syscall"

	bolt "go.etcd.io/bbolt"

	"github.com/graft-project/graft/session"
)

// ScanIndex lets a second prepare of a grown session read only the new
// tail: the tape builder's state folded up to a line boundary of the file.
type ScanIndex struct {
	Session string `json:"session"`
	// Dev and Ino identify the file the index was built from.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	// Offset is a line boundary; Line is the number of the line there.
	Offset  int64 `json:"offset"`
	Line    int   `json:"line"`
	NextSeq int64 `json:"nextSeq"`
	// Check is a hash of the bytes just before Offset (TailCheck), so a
	// rewritten file is never trusted.
	Check string `json:"check"`
	// State is graft's fold state at Offset, stored after the JSON of the
	// rest (see scanIndexMagic), not in it.
	State []byte `json:"-"`
}

func (ix ScanIndex) validate() error {
	if err := session.ValidID(ix.Session); err != nil {
		return fmt.Errorf("%w: scan index: %w", ErrInvalid, err)
	}
	if ix.Offset < 0 || ix.Line < 0 || ix.NextSeq < 0 {
		return fmt.Errorf("%w: scan index of %s: offset %d, line %d, next seq %d; none may be negative", ErrInvalid, ix.Session, ix.Offset, ix.Line, ix.NextSeq)
	}
	if ix.Check == "" {
		return fmt.Errorf("%w: scan index of %s has no check: a rewritten file could not be told apart", ErrInvalid, ix.Session)
	}
	return nil
}

// validID is session.ValidID, for functions whose parameter is named session.
var validID = session.ValidID

// PutScanIndex stores (replaces) the scan index of ix.Session.
func (db *DB) PutScanIndex(ix ScanIndex) error {
	if err := ix.validate(); err != nil {
		return err
	}
	head, err := json.Marshal(ix) // State is not in the JSON
	if err != nil {
		return fmt.Errorf("encoding %s/%s: %w", bucketScanIndex, ix.Session, err)
	}
	value := make([]byte, 0, len(scanIndexMagic)+len(head)+1+len(ix.State))
	value = append(append(append(append(value, scanIndexMagic...), head...), '\n'), ix.State...)
	return db.update("putting scan index of "+ix.Session, func(tx *bolt.Tx) error {
		return tx.Bucket([]byte(bucketScanIndex)).Put([]byte(ix.Session), value)
	})
}

// scanIndexMagic starts a stored scan index, whose value is the magic, the
// ScanIndex without its state as one line of JSON, then the state's bytes
// as they are. (Version 1 was one JSON object with the state in base64,
// which cost about 1 ms per 100 KiB of state to decode at every commit.)
const scanIndexMagic = "graft-scanindex-v2\n"

// GetScanIndex returns the scan index of session, and whether there is one.
// The caller validates it against the file (Dev, Ino, size, TailCheck).
func (db *DB) GetScanIndex(session string) (ScanIndex, bool, error) {
	var ix ScanIndex
	var ok bool
	err := db.view("reading scan index of "+session, func(tx *bolt.Tx) error {
		raw := tx.Bucket([]byte(bucketScanIndex)).Get([]byte(session))
		if raw == nil || bytes.HasPrefix(raw, []byte("{")) {
			return nil // none, or one of version 1: the caller builds a new one
		}
		rest, found := bytes.CutPrefix(raw, []byte(scanIndexMagic))
		var head, state []byte
		if found {
			head, state, found = bytes.Cut(rest, []byte("\n"))
		}
		if !found {
			return &CorruptValueError{Path: db.path, Bucket: bucketScanIndex, Key: session, Err: errors.New("not a scan index: no " + strings.TrimSpace(scanIndexMagic) + " header line")}
		}
		if err := db.decode(bucketScanIndex, session, bytes.Clone(head), &ix); err != nil {
			return err
		}
		// The state is copied out: bbolt's slices die with the transaction.
		ix.State = bytes.Clone(state)
		ok = true
		return nil
	})
	if err != nil || !ok {
		return ScanIndex{}, false, err
	}
	return ix, true, nil
}

// SeqMark says where event Seq starts: byte Offset, line number Line.
type SeqMark struct {
	Seq    int64 `json:"seq"`
	Offset int64 `json:"offset"`
	Line   int   `json:"line"`
}

// seqIndex is the stored value of bucket seqindex.
type seqIndex struct {
	Dev   uint64    `json:"dev"`
	Ino   uint64    `json:"ino"`
	Marks []SeqMark `json:"marks"`
}

// PutSeqIndex stores the sparse seq → offset index of session (every K-th
// event) for the file identified by dev and ino. Marks must rise strictly
// in seq, offset and line.
func (db *DB) PutSeqIndex(session string, dev, ino uint64, marks []SeqMark) error {
	if err := validID(session); err != nil {
		return fmt.Errorf("%w: seq index: %w", ErrInvalid, err)
	}
	for k, m := range marks {
		if m.Seq < 1 || m.Offset < 0 || m.Line < 1 {
			return fmt.Errorf("%w: seq index of %s: mark %d is %+v (seq and line start at 1, offset at 0)", ErrInvalid, session, k, m)
		}
		if k > 0 {
			p := marks[k-1]
			if m.Seq <= p.Seq || m.Offset <= p.Offset || m.Line <= p.Line {
				return fmt.Errorf("%w: seq index of %s: mark %d %+v does not rise after %+v", ErrInvalid, session, k, m, p)
			}
		}
	}
	return db.update("putting seq index of "+session, func(tx *bolt.Tx) error {
		return putJSON(tx, bucketSeqIndex, session, seqIndex{Dev: dev, Ino: ino, Marks: marks})
	})
}

// GetSeqIndex returns the seq index of session and the identity of the
// file it was built from; ok is false when there is none.
func (db *DB) GetSeqIndex(session string) (dev, ino uint64, marks []SeqMark, ok bool, err error) {
	var ix seqIndex
	err = db.view("reading seq index of "+session, func(tx *bolt.Tx) error {
		var err error
		ok, err = db.getJSON(tx, bucketSeqIndex, session, &ix)
		return err
	})
	if err != nil || !ok {
		return 0, 0, nil, false, err
	}
	return ix.Dev, ix.Ino, ix.Marks, true, nil
}

// TailCheckBytes is how many bytes before an offset TailCheck hashes.
const TailCheckBytes = 4096

// TailCheck hashes the offset and the up to TailCheckBytes bytes just before
// it: "tail-v1:<sha256 hex>". An index whose check no longer matches its
// file was built from other bytes and must not be used.
func TailCheck(r io.ReaderAt, offset int64) (string, error) {
	if offset < 0 {
		return "", fmt.Errorf("%w: tail check at negative offset %d", ErrInvalid, offset)
	}
	start := max(0, offset-TailCheckBytes)
	buf := make([]byte, offset-start)
	// ReadAt may report io.EOF with a full read at the end of the file.
	if n, err := r.ReadAt(buf, start); err != nil && !(err == io.EOF && n == len(buf)) {
		return "", fmt.Errorf("catalog: reading %d bytes before offset %d for the tail check: %w", len(buf), offset, err)
	}
	h := sha256.New()
	h.Write([]byte("tail-v1\x00" + strconv.FormatInt(offset, 10) + "\x00"))
	h.Write(buf)
	return "tail-v1:" + hex.EncodeToString(h.Sum(nil)), nil
}

// FileIdentity returns the device and inode of fi, which a rename or a
// rewrite by copy changes; ok is false where the platform has none.
func FileIdentity(fi os.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}
