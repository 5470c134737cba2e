package version

import (
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/graft-project/graft/internal/testfixtures"
)

func TestStampedWinsOverTheBuildInfo(t *testing.T) {
	defer func(v, r, m string) { stamped, stampedRevision, stampedModified = v, r, m }(stamped, stampedRevision, stampedModified)
	stamped, stampedRevision, stampedModified = "v9.8.7", "0123456789abcdef0123", "true"
	i := Get()
	if i.Version != "v9.8.7" || i.Revision != "0123456789abcdef0123" || !i.Modified {
		t.Fatalf("Get() = %+v, want the stamped version, revision and modified", i)
	}
	if want := "graft v9.8.7 (rev 0123456789ab, modified; " + runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH + "; graft-tape-v2, graft-prefix-v2)"; i.String() != want {
		t.Errorf("String() = %q, want %q", i.String(), want)
	}
	if i.Short() != "v9.8.7" {
		t.Errorf("Short() = %q", i.Short())
	}
}

func TestShortOfADevelBuildNamesTheRevision(t *testing.T) {
	i := Info{Version: Devel, Revision: "0123456789abcdef", Modified: true}
	if got := i.Short(); got != "(devel)+0123456789ab-dirty" {
		t.Errorf("Short() = %q", got)
	}
	if got := (Info{Version: Devel}).Short(); got != Devel {
		t.Errorf("Short() without a revision = %q", got)
	}
}

// TestBuiltBinaryPrintsTheStampedVersion builds graft as make build does
// (-ldflags -X) and runs its --version and "version --json"; go version -m
// must name the stamp. The build shares the suite's compile cache: only
// cmd/graft is compiled and linked. make dist's own flags (-trimpath,
// CGO_ENABLED=0, one binary per platform) are checked where it builds them,
// by scripts/distcheck.sh, which make dist runs: building them here again
// compiled every dependency a second time (40 s of a 2-core CI run).
func TestBuiltBinaryPrintsTheStampedVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds graft")
	}
	root := testfixtures.ModuleRoot(t)
	bin := filepath.Join(t.TempDir(), "graft")
	const v = "v0.0.0-test+stamp"
	cmd := exec.Command("go", "build", "-ldflags", "-X github.com/graft-project/graft/version.stamped="+v+" -X github.com/graft-project/graft/version.stampedRevision=feedfacefeedface -X github.com/graft-project/graft/version.stampedModified=false", "-o", bin, "./cmd/graft")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "--version").Output()
	if err != nil {
		t.Fatalf("graft --version: %v", err)
	}
	if !strings.HasPrefix(string(out), "graft "+v+" (rev feedfacefeed; ") {
		t.Errorf("graft --version = %q", out)
	}
	js, err := exec.Command(bin, "version", "--json").Output()
	if err != nil {
		t.Fatalf("graft version --json: %v", err)
	}
	for _, want := range []string{`"version": "` + v + `"`, `"revision": "feedfacefeedface"`, `"modified": false`, `"tapeFormat": "graft-tape-v2"`, `"prefixFormat": "graft-prefix-v2"`} {
		if !strings.Contains(string(js), want) {
			t.Errorf("graft version --json has no %s:\n%s", want, js)
		}
	}
	m, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Fatalf("go version -m: %v", err)
	}
	for _, want := range []string{"version.stamped=" + v, "GOOS=" + runtime.GOOS, "GOARCH=" + runtime.GOARCH} {
		if !strings.Contains(string(m), want) {
			t.Errorf("go version -m has no %s:\n%s", want, m)
		}
	}
}
