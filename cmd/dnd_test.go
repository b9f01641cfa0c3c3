package cmd

import (
	"strings"
	"testing"
)

func TestDND(t *testing.T) {
	f := newFakeAPI(t)
	steps := []struct {
		args []string
		want string
	}{
		{[]string{"dnd"}, "do not disturb: off\n"},
		{[]string{"dnd", "on"}, "do not disturb: on\n"},
		{[]string{"dnd"}, "do not disturb: on\n"},
		{[]string{"dnd", "--json"}, `{"on":true}` + "\n"},
		{[]string{"dnd", "off"}, "do not disturb: off\n"},
	}
	for _, s := range steps {
		if code, out, errb := runCLI(t, f.home, s.args...); code != 0 || out != s.want {
			t.Errorf("%q = %d %q %q, want 0 %q", s.args, code, out, errb, s.want)
		}
	}
	if code, _, errb := runCLI(t, f.home, "dnd", "maybe"); code != 2 || !strings.Contains(errb, "usage: clawd dnd [on|off]") {
		t.Errorf("dnd maybe = %d %q", code, errb)
	}
}
