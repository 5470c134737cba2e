package config

import (
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/graft-project/graft/internal/formatdoc"
)

// doc.go specifies the file: it must name every key of Config, and its
// table of keys must list exactly the keys Load reads, in the same order.
func TestDocNamesEveryKey(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	if missing := formatdoc.Missing(string(doc), Config{}); len(missing) > 0 {
		t.Fatalf("doc.go does not name these keys: %q", missing)
	}
	// The file's names are the toml tags; the json tags must be the same.
	var tags []string
	ct := reflect.TypeFor[Config]()
	for i := 0; i < ct.NumField(); i++ {
		f := ct.Field(i)
		if f.Tag.Get("toml") != f.Tag.Get("json") {
			t.Errorf("Config.%s: toml tag %q and json tag %q differ", f.Name, f.Tag.Get("toml"), f.Tag.Get("json"))
		}
		tags = append(tags, f.Tag.Get("toml"))
	}
	if !reflect.DeepEqual(tags, Keys()) {
		t.Errorf("Config's tags %q and Keys() %q differ", tags, Keys())
	}
	// The reverse: every key of the table in "# Keys" is a key of Config.
	_, section, ok := strings.Cut(string(doc), "// # Keys\n")
	if !ok {
		t.Fatal(`doc.go has no "# Keys" section`)
	}
	section, _, _ = strings.Cut(section, "\n//\n// ")
	row := regexp.MustCompile(`(?m)^//\t([A-Za-z]+) +(string|integer|boolean) `)
	kinds := map[string]unstable.Kind{"string": unstable.String, "integer": unstable.Integer, "boolean": unstable.Bool}
	var documented []string
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		documented = append(documented, m[1])
		if k := lookup(m[1]); k != nil && k.kind != kinds[m[2]] {
			t.Errorf("doc.go says %s is a %s; Load reads a %s", m[1], m[2], k.kind)
		}
	}
	if !reflect.DeepEqual(documented, Keys()) {
		t.Errorf("doc.go's table lists keys %q, Config has %q", documented, Keys())
	}
}
