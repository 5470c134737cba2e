package foldcache

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/graft-project/graft/session"
	"github.com/graft-project/graft/tape"
)

func sampleTape() *tape.Tape {
	return &tape.Tape{
		Events: []session.Event{
			{Type: session.TypeUserMessage, Source: session.Source{Kind: session.KindPlugin, Name: "graft"}, Text: "[graft:tape 1] [handoff]\nresume"},
			{Type: session.TypeAssistantMessage, Source: session.Source{Kind: session.KindAssistant}, Text: "Understood."},
		},
		Text: "[graft:tape 1] [handoff]\nresume\n\nUnderstood.", TapeChars: 40, SourceID: "s", Generation: 1,
		BoundarySeq: 7, LastSeq: 11, TapeHash: "graft-tape-v1:ab", PrefixHash: "graft-prefix-v2:cd",
		Inherit:   session.Inherited{Constraints: []session.Constraint{{Text: "never delete a log", Origin: session.Origin{Generation: 1, Session: "s", Seq: 1}}}},
		Leftovers: []tape.Leftover{{Target: "s.g2", Txn: "txn-1", State: "TARGET_FLUSHED", Reason: "rolled back"}},
	}
}

// The stored tape decodes to what was built; a wrong digest, a wrong
// magic, a cut stream, and a tape the codec cannot carry exactly (gob
// sends no zero value, so a pointer to false comes back nil) all refuse.
func TestSealedTapeRoundTrip(t *testing.T) {
	in := sampleTape()
	raw, err := encodeSealedTape(in)
	if err != nil {
		t.Fatal(err)
	}
	out, ok := decodeSealedTape(raw)
	if !ok || !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip: ok %v\n got %+v\nwant %+v", ok, out, in)
	}
	if _, ok := decodeSealedTape(append([]byte("graft-sealedtape-v9\n"), raw[len("graft-sealedtape-v1\n"):]...)); ok {
		t.Error("another magic decoded")
	}
	if _, ok := decodeSealedTape(raw[:len(raw)-5]); ok {
		t.Error("a cut stream decoded")
	}
	tampered := bytes.Replace(raw, []byte("Understood."), []byte("Understand."), 1)
	if bytes.Equal(tampered, raw) {
		t.Fatal("the tamper changed nothing")
	}
	if _, ok := decodeSealedTape(tampered); ok {
		t.Error("a tape whose event text changed after hashing decoded")
	}
	lossy := sampleTape()
	no := false
	lossy.Events[1].Tool = &session.Tool{Name: "Bash", CallID: "c1", OK: &no}
	raw, err = encodeSealedTape(lossy)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := decodeSealedTape(raw); ok {
		t.Error(`a tape gob cannot carry exactly ("ok": false) decoded; its target would differ`)
	}
}
