package etcdstore

import (
	"fmt"
	"slices"
	"strings"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/graft-project/graft/hosts"
)

// Bindings are the host bindings (package hosts: which graft session a
// host session continues) under <root>/hosts/<host>/<uuid>,
// with the same JSON as hosts/<host>/<uuid>.json in a file home. A save
// replaces the binding whole, as a file's atomic replace does.
type Bindings struct{ s *Store }

// Bindings returns the store's host bindings.
func (s *Store) Bindings() *Bindings { return &Bindings{s: s} }

func (b *Bindings) key(host hosts.Host, id string) string { return b.s.key("hosts", string(host), id) }

// Load reads the binding of a host session; hosts.ErrNoBinding when there is none.
func (b *Bindings) Load(host hosts.Host, id string) (*hosts.Binding, error) {
	if err := hosts.ValidHostSessionID(id); err != nil {
		return nil, err
	}
	k := b.key(host, id)
	ctx, cancel := b.s.ctx()
	defer cancel()
	resp, err := b.s.cli.Get(ctx, k)
	if err != nil {
		return nil, b.s.unavailable("reading "+k, err)
	}
	if len(resp.Kvs) == 0 {
		return nil, fmt.Errorf("%w: %s session %s", hosts.ErrNoBinding, host, id)
	}
	return hosts.Decode(resp.Kvs[0].Value, k, host, id)
}

// Save writes a binding.
func (b *Bindings) Save(bd *hosts.Binding) error {
	data, err := hosts.Encode(bd)
	if err != nil {
		return err
	}
	k := b.key(bd.Host, bd.HostSessionID)
	ctx, cancel := b.s.ctx()
	defer cancel()
	if _, err := b.s.cli.Put(ctx, k, string(data)); err != nil {
		return b.s.unavailable("writing "+k, err)
	}
	return nil
}

// List reads every binding, by host then host session id; a value that is
// not a binding is an error naming its key.
func (b *Bindings) List() ([]hosts.Binding, error) {
	pfx := b.s.key("hosts", "")
	ctx, cancel := b.s.ctx()
	defer cancel()
	resp, err := b.s.cli.Get(ctx, pfx, clientv3.WithPrefix())
	if err != nil {
		return nil, b.s.unavailable("listing "+pfx, err)
	}
	var all []hosts.Binding
	for _, kv := range resp.Kvs {
		host, id, ok := strings.Cut(strings.TrimPrefix(string(kv.Key), pfx), "/")
		if !ok || !slices.Contains(hosts.Hosts, hosts.Host(host)) {
			return nil, fmt.Errorf("%w %s: not <host>/<uuid> of a known host", hosts.ErrBadBinding, kv.Key)
		}
		bd, err := hosts.Decode(kv.Value, string(kv.Key), hosts.Host(host), id)
		if err != nil {
			return nil, err
		}
		all = append(all, *bd)
	}
	slices.SortFunc(all, func(x, y hosts.Binding) int {
		return strings.Compare(string(x.Host)+"/"+x.HostSessionID, string(y.Host)+"/"+y.HostSessionID)
	})
	return all, nil
}
