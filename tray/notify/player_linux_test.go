package notify

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// fakeLookPath finds the programs in have under /usr/bin.
func fakeLookPath(have ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(have, name) {
			return "/usr/bin/" + name, nil
		}
		return "", errors.New("not found")
	}
}

func TestPlayerCommand(t *testing.T) {
	tests := []struct {
		have []string
		want []string
	}{
		{[]string{"paplay", "pw-play", "aplay"}, []string{"/usr/bin/paplay", "/c/chime.wav"}},
		{[]string{"aplay", "pw-play"}, []string{"/usr/bin/pw-play", "/c/chime.wav"}},
		{[]string{"aplay"}, []string{"/usr/bin/aplay", "-q", "/c/chime.wav"}},
		{[]string{"afplay", "powershell"}, nil},
		{nil, nil},
	}
	for _, tt := range tests {
		got, ok := playerCommand(fakeLookPath(tt.have...), "/c/chime.wav")
		if !reflect.DeepEqual(got, tt.want) || ok != (tt.want != nil) {
			t.Errorf("playerCommand(have %v) = %q, %v, want %q, %v", tt.have, got, ok, tt.want, tt.want != nil)
		}
	}
}
