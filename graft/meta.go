package graft

import (
	"encoding/json"
	"time"

	"github.com/graft-project/graft/catalog"
	"github.com/graft-project/graft/recovery"
)

// LastRecovery is the last recovery scan that found something, as the
// catalog keeps it under "last-recovery".
type LastRecovery struct {
	At     time.Time        `json:"at"`
	Report *recovery.Report `json:"report"`
	Error  string           `json:"error,omitempty"`
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (s *Service) putMeta(key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.cat().With(func(db *catalog.DB) error { return db.PutMeta(key, b) })
}
