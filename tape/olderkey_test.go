package tape

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/graft-project/graft/session"
)

// The newest keptNewestActions calls of Recent Actions quote their key
// lines at length (maxKeyLines); an older call that worked quotes its last
// olderKeyLines: what was done last at length, the earlier outcomes in
// fewer lines, so that more of them fit.
func TestAnOlderCallQuotesFewerKeyLines(t *testing.T) {
	evs := []session.Event{withMeta(human("Run the suites."), "cwd", "/r")}
	for k := range 6 {
		in, _ := json.Marshal(map[string]string{"command": fmt.Sprintf("go test ./suite%d/...", k)})
		id := fmt.Sprintf("t%d", k)
		var out strings.Builder
		for p := range 4 {
			fmt.Fprintf(&out, "ok  \tgithub.com/x/suite%d/pkg%d\t0.%d1s\n", k, p, p)
		}
		evs = append(evs, call("Bash", id, string(in)), result("Bash", id, true, out.String()))
	}
	acts := blockText(t, build(t, "s", seqd(evs...), Options{}, nil), "Recent Actions")
	for k := range 6 {
		quoted := strings.Count(acts, fmt.Sprintf("github.com/x/suite%d/", k))
		want := maxKeyLines
		if k < 6-keptNewestActions {
			want = olderKeyLines
		}
		if quoted != want {
			t.Errorf("suite %d: %d key lines quoted, want %d:\n%s", k, quoted, want, acts)
		}
	}
	if !strings.Contains(acts, "suite0/pkg3") || strings.Contains(acts, "suite0/pkg0") {
		t.Errorf("an older call keeps other than its last key lines:\n%s", acts)
	}
}
