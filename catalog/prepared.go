package catalog

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/graft-project/graft/index"
	"github.com/graft-project/graft/session"
)

// Prepared is a review prepare showed the user, kept until a commit uses it
// or it expires. Unlike the rest of the catalog it is not derived from the
// logs: it is the record of what the user approved.
type Prepared struct {
	ID           string `json:"id"`
	Source       string `json:"source"`
	Tier         string `json:"tier"`
	RecentTurns  int    `json:"recentTurns"`
	AutoTier     bool   `json:"autoTier"`
	Budget       int    `json:"budget"`
	AllowReslice bool   `json:"allowReslice"`

	BoundarySeq int64 `json:"boundarySeq"`
	LastSeq     int64 `json:"lastSeq"`
	Generation  int   `json:"generation"`

	PrefixHash     string `json:"prefixHash"`
	TapeHash       string `json:"tapeHash"`
	TapeChars      int    `json:"tapeChars"`
	CarryoverChars int    `json:"carryoverChars"`

	// Review is the full review JSON as shown to the user, tape text included.
	Review json.RawMessage `json:"review,omitempty"`
	// Seal says which bytes of the source the review was built from; with
	// it, PutReview stores the built tape (PreparedTape), and a commit that
	// finds the log still so uses that tape instead of folding the log
	// again. Absent when the platform gives no file identity or the log
	// had a torn last line. Its format and checks are index's (index/doc.go).
	Seal *index.Seal `json:"seal,omitempty"`

	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
	// UsedBy is the txn id of the commit that consumed the review.
	UsedBy string `json:"usedBy,omitempty"`
}

// idTimeLayout is fixed-width so that ids sort by creation time.
const idTimeLayout = "20060102T150405.000Z"

// NewPreparedID returns "prep-<UTC time to the millisecond>-<10 random
// base32 characters>": sortable, unguessable enough that a typo never hits
// another review, and a valid session-style id.
func NewPreparedID(now time.Time) string {
	return "prep-" + now.UTC().Format(idTimeLayout) + "-" + rand.Text()[:10]
}

func (p Prepared) validate() error {
	if err := session.ValidID(p.ID); err != nil {
		return fmt.Errorf("%w: preparedId: %w", ErrInvalid, err)
	}
	if err := session.ValidID(p.Source); err != nil {
		return fmt.Errorf("%w: prepared %s: source: %w", ErrInvalid, p.ID, err)
	}
	if p.Expires.IsZero() {
		return fmt.Errorf("%w: prepared %s has no expiry", ErrInvalid, p.ID)
	}
	if p.UsedBy != "" {
		if err := session.ValidID(p.UsedBy); err != nil {
			return fmt.Errorf("%w: prepared %s: usedBy: %w", ErrInvalid, p.ID, err)
		}
	}
	return nil
}

// PutReview stores (or replaces) a prepared review and, when p has a Seal,
// the tape built for it (opaque bytes here: index.EncodeSealedTape) in bucket
// preparedtape, in one transaction. A review without a Seal has no tape.
func (db *DB) PutReview(p Prepared, tape []byte) error {
	if err := p.validate(); err != nil {
		return err
	}
	if (p.Seal != nil) != (len(tape) > 0) {
		return fmt.Errorf("%w: prepared %s: a sealed review needs its tape, and only a sealed one has one", ErrInvalid, p.ID)
	}
	return db.update("putting prepared "+p.ID, func(tx Tx) error {
		if err := db.putExpiry(tx, p); err != nil {
			return err
		}
		if err := putJSON(tx, bucketPrepared, p.ID, p); err != nil {
			return err
		}
		if len(tape) == 0 {
			return tx.Delete(bucketPreparedTape, p.ID)
		}
		return tx.Put(bucketPreparedTape, p.ID, tape)
	})
}

// PreparedTape returns the tape stored with a sealed review; ok is false
// when there is none.
func (db *DB) PreparedTape(id string) (tape []byte, ok bool, err error) {
	err = db.view("reading the tape of prepared "+id, func(tx Tx) error {
		v, err := tx.Get(bucketPreparedTape, id)
		tape, ok = v, v != nil
		return err
	})
	return tape, ok, err
}

// PeekPrepared returns a prepared review whether expired or used (for
// show --prepared).
func (db *DB) PeekPrepared(id string) (Prepared, error) {
	var p Prepared
	err := db.view("reading prepared "+id, func(tx Tx) error {
		var err error
		p, err = db.loadPrepared(tx, id)
		return err
	})
	return p, err
}

func (db *DB) loadPrepared(tx Tx, id string) (Prepared, error) {
	var p Prepared
	ok, err := db.getJSON(tx, bucketPrepared, id, &p)
	if err != nil {
		return Prepared{}, err
	}
	if !ok {
		return Prepared{}, &UnknownPreparedError{ID: id}
	}
	return p, nil
}

