package notify

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// fakeLookPath finds the programs in have in the System32 folder.
func fakeLookPath(have ...string) func(string) (string, error) {
	return func(name string) (string, error) {
		if slices.Contains(have, name) {
			return `C:\Windows\System32\WindowsPowerShell\v1.0\` + name + ".exe", nil
		}
		return "", errors.New("not found")
	}
}

func TestPlayerCommand(t *testing.T) {
	const ps = `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`
	tests := []struct {
		have []string
		file string
		want []string
	}{
		{[]string{"powershell"}, `C:\Users\ann\.clawd\cache\chime.wav`,
			[]string{ps, "-NoProfile", "-Command", `(New-Object Media.SoundPlayer 'C:\Users\ann\.clawd\cache\chime.wav').PlaySync()`}},
		// A quote in the path cannot end the PowerShell string.
		{[]string{"powershell"}, `C:\Users\o'brien\chime.wav`,
			[]string{ps, "-NoProfile", "-Command", `(New-Object Media.SoundPlayer 'C:\Users\o''brien\chime.wav').PlaySync()`}},
		{[]string{"paplay", "afplay"}, `C:\c\chime.wav`, nil},
		{nil, `C:\c\chime.wav`, nil},
	}
	for _, tt := range tests {
		got, ok := playerCommand(fakeLookPath(tt.have...), tt.file)
		if !reflect.DeepEqual(got, tt.want) || ok != (tt.want != nil) {
			t.Errorf("playerCommand(have %v, %q) = %q, %v, want %q, %v", tt.have, tt.file, got, ok, tt.want, tt.want != nil)
		}
	}
}
