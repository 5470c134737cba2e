package session

import (
	"sync/atomic"

	"github.com/graft-project/graft/session/logscan"
)

// DecodeFast exposes the decoder's fast path to the external tests: they
// must know that a line was decoded by it, not by the encoding/json
// fallback, or comparing the two would prove nothing. fold selects the
// mode of ScanFold.
func DecodeFast(line []byte, fold bool) (*Event, bool) {
	d := lineDecoder{Decoder: &logscan.Decoder{}, mode: decodeAll}
	if fold {
		d.mode = decodeFold
	}
	ev := &Event{}
	return ev, d.decodeFast(line, ev)
}

// DecodeLine is what Scan decodes a line with: the fast path, else
// encoding/json.
func DecodeLine(line []byte) (*Event, error) {
	ev := &Event{}
	return ev, decodeLine(line, ev)
}

// longLines counts, across the scans of the test binary, what
// longLinesSeen is told: the scans' own counters are plain ints, read
// once their pipeline has stopped, so that counting costs the scans
// nothing.
var longLines struct{ streamed, reread atomic.Int64 }

func init() {
	longLinesSeen = func(streamed, reread int) {
		longLines.streamed.Add(int64(streamed))
		longLines.reread.Add(int64(reread))
	}
}

// LongLines is how many long lines ScanFoldSums has decoded as it read
// them, and how many it read again whole, since the test binary started.
func LongLines() (streamed, reread int64) {
	return longLines.streamed.Load(), longLines.reread.Load()
}