// usable refuses a review a commit must not use: already used (by another
// txn than txn), or expired at now (Expires itself counts as expired).
func usable(p Prepared, txn string, now time.Time) error {
	if p.UsedBy != "" && p.UsedBy != txn {
		return &UsedPreparedError{ID: p.ID, Txn: p.UsedBy}
	}
	if !now.Before(p.Expires) {
		return &ExpiredPreparedError{ID: p.ID, Expires: p.Expires, Now: now}
	}
	return nil
}

// GetPrepared returns the review a commit may use: *UnknownPreparedError,
// *UsedPreparedError or *ExpiredPreparedError otherwise.
func (db *DB) GetPrepared(id string, now time.Time) (Prepared, error) {
	p, err := db.PeekPrepared(id)
	if err != nil {
		return Prepared{}, err
	}
	if err := usable(p, "", now); err != nil {
		return Prepared{}, err
	}
	return p, nil
}

// markUsed records that transaction txn consumed the review (lineage
// records it with the node): again with the same txn a no-op, with
// another a *UsedPreparedError.
func (db *DB) markUsed(tx Tx, id, txn string) error {
	p, err := db.loadPrepared(tx, id)
	if err != nil {
		return err
	}
	switch p.UsedBy {
	case txn:
		return nil
	case "":
		p.UsedBy = txn
		return putJSON(tx, bucketPrepared, id, p)
	default:
		return &UsedPreparedError{ID: id, Txn: p.UsedBy}
	}
}

// Expiry index. Every review PutReview stores has a key in bucket
// preparedexpiry, "<expires>/<preparedId>" with expires in UTC at a fixed
// width (expiryLayout), so that keys sort by expiry; its value is the
// preparedId. PurgeExpired walks those keys in order up to now and reads
// no live review: a prepare (one a turn once a hook prepares) does not pay
// for every review of the last 24 hours. Reviews stored before the index
// existed, or by an older graft beside this one, have no key: the first
// purge of a catalog without meta key expiryIndexed, and every full purge
// (PurgeExpiredFull: graft recover), walks every review, purges the
// expired and indexes the rest anew.

// expiryLayout is fixed-width: its keys sort as their times do.
const expiryLayout = "20060102T150405.000000000Z"

// expiryIndexed is the meta key a full purge writes: every review stored
// since has its expiry key.
const expiryIndexed = "catalog.preparedexpiry"

func expiryKey(expires time.Time, id string) string {
	return expires.UTC().Format(expiryLayout) + "/" + id
}

