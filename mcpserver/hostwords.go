package mcpserver

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/hosts"
	"github.com/graft-project/graft/hosts/adapter"
)

// hostWords replaces the words the descriptions of types.go write for the
// hosts with the hosts of the registry (package hosts): the schema an
// agent reads names every host graft knows, and only those.
var hostWords = func() *strings.Replacer {
	var transcripts, resumes, continuers []string
	for _, a := range hosts.Adapters() {
		transcripts = append(transcripts, a.Title()+" "+a.TranscriptName())
		resumes = append(resumes, a.ResumeCommand("<id>"))
		if _, ok := a.(adapter.Continuer); ok {
			continuers = append(continuers, a.Title())
		}
	}
	return strings.NewReplacer(
		"{hosts}", hosts.Names(", ", " or "),
		"{titles}", hosts.Titles(", ", " or "),
		"{transcripts}", strings.Join(transcripts, ", "),
		"{resumes}", strings.Join(resumes, ", "),
		"{continuers}", strings.Join(continuers, " or "),
	)
}()

// withHostWords gives tool t the input and output schemas the SDK would
// derive from In and Out, with hostWords applied to their descriptions.
func withHostWords[In, Out any](t *mcp.Tool) *mcp.Tool {
	t.InputSchema = hostSchema[In]()
	t.OutputSchema = hostSchema[Out]()
	return t
}

func hostSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: the schema of %T: %v", *new(T), err)) // a type of types.go the SDK cannot describe
	}
	replaceWords(s, map[*jsonschema.Schema]bool{})
	return s
}

func replaceWords(s *jsonschema.Schema, seen map[*jsonschema.Schema]bool) {
	if s == nil || seen[s] {
		return
	}
	seen[s] = true
	s.Description = hostWords.Replace(s.Description)
	for _, p := range s.Properties {
		replaceWords(p, seen)
	}
	for _, d := range s.Defs {
		replaceWords(d, seen)
	}
	replaceWords(s.Items, seen)
	for _, x := range s.AnyOf {
		replaceWords(x, seen)
	}
	for _, x := range s.OneOf {
		replaceWords(x, seen)
	}
}
