package config

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

// tomlKeys returns the keys of the config file's struct t, "table.key"
// for nested tables, with prefix before each.
func tomlKeys(t reflect.Type, prefix string) []string {
	var keys []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("toml"), ",")
		if name == "" {
			continue
		}
		if ft := f.Type; ft.Kind() == reflect.Struct {
			keys = append(keys, tomlKeys(ft, prefix+name+".")...)
			continue
		}
		keys = append(keys, prefix+name)
	}
	return keys
}

// TestDocumented: docs/configuration.md has a row for every key the
// config file takes, under the heading of its table, so the reference
// cannot miss a key added here.
func TestDocumented(t *testing.T) {
	b, err := os.ReadFile("../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	keys := tomlKeys(reflect.TypeOf(file{}), "")
	keys = append(keys, tomlKeys(reflect.TypeOf(agentFile{}), "agents.<id>.")...)
	keys = append(keys, tomlKeys(reflect.TypeOf(customFile{}), "agents.custom.")...)
	var checked int
	for _, k := range keys {
		if k == "agents" {
			continue // the map of the two below
		}
		i := strings.LastIndex(k, ".")
		table, key := k[:i], k[i+1:]
		heading := "\n## [" + table + "]\n"
		switch table {
		case "agents.<id>":
			heading = "\n## [agents.&lt;id&gt;]\n"
		case "agents.custom":
			heading = "\n## [[agents.custom]]\n"
		}
		_, section, ok := strings.Cut(doc, heading)
		if !ok {
			t.Errorf("docs/configuration.md has no heading %q for %s", strings.TrimSpace(heading), k)
			continue
		}
		section, _, _ = strings.Cut(section, "\n## ")
		if !strings.Contains(section, "\n| `"+key+"` |") {
			t.Errorf("docs/configuration.md documents no %s under %s", k, strings.TrimSpace(heading))
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("checked only %d keys of %v", checked, keys)
	}
}
