package session

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// infoSnapshotVersion is the "v" of an Info snapshot this build reads.
const infoSnapshotVersion = 1

// infoSnapshot is Info as JSON, its unexported fold state included: a
// scan index keeps it so that a later fold resumes at a byte offset.
// Sets are sorted lists, so equal states give equal bytes.
type infoSnapshot struct {
	Version   int         `json:"v"`
	ID        string      `json:"id"`
	Scan      ScanResult  `json:"scan"`
	Origin    *Event      `json:"origin,omitempty"`
	Grafts    []GraftMark `json:"grafts,omitempty"`
	Abandoned *Event      `json:"abandoned,omitempty"`
	LastHuman int64       `json:"lastHuman,omitempty"`
	OpenCalls []string    `json:"openCalls,omitempty"`
	Epilogue  []string    `json:"epilogue,omitempty"`
}

// ErrInfoSnapshot is wrapped by every RestoreInfo error.
var ErrInfoSnapshot = errors.New("session: bad state snapshot")

// Snapshot is the whole fold as bytes (JSON, "v" 1). RestoreInfo of it,
// then more Adds, folds exactly like one uninterrupted fold.
func (i *Info) Snapshot() ([]byte, error) {
	data, err := json.Marshal(infoSnapshot{
		Version: infoSnapshotVersion, ID: i.ID, Scan: i.ScanResult,
		Origin: i.Origin, Grafts: i.Grafts, Abandoned: i.Abandoned, LastHuman: i.LastHuman,
		OpenCalls: sortedKeys(i.openCalls), Epilogue: sortedKeys(i.epilogue),
	})
	if err != nil {
		return nil, fmt.Errorf("session: snapshot of the state of %s at seq %d: %w", i.ID, i.LastSeq, err)
	}
	return data, nil
}

// RestoreInfo resumes a fold from Snapshot bytes. Unknown fields and other
// versions are refused: a snapshot this build does not understand must not
// pass for one it does.
func RestoreInfo(data []byte) (*Info, error) {
	var s infoSnapshot
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInfoSnapshot, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%w: data after the snapshot", ErrInfoSnapshot)
	}
	if s.Version != infoSnapshotVersion {
		return nil, fmt.Errorf("%w: version %d, this build reads version %d", ErrInfoSnapshot, s.Version, infoSnapshotVersion)
	}
	if err := ValidID(s.ID); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInfoSnapshot, err)
	}
	info := &Info{ID: s.ID, ScanResult: s.Scan, Origin: s.Origin, Grafts: s.Grafts, Abandoned: s.Abandoned, LastHuman: s.LastHuman}
	if len(s.OpenCalls) > 0 {
		info.openCalls = make(map[string]bool, len(s.OpenCalls))
		for _, id := range s.OpenCalls {
			info.openCalls[id] = true
		}
	}
	if len(s.Epilogue) > 0 {
		info.epilogue = make(map[string]bool, len(s.Epilogue))
		for _, id := range s.Epilogue {
			info.epilogue[id] = true
		}
	}
	return info, nil
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
