package agents

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// runsOf reads every recorded run in dir (testdata/<agent>/sequences), by
// name.
func runsOf(t *testing.T, dir string) map[string][]recorded {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no recorded runs in %s", dir)
	}
	runs := map[string][]recorded{}
	for _, f := range files {
		runs[strings.TrimSuffix(filepath.Base(f), ".jsonl")] = readRecorded(t, f)
	}
	return runs
}

// kindsOf decodes a recorded run with a, each call with its command-line
// event and its recorded environment, and returns the kinds; it fails the
// test on the first call that does not decode or validate.
func kindsOf(t *testing.T, a *Agent, run string, seq []recorded) []Kind {
	t.Helper()
	var out []Kind
	for i, r := range seq {
		e, err := a.Decode(r.Stdin, r.Event, envOf(r.Env), now)
		if err != nil {
			t.Fatalf("%s call %d (%s): Decode: %v", run, i, r.Event, err)
		}
		if err := e.Validate(); err != nil {
			t.Errorf("%s call %d (%s): Validate() = %v", run, i, r.Event, err)
		}
		out = append(out, e.Kind)
	}
	return out
}

// checkRunKinds checks that every recorded run of a decodes to the kinds
// want lists for it, and that want lists no run that is not recorded.
func checkRunKinds(t *testing.T, a *Agent, runs map[string][]recorded, want map[string][]Kind) {
	t.Helper()
	for run, seq := range runs {
		w, ok := want[run]
		if !ok {
			t.Errorf("recorded run %s has no expected kinds", run)
			continue
		}
		if got := kindsOf(t, a, run, seq); !slices.Equal(got, w) {
			t.Errorf("%s decodes to kinds\n%v\nwant\n%v", run, got, w)
		}
	}
	for run := range want {
		if _, ok := runs[run]; !ok {
			t.Errorf("the table lists run %s, which is not recorded", run)
		}
	}
}

// call returns call i of a recorded run.
func call(t *testing.T, runs map[string][]recorded, run string, i int) recorded {
	t.Helper()
	seq, ok := runs[run]
	if !ok || i >= len(seq) {
		t.Fatalf("no call %d in recorded run %s", i, run)
	}
	return seq[i]
}
