package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// ScanIndex lets a fold of a grown log read only the new tail: the fold
// state at a line boundary of the file (doc.go: the scan index). It is
// kept in catalog.db (bucket scanindex), framed by Encode.
type ScanIndex struct {
	Session string `json:"session"`
	// Dev and Ino identify the file the index was built from.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
	// Offset is a line boundary; Line is the number of the line there.
	Offset  int64 `json:"offset"`
	Line    int   `json:"line"`
	NextSeq int64 `json:"nextSeq"`
	// Check is TailCheck(Offset), so a rewritten file is never trusted.
	Check string `json:"check"`
	// State is the fold at Offset (EncodeScanState), stored after the
	// JSON of the rest, not in it.
	State []byte `json:"-"`
}

// scanIndexMagic starts a stored scan index: the magic, the checksum of
// the rest as one line (ContentSum), the ScanIndex without its state as
// one line of JSON, then the state's bytes as they are. (Version 1 was one
// JSON object with the state in base64, which cost about 1 ms per 100 KiB
// of state to decode at every commit; version 2 had no checksum, and a
// damaged byte of its state that still decoded changed the tape.)
const scanIndexMagic = "graft-scanindex-v3\n"

// scanIndexMagicV2 starts a scan index of version 2, read as none.
const scanIndexMagicV2 = "graft-scanindex-v2\n"

// scanStateMagic starts the State of a ScanIndex: the magic, the state
// fold's snapshot (session.Info.Snapshot, one line of JSON) and "\n", then
// the tape builder's snapshot (tape.Builder.Snapshot) to the end. Version
// 1 was one JSON object {v, tape, info}, which a commit's drift check
// scanned twice (about 1.4 ms per 87 KiB).
const scanStateMagic = "graft-scanstate-v2\n"

// Encode is ix as catalog.db stores it.
func (ix ScanIndex) Encode() ([]byte, error) {
	head, err := json.Marshal(ix) // State is not in the JSON
	if err != nil {
		return nil, err
	}
	rest := make([]byte, 0, len(head)+1+len(ix.State))
	rest = append(append(append(rest, head...), '\n'), ix.State...)
	sum := ContentSum(rest)
	value := make([]byte, 0, len(scanIndexMagic)+len(sum)+1+len(rest))
	return append(append(append(append(value, scanIndexMagic...), sum...), '\n'), rest...), nil
}

// DecodeScanIndex reads a stored scan index. ok is false, with no error,
// for none (nil) and for one of version 1 or 2 (the caller builds a new
// one); err says why a value is not a scan index, or that its checksum
// does not match. The state is copied out of raw.
func DecodeScanIndex(raw []byte) (ix ScanIndex, ok bool, err error) {
	if raw == nil || bytes.HasPrefix(raw, []byte("{")) || bytes.HasPrefix(raw, []byte(scanIndexMagicV2)) {
		return ScanIndex{}, false, nil
	}
	rest, found := bytes.CutPrefix(raw, []byte(scanIndexMagic))
	var sum, head, state []byte
	if found {
		sum, rest, found = bytes.Cut(rest, []byte("\n"))
	}
	if found {
		if ContentSum(rest) != string(sum) {
			return ScanIndex{}, false, errors.New("its checksum does not match: it is damaged")
		}
		head, state, found = bytes.Cut(rest, []byte("\n"))
	}
	if !found {
		return ScanIndex{}, false, errors.New("not a scan index: no " + strings.TrimSpace(scanIndexMagic) + " header and checksum lines")
	}
	if err := decodeStrict(head, &ix); err != nil {
		return ScanIndex{}, false, err
	}
	ix.State = bytes.Clone(state)
	return ix, true, nil
}

// decodeStrict decodes one JSON value with no unknown field and nothing
// after it.
func decodeStrict(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	// dec.More would miss a stray '}' or ']': only EOF ends a value.
	switch _, err := dec.Token(); {
	case err == io.EOF:
		return nil
	case err != nil:
		return fmt.Errorf("data after the value: %w", err)
	default:
		return errors.New("data after the value")
	}
}

// EncodeScanState frames the two snapshots of a fold (see scanStateMagic).
func EncodeScanState(info, tape []byte) ([]byte, error) {
	if bytes.IndexByte(info, '\n') >= 0 {
		return nil, errors.New("the state fold's snapshot holds a newline")
	}
	out := make([]byte, 0, len(scanStateMagic)+len(info)+1+len(tape))
	return append(append(append(append(out, scanStateMagic...), info...), '\n'), tape...), nil
}

// DecodeScanState splits a State into the two snapshots; reason says why
// it cannot.
func DecodeScanState(state []byte) (info, tape []byte, reason string) {
	rest, ok := bytes.CutPrefix(state, []byte(scanStateMagic))
	if !ok {
		magic, _, _ := bytes.Cut(state, []byte("\n"))
		return nil, nil, fmt.Sprintf("its state is not %s (it starts %.40q)", strings.TrimSpace(scanStateMagic), magic)
	}
	info, tape, ok = bytes.Cut(rest, []byte("\n"))
	if !ok {
		return nil, nil, "its state does not decode: no line of the state fold's snapshot"
	}
	return info, tape, ""
}

// Fits checks ix against the open log of source, f, of the given size and
// identity (haveIdentity false: the platform gives none): the same file,
// at least Offset bytes long, the same tail check. reason says why the
// index cannot be used; err is an I/O failure reading the log. Whether the
// state restores, and to Offset, is the caller's to check.
func (ix ScanIndex) Fits(f io.ReaderAt, source string, size int64, dev, ino uint64, haveIdentity bool) (reason string, err error) {
	switch {
	case !haveIdentity:
		return "this platform gives no file identity (dev/ino) to check it against", nil
	case ix.Dev != dev || ix.Ino != ino:
		return fmt.Sprintf("the log is another file now (dev/ino %d/%d, the index was built from %d/%d): replaced or rewritten", dev, ino, ix.Dev, ix.Ino), nil
	case size < ix.Offset:
		return fmt.Sprintf("the log is %d bytes, shorter than the indexed %d: truncated", size, ix.Offset), nil
	case ix.Session != source:
		return fmt.Sprintf("the index names session %q", ix.Session), nil
	}
	check, err := TailCheck(f, ix.Offset)
	if err != nil {
		return "", fmt.Errorf("index: checking the scan index of %s: %w", source, err)
	}
	if check != ix.Check {
		return fmt.Sprintf("the %d bytes before offset %d changed: rewritten", min(ix.Offset, TailCheckBytes), ix.Offset), nil
	}
	return "", nil
}
