package codex

import (
	"path/filepath"
	"testing"
)

func TestHome(t *testing.T) {
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	tests := []struct {
		env  map[string]string
		want string
		err  bool
	}{
		{map[string]string{"CODEX_HOME": "/x/codex", "HOME": "/h"}, "/x/codex", false},
		{map[string]string{"HOME": "/h"}, filepath.Join("/h", ".codex"), false},
		{map[string]string{"USERPROFILE": "/u"}, filepath.Join("/u", ".codex"), false},
		{map[string]string{}, "", true},
	}
	for _, tt := range tests {
		got, err := Home(env(tt.env))
		if got != tt.want || (err != nil) != tt.err {
			t.Errorf("Home(%v) = %q, %v; want %q, error %v", tt.env, got, err, tt.want, tt.err)
		}
	}
}
