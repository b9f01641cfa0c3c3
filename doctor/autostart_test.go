package doctor

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/internal/autostart"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestCheckAutostart: each state of the login entry, as doctor reports it.
func TestCheckAutostart(t *testing.T) {
	there := filepath.Join(t.TempDir(), "clawd")
	if err := os.WriteFile(there, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(t.TempDir(), "moved", "clawd")
	entry := autostart.Status{Enabled: true, Kind: autostart.Systemd, Path: "/home/u/.config/systemd/user/clawd.service", Binary: there}
	stale := func(bin, why string) autostart.Status { s := entry; s.Binary, s.Stale = bin, why; return s }
	running := entry
	running.Running = true
	for _, tc := range []struct {
		name   string
		st     autostart.Status
		err    error
		remote bool
		want   Status
		finds  string
		fix    string
	}{
		{name: "none", want: Warn, finds: "nothing starts clawd serve at login", fix: "clawd autostart enable"},
		{name: "fine", st: entry, want: OK, finds: "starts " + there + " serve at login"},
		{name: "running", st: running, want: OK, finds: "; it runs now"},
		{name: "binary gone", st: stale(gone, "its binary "+gone+" is gone"), want: Fail, finds: "is stale: its binary", fix: "clawd autostart enable"},
		{name: "another clawd", st: stale(there, "it starts "+there+", not this clawd"), want: Warn, finds: "not this clawd", fix: "clawd autostart enable"},
		{name: "unreadable", err: errors.New("permission denied"), want: Warn, finds: "permission denied"},
		{name: "remote mode", remote: true, want: Skipped, finds: "desktop's clawd serve"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Options{Autostart: func(context.Context) (autostart.Status, error) { return tc.st, tc.err }}
			rt := &runtimeState{}
			if tc.remote {
				rt.remote = &client.Remote{}
			}
			c := checkAutostart(context.Background(), o, rt)
			if c.ID != "autostart" || c.Status != tc.want || !strings.Contains(c.Finding, tc.finds) || !strings.Contains(c.Fix, tc.fix) {
				t.Errorf("checkAutostart = %+v, want %s, finding with %q, fix %q", c, tc.want, tc.finds, tc.fix)
			}
		})
	}
}

// TestRunAutostart: a whole run checks the entry, after the desktop; with
// agents named, or without an Autostart, it does not.
func TestRunAutostart(t *testing.T) {
	o := Options{Home: t.TempDir(), Getenv: func(string) string { return "" }, NoConnection: true, Ports: []int{},
		Autostart: func(context.Context) (autostart.Status, error) { return autostart.Status{}, nil }}
	has := func(r Report) bool {
		for _, c := range r.Checks {
			if c.ID == "autostart" {
				return true
			}
		}
		return false
	}
	if !has(Run(context.Background(), o, nil)) {
		t.Error("Run(all) has no autostart check")
	}
	o.Autostart = nil
	if has(Run(context.Background(), o, nil)) {
		t.Error("Run without Autostart has an autostart check")
	}
}