// putExpiry indexes review p, dropping the key of the record it replaces
// when that expired at another time.
func (db *DB) putExpiry(tx Tx, p Prepared) error {
	var old struct {
		Expires time.Time `json:"expires"`
	}
	raw, err := tx.Get(bucketPrepared, p.ID)
	if err != nil {
		return err
	}
	if raw != nil {
		if err := json.Unmarshal(raw, &old); err != nil {
			return &CorruptValueError{Path: db.name, Bucket: bucketPrepared, Key: p.ID, Err: err}
		}
		if !old.Expires.Equal(p.Expires) {
			if err := tx.Delete(bucketPreparedExpiry, expiryKey(old.Expires, p.ID)); err != nil {
				return err
			}
		}
	}
	return tx.Put(bucketPreparedExpiry, expiryKey(p.Expires, p.ID), []byte(p.ID))
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// PurgeExpired deletes every review expired at now, used or not, with its
// tape, and says how many: through the expiry index, reading only the
// expired reviews' keys, the oldest first, purgeBatch of them a
// transaction, once the catalog's reviews are indexed (else as
// PurgeExpiredFull). An error after some batches landed says how many
// were deleted. An index key that does not parse stops it with an
// error naming it; a key whose review is gone (an older graft purged it)
// is dropped and not counted.
func (db *DB) PurgeExpired(now time.Time) (int, error) {
	// A read first: most prepares find nothing expired, and a write
	// transaction costs an fsync even when it writes nothing.
	due := false
	err := db.view("looking for expired prepared reviews", func(tx Tx) error {
		keys, indexed, err := db.expiredKeys(tx, now)
		due = !indexed || len(keys) > 0
		return err
	})
	if err != nil || !due {
		return 0, err
	}
	total := 0
	for more := true; more; {
		// One transaction a batch: every batch deletes the keys it found,
		// so the loop ends.
		n := 0
		err = db.update("purging expired prepared reviews", func(tx Tx) error {
			keys, indexed, err := db.expiredKeys(tx, now)
			if err != nil {
				return err
			}
			if !indexed {
				more = false
				n, err = db.purgeAll(tx, now)
				return err
			}
			more = len(keys) == purgeBatch
			// Deleted after the walk: deleting under a moving cursor can skip keys.
			for _, key := range keys {
				_, id, _ := strings.Cut(key, "/")
				raw, err := tx.Get(bucketPrepared, id)
				if err != nil {
					return err
				}
				if raw != nil {
					n++
				}
				if err := db.deleteReview(tx, id); err != nil {
					return err
				}
				if err := tx.Delete(bucketPreparedExpiry, key); err != nil {
					return fmt.Errorf("deleting %s: %w", key, err)
				}
			}
			return nil
		})
		if err != nil {
			return total, err
		}
		total += n
	}
	return total, nil
}

// purgeBatch bounds the reviews one PurgeExpired transaction deletes: on
// etcd a transaction compares every review it reads and holds three
// deletes per review (etcdstore: at most 120 operations, half of them
// compares).
const purgeBatch = 16

// expiredKeys are the expiry keys of the reviews expired at now, the
// oldest first, at most purgeBatch; indexed is false when the catalog
// lacks the mark that every review has its key (then keys is nil).
func (db *DB) expiredKeys(tx Tx, now time.Time) (keys []string, indexed bool, err error) {
	mark, err := tx.Get(bucketMeta, expiryIndexed)
	if err != nil || mark == nil {
		return nil, false, err
	}
	upTo := now.UTC().Format(expiryLayout)
	err = tx.Each(bucketPreparedExpiry, "", func(key string, value []byte) error {
		at, id, ok := strings.Cut(key, "/")
		if !ok || len(at) != len(expiryLayout) || id != string(value) {
			return &CorruptValueError{Path: db.name, Bucket: bucketPreparedExpiry, Key: key, Err: errors.New("not <expires>/<preparedId> with the id as its value")}
		}
		if at > upTo || len(keys) == purgeBatch {
			return errStop // Expires itself counts as expired: at == upTo is
		}
		keys = append(keys, key)
		return nil
	})
	if err != nil && err != errStop {
		return nil, true, err
	}
	return keys, true, nil
}

// PurgeExpiredFull is PurgeExpired reading every review (graft recover):
// it purges those an older graft stored without an expiry key too, and
// builds the index anew. A value that does not decode stops it with an
// error naming it.
func (db *DB) PurgeExpiredFull(now time.Time) (int, error) {
	n := 0
	err := db.update("purging expired prepared reviews", func(tx Tx) error {
		var err error
		n, err = db.purgeAll(tx, now)
		return err
	})
	if err != nil {
		return 0, err
	}
	return n, nil
}

// purgeAll walks every review: deletes the expired, indexes the rest into
// an emptied index, and marks the catalog indexed.
func (db *DB) purgeAll(tx Tx, now time.Time) (int, error) {
	var expired []string
	var live []Prepared
	err := db.each(tx, bucketPrepared, "", func() any { return new(Prepared) }, func(key string, v any) error {
		p := v.(*Prepared)
		if !now.Before(p.Expires) {
			expired = append(expired, key)
		} else {
			live = append(live, Prepared{ID: key, Expires: p.Expires})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// The index anew: the live reviews' keys and no other, writing only
	// what differs from the index as it is.
	want := map[string]bool{}
	for _, p := range live {
		want[expiryKey(p.Expires, p.ID)] = true
	}
	var stale []string
	err = tx.Each(bucketPreparedExpiry, "", func(key string, _ []byte) error {
		if want[key] {
			delete(want, key) // there already
		} else {
			stale = append(stale, key)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	// Deleted after the walks: deleting under a moving cursor can skip keys.
	for _, key := range stale {
		if err := tx.Delete(bucketPreparedExpiry, key); err != nil {
			return 0, fmt.Errorf("deleting %s: %w", key, err)
		}
	}
	for _, key := range expired {
		if err := db.deleteReview(tx, key); err != nil {
			return 0, err
		}
	}
	for _, p := range live {
		if key := expiryKey(p.Expires, p.ID); want[key] {
			if err := tx.Put(bucketPreparedExpiry, key, []byte(p.ID)); err != nil {
				return 0, err
			}
		}
	}
	return len(expired), tx.Put(bucketMeta, expiryIndexed, []byte("1"))
}

// deleteReview deletes a review and its tape.
func (db *DB) deleteReview(tx Tx, id string) error {
	if err := tx.Delete(bucketPrepared, id); err != nil {
		return fmt.Errorf("deleting %s: %w", id, err)
	}
	if err := tx.Delete(bucketPreparedTape, id); err != nil {
		return fmt.Errorf("deleting the tape of %s: %w", id, err)
	}
	return nil
}
