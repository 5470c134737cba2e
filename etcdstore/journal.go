package etcdstore

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/graft-project/graft/journal"
)

// Journal is the records of transactions in flight under <root>/txn/: the
// same record format as .txn/ (package journal), one key per transaction.
// Every write is fenced on the locks of the record's target and source.
type Journal struct {
	s   *Store
	Now func() time.Time
}

// Journal returns the store's journal.
func (s *Store) Journal() *Journal { return &Journal{s: s, Now: time.Now} }

func (j *Journal) recordKey(txnID string) string { return j.s.key("txn", txnID) }

// Write stores r, only while this worker holds the locks of r's target
// and source (ErrFenced otherwise). journal.Committed is Decide's.
func (j *Journal) Write(r journal.Record) error {
	if r.State == journal.Committed {
		return fmt.Errorf("%w %s: COMMITTED is written by Decide only", journal.ErrInvalidRecord, r.Txn)
	}
	return j.put(r, "writing record "+r.Txn)
}

func (j *Journal) put(r journal.Record, what string) error {
	data, err := journal.Encode(r, j.Now())
	if err != nil {
		return err
	}
	cmps, err := j.s.fence(r.Target, r.Source)
	if err != nil {
		return err
	}
	ctx, cancel := j.s.ctx()
	defer cancel()
	resp, err := j.s.cli.Txn(ctx).If(cmps...).Then(clientv3.OpPut(j.recordKey(r.Txn), string(data))).Commit()
	if err != nil {
		return j.s.unavailable(what, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: %s (locks of %s and %s)", ErrFenced, what, r.Target, r.Source)
	}
	return nil
}

// Decide is the commit point of a transaction on this store: one etcd
// transaction that moves r's record to COMMITTED, only while this worker
// still holds the locks of r's target and source and the record is the
// one r was written as (not resolved meanwhile by another worker's
// recovery). A refusal is ErrFenced; a lost answer is ErrUnavailable, and
// then recovery reads the record to know.
func (s *Store) Decide(r journal.Record) (decided bool, err error) {
	j := s.Journal()
	r.State = journal.Committed
	data, err := journal.Encode(r, j.Now())
	if err != nil {
		return false, err
	}
	cmps, err := s.fence(r.Target, r.Source)
	if err != nil {
		return false, err
	}
	k := j.recordKey(r.Txn)
	cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(k), ">", 0))
	ctx, cancel := s.ctx()
	defer cancel()
	// One request: the decision, or (refused) what the record is now.
	resp, err := s.cli.Txn(ctx).If(cmps...).Then(clientv3.OpPut(k, string(data))).Else(clientv3.OpGet(k)).Commit()
	if err != nil {
		return false, s.unavailable("deciding "+r.Txn, err)
	}
	if resp.Succeeded {
		return true, nil
	}
	if len(resp.Responses[0].GetResponseRange().Kvs) == 0 {
		// Only the holder of the locks writes or removes a record: gone
		// under us, it was resolved by another worker's recovery, which
		// could take the locks because this worker's lease had expired.
		return false, fmt.Errorf("%w: deciding %s: its record is gone (another worker's recovery resolved it after this worker's lease expired)", ErrFenced, r.Txn)
	}
	return false, fmt.Errorf("%w: deciding %s (the locks of %s and %s are no longer this worker's)", ErrFenced, r.Txn, r.Target, r.Source)
}

// Read loads the record of txnID: journal.ErrNotFound when there is none,
// a *journal.CorruptRecordError when it does not parse.
func (j *Journal) Read(txnID string) (journal.Record, error) {
	if err := journal.ValidTxnID(txnID); err != nil {
		return journal.Record{}, err
	}
	k := j.recordKey(txnID)
	ctx, cancel := j.s.ctx()
	defer cancel()
	resp, err := j.s.cli.Get(ctx, k)
	if err != nil {
		return journal.Record{}, j.s.unavailable("reading "+k, err)
	}
	if len(resp.Kvs) == 0 {
		return journal.Record{}, fmt.Errorf("%w: %s", journal.ErrNotFound, k)
	}
	r, err := journal.Decode(resp.Kvs[0].Value, txnID)
	if err != nil {
		return journal.Record{}, &journal.CorruptRecordError{Path: k, Err: err}
	}
	return r, nil
}

// Remove deletes the record, fenced like Write. A missing record is
// journal.ErrNotFound.
func (j *Journal) Remove(txnID string) error {
	r, err := j.Read(txnID)
	var ce *journal.CorruptRecordError
	if errors.As(err, &ce) {
		return fmt.Errorf("removing %s: %w", txnID, err)
	}
	if err != nil {
		return err
	}
	cmps, err := j.s.fence(r.Target, r.Source)
	if err != nil {
		return err
	}
	k := j.recordKey(txnID)
	ctx, cancel := j.s.ctx()
	defer cancel()
	resp, err := j.s.cli.Txn(ctx).If(cmps...).Then(clientv3.OpDelete(k)).Commit()
	if err != nil {
		return j.s.unavailable("removing "+k, err)
	}
	if !resp.Succeeded {
		return fmt.Errorf("%w: removing %s", ErrFenced, k)
	}
	if resp.Responses[0].GetResponseDeleteRange().Deleted == 0 {
		return fmt.Errorf("%w: %s", journal.ErrNotFound, k)
	}
	return nil
}

// Scan lists the records, sorted by txn id; a value that is not a record
// is reported corrupt and left in place as evidence.
func (j *Journal) Scan() (journal.ScanResult, error) {
	pfx := j.recordKey("")
	ctx, cancel := j.s.ctx()
	defer cancel()
	resp, err := j.s.cli.Get(ctx, pfx, clientv3.WithPrefix())
	if err != nil {
		return journal.ScanResult{}, j.s.unavailable("listing "+pfx, err)
	}
	res := journal.ScanResult{Swept: []string{}, FreshTemps: []string{}}
	for _, kv := range resp.Kvs {
		id := strings.TrimPrefix(string(kv.Key), pfx)
		r, err := journal.Decode(kv.Value, id)
		if err != nil {
			res.Corrupt = append(res.Corrupt, journal.CorruptRecordError{Path: string(kv.Key), Err: err})
			continue
		}
		res.Records = append(res.Records, r)
	}
	sort.Slice(res.Records, func(a, b int) bool { return res.Records[a].Txn < res.Records[b].Txn })
	return res, nil
}
