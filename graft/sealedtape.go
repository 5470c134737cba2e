package graft

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"fmt"

	"github.com/graft-project/graft/tape"
)

// The tape a sealed review keeps (catalog bucket preparedtape) is
// sealedTapeMagic and then a gob stream of one sealedTape: gob decodes it
// about four times faster than encoding/json decodes the same tape, and a
// commit pays that decode. Digest guards the round trip: it is sha256 of
// the JSON of the tape's Events and Inherit, what the target is written
// from, taken when the tape was built and checked again after decoding, so
// a codec difference (gob does not tell nil from empty) sends the commit
// to the rebuild instead of into the target.
const sealedTapeMagic = "graft-sealedtape-v1\n"

type sealedTape struct {
	Tape   *tape.Tape
	Digest [32]byte
}

// writtenDigest is what a commit writes of t, hashed.
func writtenDigest(t *tape.Tape) ([32]byte, error) {
	evs, err := json.Marshal(t.Events)
	if err != nil {
		return [32]byte{}, err
	}
	inh, err := json.Marshal(t.Inherit)
	if err != nil {
		return [32]byte{}, err
	}
	h := sha256.New()
	h.Write(evs)
	h.Write([]byte{0})
	h.Write(inh)
	var d [32]byte
	h.Sum(d[:0])
	return d, nil
}

func encodeSealedTape(t *tape.Tape) ([]byte, error) {
	d, err := writtenDigest(t)
	if err != nil {
		return nil, fmt.Errorf("graft: hashing the tape: %w", err)
	}
	var buf bytes.Buffer
	buf.WriteString(sealedTapeMagic)
	if err := gob.NewEncoder(&buf).Encode(sealedTape{Tape: t, Digest: d}); err != nil {
		return nil, fmt.Errorf("graft: encoding the tape: %w", err)
	}
	return buf.Bytes(), nil
}

// decodeSealedTape returns the stored tape; ok is false when it does not
// decode or does not write what was built.
func decodeSealedTape(raw []byte) (*tape.Tape, bool) {
	body, found := bytes.CutPrefix(raw, []byte(sealedTapeMagic))
	if !found {
		return nil, false
	}
	var st sealedTape
	if err := gob.NewDecoder(bytes.NewReader(body)).Decode(&st); err != nil || st.Tape == nil {
		return nil, false
	}
	d, err := writtenDigest(st.Tape)
	if err != nil || d != st.Digest {
		return nil, false
	}
	return st.Tape, true
}
