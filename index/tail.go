package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"syscall"
)

// ErrInvalid is wrapped by the errors of arguments no index can have (a
// negative offset).
var ErrInvalid = errors.New("index: invalid")

// TailCheckBytes is how many bytes before an offset a tail check hashes.
const TailCheckBytes = 4096

// Labels of the tail checks, one per format that stores one (doc.go: Tail
// check). The label is hashed first, so a check of one format never
// passes for another's.
const (
	tailLabel      = "tail-v1"       // the scan index and the seal: "tail-v1:<hex>"
	stateTailLabel = "state-tail-v1" // the state checkpoint: "<hex>"
)

// TailCheck is the check a scan index and a review's seal keep:
// "tail-v1:<hex SHA-256 of "tail-v1", NUL, offset in decimal, NUL, the up
// to TailCheckBytes bytes before offset>". An index whose check no longer
// matches its file was built from other bytes and must not be used.
func TailCheck(r io.ReaderAt, offset int64) (string, error) {
	sum, err := tailSum(tailLabel, r, offset)
	if err != nil {
		return "", err
	}
	return tailLabel + ":" + sum, nil
}

// stateTail is the state checkpoint's tail check: the bare hex sum, under
// its own label.
func stateTail(r io.ReaderAt, offset int64) (string, error) {
	return tailSum(stateTailLabel, r, offset)
}

// tailSum is the one tail check: the hex SHA-256 of label, NUL, offset in
// decimal, NUL, and the up to TailCheckBytes bytes before offset.
func tailSum(label string, r io.ReaderAt, offset int64) (string, error) {
	if offset < 0 {
		return "", fmt.Errorf("%w: tail check at negative offset %d", ErrInvalid, offset)
	}
	start := max(0, offset-TailCheckBytes)
	buf := make([]byte, offset-start)
	// ReadAt may report io.EOF with a full read at the end of the file.
	if n, err := r.ReadAt(buf, start); err != nil && !(err == io.EOF && n == len(buf)) {
		return "", fmt.Errorf("index: reading %d bytes before offset %d for the tail check: %w", len(buf), offset, err)
	}
	h := sha256.New()
	h.Write([]byte(label + "\x00" + strconv.FormatInt(offset, 10) + "\x00"))
	h.Write(buf)
	return hex.EncodeToString(h.Sum(nil)), nil
}

// FileIdentity returns the device and inode of fi, which a rename or a
// rewrite by copy changes; ok is false where the platform has none (then
// no index is used or written).
func FileIdentity(fi fs.FileInfo) (dev, ino uint64, ok bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, false
	}
	return uint64(st.Dev), st.Ino, true
}

// ContentSum is the checksum an index (and an import cursor) keeps of its
// own content, so that a damaged byte of a value that still decodes (a
// flipped digit, a letter of a constraint in a snapshot) is never
// trusted: "sha256:" and the hex SHA-256 of what it covers (doc.go:
// Checksums).
func ContentSum(data []byte) string {
	h := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(h[:])
}

// JSONWithSum is v encoded with its checksum: encoded with sum empty, then
// again with sum set to ContentSum of that; sum is the field's address in
// v, encode json.Marshal or an indenting one (the format's). The indexes
// keep theirs so, and so do the records that decide what graft does: a
// host binding, a journal record, an owed export.
func JSONWithSum(v any, sum *string, encode func(any) ([]byte, error)) ([]byte, error) {
	*sum = ""
	data, err := encode(v)
	if err != nil {
		return nil, err
	}
	*sum = ContentSum(data)
	return encode(v)
}

// SumHolds reports whether v, decoded, holds its checksum: v encoded with
// sum empty hashes to what sum said (v is left with sum empty). A field
// changed in a value or a name decodes to other fields, which do not.
func SumHolds(v any, sum *string, encode func(any) ([]byte, error)) bool {
	want := *sum
	*sum = ""
	data, err := encode(v)
	return err == nil && want != "" && ContentSum(data) == want
}

// Indented is json.MarshalIndent with a two-space indent: the encoding of
// the records written for a person to read (a binding, a journal record).
func Indented(v any) ([]byte, error) { return json.MarshalIndent(v, "", "  ") }

func jsonWithSum(v any, sum *string) ([]byte, error) { return JSONWithSum(v, sum, json.Marshal) }

func sumHolds(v any, sum *string) bool { return SumHolds(v, sum, json.Marshal) }
