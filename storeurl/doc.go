// Package storeurl reads the store setting (--store, GRAFT_STORE, the
// config key store): "" or "file" for the file store under the home, or an
// etcd store URL
//
//	etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s]
//
// It is a leaf: config checks a setting without linking the etcd client,
// and etcdstore opens the Config it parses. The URL's parts are in
// docs/DESIGN.md §10.
package storeurl
