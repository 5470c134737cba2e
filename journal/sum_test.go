package journal

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
	"github.com/graft-project/graft/vfs"
)

// A record decides what recovery does to two sessions: a byte of it
// changed that still decodes (a source id one digit off names another
// session, whose missing graft/retired would roll a committed graft back)
// must never be acted on. Every byte of an encoded record changed: it
// decodes as written, or it is refused; never as another record.
func TestADamagedRecordIsRefused(t *testing.T) {
	in := record("txn-20260304T050607.890Z-abcdefghij")
	in.Owe = &Owe{Host: "claude-code", Cwd: "/w", Root: "/r", HostSession: "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8"}
	in.SourceSeq = 41
	raw, err := Encode(in, t0)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(`"sum": "sha256:`)) {
		t.Fatalf("no checksum in %s", raw)
	}
	want, err := Decode(raw, in.Txn)
	if err != nil {
		t.Fatal(err)
	}
	if want.Source != in.Source || want.Target != in.Target || want.Sum != "" {
		t.Fatalf("round trip: %+v", want)
	}
	testfixtures.EveryByteChanged(t, raw, []byte{0x01, 0x20}, want, func(b []byte) (Record, error) { return Decode(b, in.Txn) },
		func(error) bool { return true })
	// A record written before the checksum decodes as it did.
	legacy := `{"version": 1, "txn": "` + in.Txn + `", "kind": "graft", "state": "PREPARING", "source": "src", "target": "dst", "created": "2026-03-04T05:06:07.89Z", "updated": "2026-03-04T05:06:07.89Z"}`
	if r, err := Decode([]byte(legacy), in.Txn); err != nil || r.Source != "src" {
		t.Fatalf("a record without a checksum: %+v, %v", r, err)
	}
}

// Read names a record whose checksum does not match as corrupt: reported
// and left in place as evidence, as every corrupt record is.
func TestReadRefusesARecordWhoseChecksumDoesNotMatch(t *testing.T) {
	j, _ := openAt(t, vfs.Default, t0)
	in := record("txn-b")
	if err := j.Write(in); err != nil {
		t.Fatal(err)
	}
	data, err := j.readFile(j.Path("txn-b"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(data), `"source": "src"`, `"source": "srd"`, 1)
	if changed == string(data) {
		t.Fatalf("no source in %s", data)
	}
	if err := vfs.Default.WriteFileAtomic(j.Path("txn-b"), []byte(changed), FileMode); err != nil {
		t.Fatal(err)
	}
	_, err = j.Read("txn-b")
	var ce *CorruptRecordError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("Read of a changed record: %v, want a CorruptRecordError naming its checksum", err)
	}
	res, err := j.Scan()
	if err != nil || len(res.Corrupt) != 1 || len(res.Records) != 0 {
		t.Fatalf("Scan: %+v, %v; want the record reported corrupt", res, err)
	}
}
