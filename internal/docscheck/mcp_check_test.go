package docscheck

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/graft-project/graft/mcpserver"
)

// schema is the part of a JSON schema the documents talk about.
type schema struct {
	Properties map[string]*schema `json:"properties"`
	Items      *schema            `json:"items"`
	Required   []string           `json:"required"`
	AnyOf      []*schema          `json:"anyOf"`
}

func toSchema(v any) *schema {
	b, err := json.Marshal(v)
	if err != nil {
		return &schema{}
	}
	var s schema
	if json.Unmarshal(b, &s) != nil {
		return &schema{}
	}
	return &s
}

// names adds every property name of s, nested ones included, to out.
func (s *schema) names(out map[string]bool) {
	if s == nil {
		return
	}
	for n, p := range s.Properties {
		out[n] = true
		p.names(out)
	}
	s.Items.names(out)
	for _, a := range s.AnyOf {
		a.names(out)
	}
}

// hints are the three annotations the README's table states.
func hints(t *mcp.Tool) map[string]bool {
	a := t.Annotations
	if a == nil {
		a = &mcp.ToolAnnotations{}
	}
	destructive := true // the protocol's default when unset
	if a.DestructiveHint != nil {
		destructive = *a.DestructiveHint
	}
	return map[string]bool{"read-only": a.ReadOnlyHint, "destructive": destructive && !a.ReadOnlyHint, "idempotent": a.IdempotentHint}
}

var (
	toolCallRE = regexp.MustCompile(`(graft_[a-z]+) \{([^}]*)\}`)
	argNameRE  = regexp.MustCompile(`^\s*"?([A-Za-z]+)"?\s*(:|$)`)
	camelRE    = regexp.MustCompile(`^[a-z]+[A-Z][A-Za-z]*$`)
)

