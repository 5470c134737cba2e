// Package clustertest runs graft workers (separate processes of the real
// binary, built with -tags crashpoints) against an embedded 3-member etcd
// cluster (internal/etcdtest) on one shared home, and checks what the etcd
// store promises: one winner among concurrent commits of one review, a
// crashed or paused worker's transaction resolved by another worker once
// its lease expired (and never before), fencing of a worker that comes
// back after its lease, commits through the loss of one member, a bounded
// store_unavailable without a quorum, and the refusal of a home of the
// other store.
//
// Everything is in the tests (go test ./etcdstore/clustertest); this file
// only names the package. GRAFT_CLUSTER_ROUNDS sets the rounds of
// TestOneWinner.
package clustertest
