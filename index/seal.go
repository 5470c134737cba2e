package index

import (
	"bytes"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
)

// Seal identifies the source bytes a review was built from, as a
// ScanIndex identifies those of its state: the same file (Dev, Ino), read
// to End (a line boundary, the log's size then), with Check its
// TailCheck(End). Info is the state fold's snapshot at End
// (session.Info.Snapshot), LastSeq the seq of the last line read. It is
// kept in the review (catalog.Prepared.Seal), beside the sealed tape.
type Seal struct {
	Dev     uint64          `json:"dev"`
	Ino     uint64          `json:"ino"`
	End     int64           `json:"end"`
	LastSeq int64           `json:"lastSeq"`
	Check   string          `json:"check"`
	Info    json.RawMessage `json:"info"`
	// Sum is the checksum of the rest (SetSum; doc.go: Checksums): a seal
	// without one, or whose one does not match, is not used.
	Sum string `json:"sum,omitempty"`
}

// SetSum sets the seal's checksum, once its Info is in.
func (s *Seal) SetSum() error {
	_, err := jsonWithSum(s, &s.Sum) // kept inside the review's JSON, not alone
	return err
}

// Intact reports whether the seal holds its checksum (a copy is checked:
// s is left as it is).
func (s Seal) Intact() bool {
	return sumHolds(&s, &s.Sum)
}

// NewSeal seals the first end bytes of the open log f, of identity dev,
// ino, whose last line read is lastSeq. Info is the caller's to fill in.
func NewSeal(f io.ReaderAt, dev, ino uint64, end, lastSeq int64) (*Seal, error) {
	check, err := TailCheck(f, end)
	if err != nil {
		return nil, err
	}
	return &Seal{Dev: dev, Ino: ino, End: end, LastSeq: lastSeq, Check: check}, nil
}

// Holds reports whether the open log f, of FileInfo fi, is still the
// sealed bytes: the same file, End bytes long (not one byte appended),
// the same tail check. err is an I/O failure reading the log.
func (s *Seal) Holds(f io.ReaderAt, fi fs.FileInfo) (bool, error) {
	dev, ino, ok := FileIdentity(fi)
	if !ok || dev != s.Dev || ino != s.Ino || fi.Size() != s.End {
		return false, nil
	}
	check, err := TailCheck(f, s.End)
	if err != nil {
		return false, err
	}
	return check == s.Check, nil
}

// sealedTapeMagic starts a sealed tape (catalog bucket preparedtape): then
// a gob stream of one sealedTape.
const sealedTapeMagic = "graft-sealedtape-v1\n"

// sealedTape is what the gob stream holds: the tape (T is tape.Tape, which
// this package cannot import) and the digest of what a commit writes of
// it. gob matches fields by name, so the type's name is not part of the
// format.
type sealedTape[T any] struct {
	Tape   *T
	Digest [32]byte
}

// EncodeSealedTape frames tape t and digest, the caller's hash of what a
// commit writes of t, taken when t was built.
func EncodeSealedTape[T any](t *T, digest [32]byte) ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteString(sealedTapeMagic)
	if err := gob.NewEncoder(&buf).Encode(sealedTape[T]{Tape: t, Digest: digest}); err != nil {
		return nil, fmt.Errorf("index: encoding the sealed tape: %w", err)
	}
	return buf.Bytes(), nil
}

// DecodeSealedTape returns the tape and digest of a sealed tape; ok is
// false when it does not decode. The caller hashes the tape again and
// compares with digest: gob does not tell nil from empty, and a tape that
// does not round-trip exactly must not be written.
func DecodeSealedTape[T any](raw []byte) (t *T, digest [32]byte, ok bool) {
	body, found := bytes.CutPrefix(raw, []byte(sealedTapeMagic))
	if !found {
		return nil, digest, false
	}
	var st sealedTape[T]
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&st); err != nil || st.Tape == nil {
		return nil, digest, false
	}
	return st.Tape, st.Digest, true
}
