package main

import (
	"fmt"

	"github.com/graft-project/graft/graft"
)

// service opens the graft service; opening runs the recovery scan, whose
// unresolved records are reported on stderr without failing the command.
func (a *app) service() (*graft.Service, error) {
	return a.openService(graft.Options{})
}

// openService opens the graft service on the home with options o (its FS
// is the app's); the service's degraded reads are reported when the
// invocation ends (warnDegraded).
func (a *app) openService(o graft.Options) (*graft.Service, error) {
	if _, err := a.config(); err != nil { // sets a.home
		return nil, err
	}
	o.FS = a.fs
	o.Store = a.store
	svc, err := graft.Open(a.home, o)
	if err != nil {
		return nil, err
	}
	a.svcs = append(a.svcs, svc)
	if svc.StartupErr != nil {
		fmt.Fprintf(a.stderr, "warning: start-up recovery: %v (run graft recover)\n", svc.StartupErr)
	}
	return svc, nil
}

// warnDegraded prints on stderr what the services' reads could not use and
// read from the logs instead (graft.Service.TakeDegraded): a read that
// degraded says so, whatever its exit code.
func (a *app) warnDegraded() {
	for _, svc := range a.svcs {
		for _, note := range svc.TakeDegraded() {
			fmt.Fprintf(a.stderr, "warning: %s\n", note)
		}
	}
}

// closeServices releases what the services hold (an etcd store's lease,
// and with it every lock under it); a failure is a warning: the lease
// expires by itself.
func (a *app) closeServices() {
	for _, svc := range a.svcs {
		if err := svc.Close(); err != nil {
			fmt.Fprintf(a.stderr, "warning: closing the store: %v (its lease expires by itself)\n", err)
		}
	}
	a.svcs = nil
}
