package recap

import (
	"testing"
	"time"
)

// TestBuildCoverage: each day's length and how much of it clawd saw, a
// 23-hour day included, the gaps between runs, and nothing past now.
func TestBuildCoverage(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	at := inZone(t, berlin)
	cov := []Interval{
		{at("2026-03-28 20:00"), at("2026-03-29 01:00")},
		// Overlapping notes of one run count once.
		{at("2026-03-29 00:30"), at("2026-03-29 06:00")},
		{at("2026-03-30 09:00"), at("2026-03-30 12:00")},
	}
	now := at("2026-03-30 12:00")
	s := Build(nil, nil, cov, "2026-03-28", "2026-03-31", berlin, "Europe/Berlin", now, nil)
	want := []struct {
		day              Day
		seconds, covered int64
	}{
		{"2026-03-28", 24 * 3600, 4 * 3600},
		{"2026-03-29", 23 * 3600, 5 * 3600}, // 00:00-06:00 local is 5 hours that night
		{"2026-03-30", 12 * 3600, 3 * 3600}, // up to now
	}
	if len(s.Days) != len(want) {
		t.Fatalf("days = %+v, want %d (none after today)", s.Days, len(want))
	}
	for i, w := range want {
		if d := s.Days[i]; d.Day != w.day || d.Seconds != w.seconds || d.CoveredSeconds != w.covered {
			t.Errorf("day %d = %s %ds covered %ds, want %s %ds covered %ds", i, d.Day, d.Seconds, d.CoveredSeconds, w.day, w.seconds, w.covered)
		}
	}
	wantGaps := []Interval{
		{at("2026-03-28 00:00"), at("2026-03-28 20:00")},
		{at("2026-03-29 06:00"), at("2026-03-30 09:00")},
	}
	if len(s.Gaps) != len(wantGaps) {
		t.Fatalf("gaps = %v, want %v", s.Gaps, wantGaps)
	}
	for i := range wantGaps {
		if !s.Gaps[i].From.Equal(wantGaps[i].From) || !s.Gaps[i].To.Equal(wantGaps[i].To) {
			t.Errorf("gap %d = %v, want %v", i, s.Gaps[i], wantGaps[i])
		}
	}
	if s.Seconds != (24+23+12)*3600 || s.CoveredSeconds != (4+5+3)*3600 {
		t.Errorf("window %ds covered %ds, want %ds covered %ds", s.Seconds, s.CoveredSeconds, (24+23+12)*3600, (4+5+3)*3600)
	}
}

// TestBuildSessions counts a session seen on two days once in the totals
// and once on each day.
func TestBuildSessions(t *testing.T) {
	sc1 := Scope{Day: "2026-06-01", Agent: "claude", Folder: "f1"}
	sc2 := Scope{Day: "2026-06-02", Agent: "claude", Folder: "f1"}
	rows := []Row{{sc1, Counts{Turns: 2, Busy: time.Hour}}, {sc2, Counts{Turns: 1, Busy: time.Minute}}}
	seen := []Seen{{sc1, "s1"}, {sc2, "s1"}, {sc2, "s2"}, {Scope{Day: "2026-05-01", Agent: "codex", Folder: "f2"}, "old"}}
	now := time.Date(2026, 6, 3, 0, 0, 0, 0, time.UTC)
	s := Build(rows, seen, nil, "2026-06-01", "2026-06-02", time.UTC, "UTC", now, map[string]string{"f1": "/shop"})
	if s.Totals.Sessions != 2 || s.Totals.Turns != 3 || s.Totals.BusySeconds != 3660 {
		t.Errorf("totals = %+v, want 2 sessions, 3 turns, 3660 s busy", s.Totals)
	}
	if s.Days[0].Sessions != 1 || s.Days[1].Sessions != 2 {
		t.Errorf("sessions per day = %d, %d; want 1, 2", s.Days[0].Sessions, s.Days[1].Sessions)
	}
	if len(s.Agents) != 1 || s.Agents[0].Sessions != 2 || len(s.Folders) != 1 || s.Folders[0].Name != "/shop" {
		t.Errorf("agents %+v, folders %+v; want claude with 2 sessions, f1 named /shop (codex's day is out of range)", s.Agents, s.Folders)
	}
}
