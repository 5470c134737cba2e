// Command etcdcluster runs a throw-away etcd cluster on 127.0.0.1 for trying
// graft against a real store by hand. It is a development tool, not part
// of the product.
//
//	go run ./internal/etcdtest/cmd/etcdcluster [-n 3] [-dir D]
//
// It prints the cluster's URL prefix, "etcd://127.0.0.1:p1,…/", as one
// line on stdout, then "ready" on stderr, and runs until SIGINT or
// SIGTERM, when it stops the members. Without -dir the data lives in a
// temporary directory that is removed on exit; with -dir it is kept in
// D/m0 … D/m<n-1>, which must not exist yet.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/graft-project/graft/internal/etcdtest"
)

func main() {
	os.Exit(run())
}

func run() int {
	n := flag.Int("n", 3, "number of members")
	dir := flag.String("dir", "", "data directory (default: a temporary one, removed on exit)")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "etcdcluster: unexpected arguments %q\n", flag.Args())
		return 2
	}

	// Subscribe before starting so that a signal during Start is not lost.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)

	d := *dir
	if d == "" {
		tmp, err := os.MkdirTemp("", "etcdcluster-")
		if err != nil {
			fmt.Fprintln(os.Stderr, "etcdcluster:", err)
			return 1
		}
		defer os.RemoveAll(tmp)
		d = tmp
	}
	c, err := etcdtest.Start(d, *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdcluster:", err)
		return 1
	}
	fmt.Println(c.URL(""))
	fmt.Fprintln(os.Stderr, "ready")

	s := <-sig
	signal.Stop(sig)
	fmt.Fprintf(os.Stderr, "etcdcluster: %v, stopping\n", s)
	if err := c.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "etcdcluster:", err)
		return 1
	}
	return 0
}
