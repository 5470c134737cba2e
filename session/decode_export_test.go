package session

// DecodeFast exposes the decoder's fast path to the external tests: they
// must know that a line was decoded by it, not by the encoding/json
// fallback, or comparing the two would prove nothing. fold selects the
// mode of ScanFold.
func DecodeFast(line []byte, fold bool) (*Event, bool) {
	d := lineDecoder{mode: decodeAll}
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

// LongLines is how many long lines ScanFoldSums has decoded as it read
// them, and how many it read again whole, since the test binary started.
func LongLines() (streamed, reread int64) {
	return longLines.streamed.Load(), longLines.reread.Load()
}
