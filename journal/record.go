package journal

import (
	"crypto/rand"
	"fmt"
	"time"

	"github.com/graft-project/graft/session"
)

// RecordVersion is the only record format this package reads and writes.
const RecordVersion = 1

// State is how far a transaction got; see doc.go for what each one promises.
type State string

const (
	Preparing     State = "PREPARING"
	TargetFlushed State = "TARGET_FLUSHED"
	ColdVerified  State = "COLD_VERIFIED"
	// Committed is written only by an etcd store (package etcdstore):
	// there the commit point is the one fenced write that moves a graft's
	// record from COLD_VERIFIED to COMMITTED, and the source's graft/retired
	// follows it. The file store never writes it: its commit point is the
	// graft/retired append itself, and its record is deleted once committed.
	Committed State = "COMMITTED"
)

// Kind is the transaction a record belongs to.
type Kind string

const (
	KindGraft  Kind = "graft"
	KindRevert Kind = "revert"
)

// Record is one transaction in flight, the file .txn/<txn>.json.
type Record struct {
	Version     int    `json:"version"`
	Txn         string `json:"txn"`
	Kind        Kind   `json:"kind"`
	State       State  `json:"state"`
	Source      string `json:"source"`
	Target      string `json:"target"`
	PreparedID  string `json:"preparedId,omitempty"`
	TapeHash    string `json:"tapeHash,omitempty"`
	TapeEvents  int    `json:"tapeEvents,omitempty"`  // events the target holds when complete
	TapeDigest  string `json:"tapeDigest,omitempty"`  // sha256 of the target's bytes as written
	TargetBytes int64  `json:"targetBytes,omitempty"` // size of the target as written
	BoundarySeq int64  `json:"boundarySeq,omitempty"`
	// SourceSeq is the last seq of the source the tape was built from: the
	// graft/retired goes right after it. Recovery on an etcd store
	// appends a decided mark and warns when the source went past it.
	SourceSeq  int64 `json:"sourceSeq,omitempty"`
	Generation int   `json:"generation,omitempty"`
	// Reverts is, in a revert record, the txn of the graft being undone:
	// recovery rolls the revert forward when the source holds graft/unretired
	// for it.
	Reverts string `json:"reverts,omitempty"`
	// Owe, in the record of a handoff's graft, is the host session the
	// committed target is owed to: the export the handoff runs after the
	// commit. Recording the lineage records it in the catalog too
	// (catalog.Owed), where it stays until the export is bound.
	Owe     *Owe   `json:"owe,omitempty"`
	Created string `json:"created"` // RFC 3339
	Updated string `json:"updated"` // RFC 3339
	// Sum is the checksum of the record's bytes as written: set by Encode,
	// checked and cleared by Decode and Read (doc.go).
	Sum string `json:"sum,omitempty"`
}

// Owe is the export a handoff owes its host (doc.go).
type Owe struct {
	Host        string `json:"host"`        // a host's name in the registry (package hosts)
	Cwd         string `json:"cwd"`         // the new host session's working directory (a real path)
	Root        string `json:"root"`        // the host's folder the export goes under ($CLAUDE_CONFIG_DIR, $CODEX_HOME)
	HostSession string `json:"hostSession"` // the host session handed off (the source's)
}

// Validate checks what recovery relies on: the version, a txn id usable as a
// file name, a known kind and state, valid source and target session ids,
// and RFC 3339 timestamps where set.
func (r Record) Validate() error {
	if r.Version != RecordVersion {
		return fmt.Errorf("%w: version %d, this build reads version %d", ErrInvalidRecord, r.Version, RecordVersion)
	}
	if err := ValidTxnID(r.Txn); err != nil {
		return err
	}
	switch r.Kind {
	case KindGraft, KindRevert:
	default:
		return fmt.Errorf("%w %s: unknown kind %q (want %q or %q)", ErrInvalidRecord, r.Txn, r.Kind, KindGraft, KindRevert)
	}
	switch r.State {
	case Preparing, TargetFlushed, ColdVerified, Committed:
	default:
		return fmt.Errorf("%w %s: unknown state %q (want %s, %s, %s or %s)", ErrInvalidRecord, r.Txn, r.State, Preparing, TargetFlushed, ColdVerified, Committed)
	}
	if err := session.ValidID(r.Source); err != nil {
		return fmt.Errorf("%w %s: source: %w", ErrInvalidRecord, r.Txn, err)
	}
	if err := session.ValidID(r.Target); err != nil {
		return fmt.Errorf("%w %s: target: %w", ErrInvalidRecord, r.Txn, err)
	}
	if o := r.Owe; o != nil && (o.Host == "" || o.Cwd == "" || o.Root == "" || o.HostSession == "") {
		return fmt.Errorf("%w %s: owe %+v lacks a field", ErrInvalidRecord, r.Txn, *o)
	}
	if r.Source == r.Target {
		return fmt.Errorf("%w %s: source and target are both %q", ErrInvalidRecord, r.Txn, r.Source)
	}
	for _, ts := range []struct{ name, value string }{{"created", r.Created}, {"updated", r.Updated}} {
		if ts.value == "" {
			continue
		}
		if _, err := time.Parse(time.RFC3339Nano, ts.value); err != nil {
			return fmt.Errorf("%w %s: %s %q is not RFC 3339: %v", ErrInvalidRecord, r.Txn, ts.name, ts.value, err)
		}
	}
	return nil
}

// ValidTxnID refuses a txn id that is not a valid session-style id, so it is
// always a safe file name.
func ValidTxnID(txn string) error {
	if err := session.ValidID(txn); err != nil {
		return fmt.Errorf("%w: txn id: %w", ErrInvalidRecord, err)
	}
	return nil
}

// txnTimeLayout is fixed-width so that ids sort by creation time.
const txnTimeLayout = "20060102T150405.000Z"

// NewTxnID returns "txn-<UTC time to the millisecond>-<10 random base32
// characters>": sortable by time, unique without coordination, and a valid
// session id and file name.
func NewTxnID(now time.Time) string {
	return "txn-" + now.UTC().Format(txnTimeLayout) + "-" + rand.Text()[:10]
}
