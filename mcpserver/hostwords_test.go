package mcpserver

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/graft-project/graft/hosts"
)

// The schemas agents read name every host of the registry where
// types.go writes {hosts}, and no placeholder is left.
func TestToolSchemasNameTheRegistrysHosts(t *testing.T) {
	placeholder := regexp.MustCompile(`\{(hosts|titles|transcripts|resumes|continuers)\}`)
	for name, s := range map[string]any{
		"graft_prepare input":  hostSchema[PrepareInput](),
		"graft_prepare output": hostSchema[PrepareOutput](),
		"graft_commit output":  hostSchema[CommitOutput](),
	} {
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if m := placeholder.FindString(text); m != "" {
			t.Errorf("%s: %s left in the schema", name, m)
		}
		for _, a := range hosts.Adapters() {
			if !strings.Contains(text, string(a.Name())) {
				t.Errorf("%s: does not name host %s", name, a.Name())
			}
		}
	}
}
