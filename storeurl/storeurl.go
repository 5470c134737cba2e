package storeurl

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"
)

// Scheme starts a store URL: etcd://host:port[,host:port…]/prefix.
const Scheme = "etcd://"

// Defaults of a store URL's parameters.
const (
	DefaultLease   = 10 * time.Second
	DefaultTimeout = 5 * time.Second
	// MinLease is etcd's floor for a lease (about 1.5 × its election
	// timeout with the default settings).
	MinLease = 2 * time.Second
)

// ErrURL is a store URL that does not parse.
var ErrURL = errors.New("etcdstore: bad store URL")

// Config is a parsed store URL.
type Config struct {
	Endpoints []string
	// Prefix is the key root, "/" + the URL's path: every key of this
	// store starts with Prefix + "/".
	Prefix string
	// Lease is the TTL of this worker's lease: how long after a crash (or
	// a pause) its locks and records are taken over.
	Lease time.Duration
	// Timeout bounds every request: an unreachable cluster or one without
	// quorum is an ErrUnavailable after it, never a hang.
	Timeout time.Duration
}

// URL is the canonical form of c.
func (c Config) URL() string {
	u := Scheme + strings.Join(c.Endpoints, ",") + c.Prefix
	var q []string
	if c.Lease != DefaultLease {
		q = append(q, "lease="+c.Lease.String())
	}
	if c.Timeout != DefaultTimeout {
		q = append(q, "timeout="+c.Timeout.String())
	}
	if len(q) > 0 {
		u += "?" + strings.Join(q, "&")
	}
	return u
}

var (
	prefixRE   = regexp.MustCompile(`^[A-Za-z0-9._-]+(/[A-Za-z0-9._-]+)*$`)
	endpointRE = regexp.MustCompile(`^[A-Za-z0-9.-]+:[0-9]{1,5}$|^\[[0-9A-Fa-f:.]+\]:[0-9]{1,5}$`)
)

// IsFile says whether a store setting names the file store: "" or "file".
func IsFile(store string) bool { return store == "" || store == "file" }

// CheckSetting checks a store setting (--store, GRAFT_STORE, config key
// store): the file store, or a URL ParseURL takes.
func CheckSetting(store string) error {
	if IsFile(store) {
		return nil
	}
	_, err := ParseURL(store)
	return err
}

// ParseURL parses etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s].
func ParseURL(s string) (Config, error) {

	bad := func(format string, args ...any) (Config, error) {
		return Config{}, fmt.Errorf("%w %q: %s (want etcd://host:port[,host:port…]/prefix[?lease=10s&timeout=5s])", ErrURL, s, fmt.Sprintf(format, args...))
	}
	rest, ok := strings.CutPrefix(s, Scheme)
	if !ok {
		return bad("it does not start with %s", Scheme)
	}
	rest, query, _ := strings.Cut(rest, "?")
	hosts, prefix, ok := strings.Cut(rest, "/")
	if !ok || prefix == "" {
		return bad("no prefix: every graft store on a cluster has its own key prefix")
	}
	prefix = strings.TrimSuffix(prefix, "/")
	if !prefixRE.MatchString(prefix) || slices.Contains(strings.Split(prefix, "/"), "..") || slices.Contains(strings.Split(prefix, "/"), ".") {
		return bad("prefix %q: use letters, digits, '.', '_', '-' and '/' between parts", prefix)
	}
	c := Config{Prefix: "/" + prefix, Lease: DefaultLease, Timeout: DefaultTimeout}
	for _, h := range strings.Split(hosts, ",") {
		if !endpointRE.MatchString(h) {
			return bad("endpoint %q is not host:port", h)
		}
		c.Endpoints = append(c.Endpoints, h)
	}
	vals, err := url.ParseQuery(query)
	if err != nil {
		return bad("parameters: %v", err)
	}
	for k, v := range vals {
		d, err := time.ParseDuration(v[len(v)-1])
		if err != nil {
			return bad("%s=%q is not a duration", k, v[len(v)-1])
		}
		switch k {
		case "lease":
			if d < MinLease || d%time.Second != 0 {
				return bad("lease=%v: whole seconds, at least %v", d, MinLease)
			}
			c.Lease = d
		case "timeout":
			if d < 100*time.Millisecond {
				return bad("timeout=%v: at least 100ms", d)
			}
			c.Timeout = d
		default:
			return bad("unknown parameter %q (lease, timeout)", k)
		}
	}
	return c, nil
}
