package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// tapName is a tapped payload's file name: NS-PID-AGENT-EVENT.json, EVENT
// empty where the agent names the event in the payload.
var tapName = regexp.MustCompile(`^\d+-\d+-([a-z0-9-]+?)-([^/]*)\.json$`)

// capture is what a tap holds of one agent.
type capture struct {
	calls int
	keys  map[string]map[string]bool // event -> key paths
}

// readTap reads the payloads agent's hooks received.
func readTap(dir, agent string) (capture, error) {
	c := capture{keys: map[string]map[string]bool{}}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return c, fmt.Errorf("read the tap: %w", err)
	}
	for _, e := range entries {
		m := tapName.FindStringSubmatch(e.Name())
		if m == nil || m[1] != agent {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return c, fmt.Errorf("read the tap: %w", err)
		}
		var v any
		if json.Unmarshal(b, &v) != nil {
			continue // a payload cut at the hook's cap, or not JSON
		}
		obj, _ := v.(map[string]any)
		ev := m[2]
		if ev == "" {
			ev, _ = obj["hook_event_name"].(string)
		}
		if ev == "" {
			ev = "(no event name)"
		}
		if c.keys[ev] == nil {
			c.keys[ev] = map[string]bool{}
		}
		keyPaths(v, "", 0, c.keys[ev])
		c.calls++
	}
	return c, nil
}

// maxKeyDepth bounds the key paths: deeper ones are the tools' own data.
const maxKeyDepth = 4

// plainKey matches an object key that is a field name rather than data (a
// file path, a header, an id used as a key).
var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,47}$`)

// keyPaths adds the key paths of v under prefix to out: "a.b", "a[].c";
// a key that looks like data reads "*".
func keyPaths(v any, prefix string, depth int, out map[string]bool) {
	if depth >= maxKeyDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		for k, child := range v {
			if !plainKey.MatchString(k) {
				k = "*"
			}
			p := k
			if prefix != "" {
				p = prefix + "." + k
			}
			out[p] = true
			keyPaths(child, p, depth+1, out)
		}
	case []any:
		for _, child := range v {
			keyPaths(child, prefix+"[]", depth, out)
		}
	}
}

// keySet returns m's keys as a set.
func keySet[V any](m map[string]V) map[string]bool {
	s := map[string]bool{}
	for k := range m {
		s[k] = true
	}
	return s
}

// minus returns the members of a that b lacks, sorted.
func minus(a, b map[string]bool) []string {
	var out []string
	for k := range a {
		if !b[k] {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(x, y string) int { return strings.Compare(x, y) })
	return out
}
