package storeurl_test

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/graft-project/graft/storeurl"
)

func TestParseURL(t *testing.T) {
	c, err := storeurl.ParseURL("etcd://10.0.0.1:2379,h2.example:2379/team-a/graft?lease=4s&timeout=2s")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(c.Endpoints, ",") != "10.0.0.1:2379,h2.example:2379" || c.Prefix != "/team-a/graft" || c.Lease != 4*time.Second || c.Timeout != 2*time.Second {
		t.Fatalf("ParseURL = %+v", c)
	}
	if got := c.URL(); got != "etcd://10.0.0.1:2379,h2.example:2379/team-a/graft?lease=4s&timeout=2s" {
		t.Errorf("URL() = %q", got)
	}
	d, err := storeurl.ParseURL("etcd://[::1]:2379/p/")
	if err != nil || d.Prefix != "/p" || d.Lease != storeurl.DefaultLease || d.Timeout != storeurl.DefaultTimeout {
		t.Fatalf("ParseURL([::1]) = %+v, %v", d, err)
	}
	for _, bad := range []string{
		"", "file", "http://h:1/p", "etcd://h:1", "etcd://h:1/", "etcd://h/p", "etcd://h:1,/p", "etcd://h:1/a//b",
		"etcd://h:1/p?lease=1s", "etcd://h:1/p?lease=2500ms", "etcd://h:1/p?timeout=1ms", "etcd://h:1/p?ttl=3s",
		"etcd://h:1/p?lease=soon", "etcd://h:1/../p",
	} {
		if _, err := storeurl.ParseURL(bad); !errors.Is(err, storeurl.ErrURL) {
			t.Errorf("ParseURL(%q) = %v, want ErrURL", bad, err)
		}
	}
}

// CheckSetting takes the file store's two names and a good URL, and
// refuses a bad URL with ErrURL.
func TestCheckSetting(t *testing.T) {
	for _, ok := range []string{"", "file", "etcd://127.0.0.1:2379/graft"} {
		if err := storeurl.CheckSetting(ok); err != nil {
			t.Errorf("CheckSetting(%q) = %v", ok, err)
		}
	}
	if err := storeurl.CheckSetting("etcd://h:1"); !errors.Is(err, storeurl.ErrURL) {
		t.Errorf("CheckSetting of a URL without prefix = %v, want ErrURL", err)
	}
}

// The leaf's point: checking a setting links no etcd client, so config
// (which checks them) does not either.
func TestConfigLinksNoEtcd(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skipf("no go command on PATH: %v", err)
	}
	for _, pkg := range []string{"github.com/graft-project/graft/storeurl", "github.com/graft-project/graft/config"} {
		out, err := exec.Command("go", "list", "-deps", pkg).CombinedOutput()
		if err != nil {
			t.Fatalf("go list -deps %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "go.etcd.io/") || dep == "github.com/graft-project/graft/etcdstore" {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}
