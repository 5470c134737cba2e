package index

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"

	"github.com/graft-project/graft/vfs"
)

// lastVersion is the "v" of a last-match memo this build reads (1 had no
// checksum: read as none).
const lastVersion = 2

// lastMaxBytes bounds the read of a last-match memo: a longer file does
// not decode.
const lastMaxBytes = 16 << 20

// lastTailLabel labels the memo's tail check (doc.go: Tail check).
const lastTailLabel = "last-tail-v1"

const lastExt = ".last"

// LastPath is the last-match memo of session id (id must be valid).
func LastPath(home, id string) string { return filepath.Join(home, DirName, id+lastExt) }

// Last is a last-match memo, index/<id>.last: the newest event of the log
// before Offset (a line boundary) that a query (Key) accepted, or none, so
// that the next look for it reads only what was appended since (doc.go).
type Last struct {
	Version int    `json:"v"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Offset  int64  `json:"offset"`
	Tail    string `json:"tail"`
	Key     string `json:"key"`
	// Event is the log line of the newest accepted event before Offset;
	// empty when there is none.
	Event json.RawMessage `json:"event,omitempty"`
	// Sum is the checksum of the rest (ContentSum of its JSON with Sum
	// empty).
	Sum string `json:"sum"`
}

// ReadLast returns the last-match memo of id when it is for key and still
// fits the open log f, of identity dev, ino and the given size: the same
// file, at least Offset bytes long, the same tail check. A missing memo is
// (nil, "", nil); one that does not fit or does not decode is nil with the
// reason; err is an I/O failure reading the memo or the log.
func ReadLast(fsys vfs.FS, home, id, key string, f io.ReaderAt, dev, ino uint64, size int64) (*Last, string, error) {
	path := LastPath(home, id)
	r, _, reason, err := openFile(fsys, path)
	if r == nil {
		return nil, reason, err
	}
	data, err := io.ReadAll(io.LimitReader(r, lastMaxBytes))
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", fmt.Errorf("index: reading the last-match memo %s: %w", path, err)
	}
	var m Last
	switch {
	case json.Unmarshal(data, &m) != nil || m.Version != lastVersion:
		return nil, "it does not decode as version " + strconv.Itoa(lastVersion), nil
	case !sumHolds(&m, &m.Sum):
		return nil, "its checksum does not match: it is damaged", nil
	case m.Key != key:
		return nil, "it is another query's", nil
	case m.Dev != dev || m.Ino != ino:
		return nil, "the log is another file now", nil
	case m.Offset <= 0 || m.Offset > size:
		return nil, "the log is shorter than its offset", nil
	}
	tail, err := tailSum(lastTailLabel, f, m.Offset)
	if err != nil {
		return nil, "", fmt.Errorf("index: checking the last-match memo %s against its log: %w", path, err)
	}
	if tail != m.Tail {
		return nil, "the log's bytes before its offset changed", nil
	}
	return &m, "", nil
}

// WriteLast replaces the last-match memo of id: for query key, the newest
// accepted event (its log line; nil for none) of the log f, of identity
// dev, ino, before offset, a line boundary. The write is durable.
func (w *Writer) WriteLast(id, key string, f io.ReaderAt, dev, ino uint64, offset int64, event []byte) error {
	tail, err := tailSum(lastTailLabel, f, offset)
	if err != nil {
		return fmt.Errorf("index: tail check of %s for its last-match memo: %w", id, err)
	}
	m := Last{Version: lastVersion, Dev: dev, Ino: ino, Offset: offset, Tail: tail, Key: key, Event: event}
	data, err := jsonWithSum(&m, &m.Sum)
	if err != nil {
		return fmt.Errorf("index: encoding the last-match memo of %s: %w", id, err)
	}
	return w.write("the last-match memo", id+lastExt, data, true)
}
