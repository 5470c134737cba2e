package index

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/graft-project/graft/vfs"
)

// stateVersion is the "v" of a state checkpoint this build reads (1 had
// no checksum: read as none, the log is folded whole once).
const stateVersion = 2

// stateMaxBytes bounds the read of a state checkpoint: a longer file does
// not decode.
const stateMaxBytes = 16 << 20

// State is a state checkpoint, index/<id>.state: the state fold of a log
// at a line boundary (doc.go).
type State struct {
	Version int    `json:"v"`
	Dev     uint64 `json:"dev"`
	Ino     uint64 `json:"ino"`
	Offset  int64  `json:"offset"`
	Line    int    `json:"line"`
	Tail    string `json:"tail"`
	// Info is the fold at Offset, session.Info.Snapshot's bytes.
	Info json.RawMessage `json:"info"`
	// Sum is the checksum of the rest (ContentSum of its JSON with Sum
	// empty): a damaged byte that still decodes is not trusted.
	Sum string `json:"sum"`
}

// ReadState returns the state checkpoint of id when it still fits the
// open log f, of identity dev, ino and the given size: the same file, at
// least Offset bytes long, the same tail check. A missing checkpoint is
// (nil, "", nil); one that does not fit or does not decode is nil with the
// reason; err is an I/O failure reading the checkpoint or the log (the
// disk is failing, and nothing graft reads hides that). Whether Info
// restores is the caller's to check.
func ReadState(fsys vfs.FS, home, id string, f io.ReaderAt, dev, ino uint64, size int64) (*State, string, error) {
	path := StatePath(home, id)
	r, _, reason, err := openFile(fsys, path)
	if r == nil {
		return nil, reason, err
	}
	data, err := io.ReadAll(io.LimitReader(r, stateMaxBytes))
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, "", fmt.Errorf("index: reading the state checkpoint %s: %w", path, err)
	}
	var st State
	switch {
	case json.Unmarshal(data, &st) != nil || st.Version != stateVersion:
		return nil, "it does not decode as version " + strconv.Itoa(stateVersion), nil
	case !sumHolds(&st, &st.Sum):
		return nil, "its checksum does not match: it is damaged", nil
	case st.Dev != dev || st.Ino != ino:
		return nil, "the log is another file now", nil
	case st.Offset <= 0 || st.Offset > size || st.Line < 1:
		return nil, "the log is shorter than its offset", nil
	}
	tail, err := stateTail(f, st.Offset)
	if err != nil {
		return nil, "", fmt.Errorf("index: checking the state checkpoint %s against its log: %w", path, err)
	}
	if tail != st.Tail {
		return nil, "the log's bytes before its offset changed", nil
	}
	return &st, "", nil
}

// WriteState replaces the state checkpoint of id: the fold info (Info
// Snapshot bytes) of the log f, of identity dev, ino, at offset, a line
// boundary where line number line starts. The write is durable (fsync of
// the file and of the directory).
func (w *Writer) WriteState(id string, f io.ReaderAt, dev, ino uint64, offset int64, line int, info []byte) error {
	tail, err := stateTail(f, offset)
	if err != nil {
		return fmt.Errorf("index: tail check of %s for its state checkpoint: %w", id, err)
	}
	st := State{Version: stateVersion, Dev: dev, Ino: ino, Offset: offset, Line: line, Tail: tail, Info: info}
	data, err := jsonWithSum(&st, &st.Sum)
	if err != nil {
		return fmt.Errorf("index: encoding the state checkpoint of %s: %w", id, err)
	}
	return w.write("the state checkpoint", id+stateExt, data, true)
}
