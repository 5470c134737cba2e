// Package etcdstore is graft's store on an etcd cluster: what the file
// store keeps in one home (flocks in locks/, records in .txn/, catalog.db)
// kept where workers on many machines share it, with the official client
// (go.etcd.io/etcd/client/v3 and its concurrency package). The event logs
// stay in the home's sessions/, on a path every worker reaches; this
// package owns the keys under the store's prefix and the home's marker.
//
// # URL
//
//	etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s]
//
// prefix is one or more parts of [A-Za-z0-9._-] joined by '/' (not "." or
// ".."); every key below starts with "/" + prefix (the root). lease is the
// TTL of a worker's lease, whole seconds, at least MinLease (default
// DefaultLease): how long after a crash or a pause the worker's locks and
// records are taken over. timeout bounds every request (default
// DefaultTimeout): an unreachable cluster, or one without quorum, is an
// ErrUnavailable after it, never a hang.
//
// # Keys
//
//	<root>/format                      "graft-etcd-v1" (Format), written by the first worker
//	<root>/locks/<name>/<lease hex>    a session's lock: a concurrency mutex, the key under
//	                                   the holder's lease (empty value); the oldest key holds it
//	<root>/txn/<txn-id>                a transaction record: the bytes of journal.Encode
//	                                   (journal/doc.go), state PREPARING … COMMITTED
//	<root>/catalog/<bucket>/<key>      the catalog (catalog/doc.go): the same buckets, keys
//	                                   and JSON values as catalog.db
//	<root>/hosts/<host>/<uuid>         a host binding (hosts/doc.go): the JSON of
//	                                   hosts/<host>/<uuid>.json in a file home
//
// The home keeps sessions/, imports/ and index/ (and locks/ for the flock
// of a log's append); it gets no .txn/, catalog.db or hosts/.
//
// In the home, the file etcd-store (MarkerName) holds "etcd <root>\n": the
// file store refuses a home that has it (CheckFileHome), and this store
// refuses a home with file-store state, catalog.db or a record in .txn/,
// which the other workers could not see (ClaimHome). Both are ErrHome.
//
// # Locks and fencing
//
// A worker has one lease, kept alive by the client while the process
// runs; it is granted on the first lock and revoked by Close. A lock
// (TryLock) is a mutex under it: it dies with the worker, as a flock dies
// with its process. A worker paused past its lease (SIGSTOP, a VM frozen,
// a partition) has lost its locks when it runs again, whatever it
// believes: every write it makes for a transaction is an etcd transaction
// whose condition is that each of its mutex keys still exists with the
// revision it created (Mutex.IsOwner) — a record write, the decision, a
// record removal. A refused write is ErrFenced. Catalog updates are not
// fenced on the session locks: what they write is derived from the logs
// (lineage, leftovers, indexes) or a review, and the commit point never
// reads it.
//
// # The catalog
//
// A catalog update (package catalog's Backend) reads at one revision,
// buffers its writes, and commits them in one etcd transaction whose
// condition is that every key it read still has the mod revision it read
// (0: still absent) and no key of a range it listed is newer than that
// revision; when another update won the race it runs again on the new
// state (up to 16 times, then catalog.ErrBusy). Updates of different
// sessions touch different keys and never wait for each other. A view
// reads at one revision. A second TryLock of a name this worker holds
// is refused too (txn.ErrLocked), as a second flock of one file is.
//
// # The commit point
//
// On this store a graft's commit point is Decide: one etcd transaction
// that moves the record from COLD_VERIFIED to COMMITTED, only while the
// worker holds the locks of its target and source and the record still
// exists. The graft/retired append to the source's log follows it, under
// the same locks; a crash between the two leaves a COMMITTED record, and
// recovery appends the mark (recovery/doc.go). Until the mark is in the
// log, readers of the logs see the source active and the target not yet
// live: no target passes for committed before its source names it. A
// revert is decided the same way before its graft/unretired.
//
// # Recovery
//
// Any worker's recovery scan lists <root>/txn/ and takes the locks of each
// record. A live owner holds them (busy: skipped); when the owner's lease
// is gone its mutex keys are gone with it and the locks are free: the
// record is resolved by the file store's rules, with COMMITTED meaning
// decided — rolled forward — and any other state rolled back.
//
// # Limits
//
// A request is at most etcd's --max-request-bytes (1.5 MiB by default): a
// prepared review stores its tape in the catalog, so a tape near that size
// cannot be stored on this store. A catalog update is one transaction of
// at most 120 operations (etcd's --max-txn-ops is 128); only a purge of
// more expired reviews than that is split, the first part carrying the
// conditions. docs/DESIGN.md §10.1 says what this means at scale.
package etcdstore