func checkMCP(c *checker, ds *docs, k *code) {
	tools := map[string]*mcp.Tool{}
	fields := map[string]bool{} // every input and output property of every tool
	for _, t := range k.tools {
		tools[t.Name] = t
		toSchema(t.InputSchema).names(fields)
		toSchema(t.OutputSchema).names(fields)
	}
	d := ds.readme
	sec, ok := d.section("MCP: graft as agent tools")
	if !c.fact("MCP tool", d, 0, ok, `no section "MCP: graft as agent tools"`) {
		return
	}
	t, ok := d.table(sec, "tool", "inputs", "what it does", "hints")
	if !c.fact("MCP tool", d, sec.from, ok, `no table "| tool | inputs | what it does | hints |"`) {
		return
	}
	seen := map[string]bool{}
	for _, row := range t.rows {
		names := codeSpans(row.cells[0])
		if !c.fact("MCP tool", d, row.line, len(names) == 1, "the row names %d tools, not one", len(names)) {
			continue
		}
		tool := tools[names[0]]
		if !c.fact("MCP tool", d, row.line, tool != nil, "the server has no tool %s (it has %s)", names[0], strings.Join(sortedKeys(tools), ", ")) {
			continue
		}
		seen[tool.Name] = true
		// hints: "read-only, idempotent", "not read-only, not destructive", …
		stated := map[string]bool{}
		for _, h := range strings.Split(t.cell(row, "hints"), ",") {
			h = strings.TrimSpace(h)
			neg := strings.HasPrefix(h, "not ")
			h = strings.TrimPrefix(h, "not ")
			_, known := hints(tool)[h]
			if !c.fact("MCP hint", d, row.line, known, "%q is none of read-only, destructive, idempotent", h) {
				continue
			}
			stated[h] = !neg
		}
		for _, h := range []string{"read-only", "destructive", "idempotent"} {
			got := hints(tool)[h]
			want, said := stated[h]
			if !said {
				c.fact("MCP hint", d, row.line, !got, "%s is %s, and the row does not say so", tool.Name, h)
				continue
			}
			c.fact("MCP hint", d, row.line, got == want, "%s: the row says %s=%v, the server's annotations %v", tool.Name, h, want, got)
		}
		// inputs: `name` (required) or `name?`, exactly the input schema's.
		in := toSchema(tool.InputSchema)
		listed := map[string]bool{}
		for _, s := range codeSpans(t.cell(row, "inputs")) {
			name, optional := strings.CutSuffix(s, "?")
			listed[name] = true
			_, has := in.Properties[name]
			if c.fact("MCP input", d, row.line, has, "%s has no input %s", tool.Name, name) {
				c.fact("MCP input", d, row.line, contains(in.Required, name) != optional,
					"%s's input %s: the row says required=%v, the schema %v", tool.Name, name, !optional, contains(in.Required, name))
			}
		}
		for _, name := range sortedKeys(in.Properties) {
			c.fact("MCP input", d, row.line, listed[name], "%s's input %s is not in the row", tool.Name, name)
		}
	}
	for _, name := range sortedKeys(tools) {
		c.fact("MCP tool", d, t.line, seen[name], "the server's tool %s is not in the table", name)
	}

	// "graft_x {a, b}" and "graft_x {"a": …}": arguments of the tool.
	for _, dd := range []*mdDoc{ds.readme, ds.design} {
		for _, s := range dd.spansOf(dd.all()) {
			for _, m := range toolCallRE.FindAllStringSubmatch(s.text, -1) {
				tool := tools[m[1]]
				if !c.fact("MCP tool", dd, s.line, tool != nil, "the server has no tool %s", m[1]) {
					continue
				}
				in := toSchema(tool.InputSchema)
				for _, part := range splitArgs(m[2]) {
					am := argNameRE.FindStringSubmatch(part)
					if am == nil {
						continue
					}
					_, has := in.Properties[am[1]]
					c.fact("MCP input", dd, s.line, has, "%s has no input %s", m[1], am[1])
				}
			}
		}
	}
	// camelCase names in the MCP section: fields of the tools' inputs or outputs.
	for _, s := range d.spansOf(sec) {
		if camelRE.MatchString(s.text) {
			c.fact("MCP field", d, s.line, fields[s.text], "%s is no input or output field of any tool", s.text)
		}
	}
	// DESIGN §8.2 names the tools.
	dd := ds.design
	if sec2, ok := dd.section("8.2 MCP server"); c.fact("MCP tool", dd, 0, ok, `no section "8.2 MCP server"`) {
		line, m := dd.findLine(sec2, regexp.MustCompile(`^Tools: `))
		if c.fact("MCP tool", dd, sec2.from, m != nil, `no sentence "Tools: …"`) {
			_, para := dd.paragraph(line)
			para = para[strings.Index(para, "Tools: "):]
			para = para[:strings.Index(para, ".")]
			named := map[string]bool{}
			for _, s := range codeSpans(para) {
				named[s] = true
				c.fact("MCP tool", dd, line, tools[s] != nil, "the server has no tool %s", s)
			}
			for _, name := range sortedKeys(tools) {
				c.fact("MCP tool", dd, line, named[name], "the server's tool %s is not named", name)
			}
		}
	}
	// "chunks of at most 32,000 characters".
	for _, dd := range []*mdDoc{ds.readme, ds.design} {
		line, m := dd.findLine(dd.all(), regexp.MustCompile(`chunks of at most ([\d,]+) characters`))
		if c.fact("MCP chunk size", dd, 0, m != nil, `no "chunks of at most N characters"`) {
			c.fact("MCP chunk size", dd, line, atoi(m[1]) == mcpserver.DefaultChunkChars, "says %s, mcpserver.DefaultChunkChars is %d", m[1], mcpserver.DefaultChunkChars)
		}
	}
}

// splitArgs splits the inside of "{…}" at commas outside quotes.
func splitArgs(s string) []string {
	var out []string
	in := false
	start := 0
	for i, r := range s {
		switch {
		case r == '"':
			in = !in
		case r == ',' && !in:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
