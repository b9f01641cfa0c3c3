package recap

import (
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has
)

func zone(t *testing.T, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	if err != nil {
		t.Fatal(err)
	}
	return loc
}

// inZone returns a reader of "2006-01-02 15:04" times in loc.
func inZone(t *testing.T, loc *time.Location) func(string) time.Time {
	return func(s string) time.Time {
		t.Helper()
		v, err := time.ParseInLocation("2006-01-02 15:04", s, loc)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestDayBounds: a local day runs from its first instant to the next
// day's, 23 or 25 hours long where daylight saving time starts or ends,
// and starts at the change where the change skips midnight.
func TestDayBounds(t *testing.T) {
	tests := []struct {
		zone  string
		day   Day
		start string // RFC 3339
		hours float64
	}{
		{"Europe/Berlin", "2026-03-28", "2026-03-28T00:00:00+01:00", 24},
		{"Europe/Berlin", "2026-03-29", "2026-03-29T00:00:00+01:00", 23}, // 02:00 -> 03:00
		{"Europe/Berlin", "2026-03-30", "2026-03-30T00:00:00+02:00", 24},
		{"Europe/Berlin", "2026-10-25", "2026-10-25T00:00:00+02:00", 25}, // 03:00 -> 02:00
		{"America/New_York", "2026-03-08", "2026-03-08T00:00:00-05:00", 23},
		{"America/New_York", "2026-11-01", "2026-11-01T00:00:00-04:00", 25},
		// Midnight itself is skipped: the day starts at 01:00, the change.
		{"America/Santiago", "2022-09-11", "2022-09-11T01:00:00-03:00", 23},
		{"America/Santiago", "2022-09-10", "2022-09-10T00:00:00-04:00", 24},
		{"America/Havana", "2026-03-08", "2026-03-08T01:00:00-04:00", 23},
		// Lord Howe moves by half an hour.
		{"Australia/Lord_Howe", "2026-10-04", "2026-10-04T00:00:00+10:30", 23.5},
		{"UTC", "2026-06-01", "2026-06-01T00:00:00Z", 24},
	}
	for _, tt := range tests {
		loc := zone(t, tt.zone)
		start, end := tt.day.Bounds(loc)
		want, err := time.Parse(time.RFC3339, tt.start)
		if err != nil {
			t.Fatal(err)
		}
		if !start.Equal(want) {
			t.Errorf("%s %s starts at %v, want %v", tt.zone, tt.day, start, want)
		}
		if h := end.Sub(start).Hours(); h != tt.hours {
			t.Errorf("%s %s lasts %vh, want %vh", tt.zone, tt.day, h, tt.hours)
		}
		if DayOf(start, loc) != tt.day || DayOf(end.Add(-time.Nanosecond), loc) != tt.day || DayOf(end, loc) != tt.day.Next() {
			t.Errorf("%s %s: [%v, %v) is not exactly the day", tt.zone, tt.day, start, end)
		}
	}
}

// TestSplit divides spans at local midnights, DST days included.
func TestSplit(t *testing.T) {
	berlin := zone(t, "Europe/Berlin")
	at := inZone(t, berlin)
	type part struct {
		day Day
		d   time.Duration
	}
	tests := []struct {
		name     string
		from, to time.Time
		want     []part
	}{
		{"within a day", at("2026-06-01 10:00"), at("2026-06-01 10:30"), []part{{"2026-06-01", 30 * time.Minute}}},
		{"across midnight", at("2026-06-01 23:50"), at("2026-06-02 00:20"),
			[]part{{"2026-06-01", 10 * time.Minute}, {"2026-06-02", 20 * time.Minute}}},
		{"a whole spring-forward day and a bit", at("2026-03-28 23:00"), at("2026-03-30 01:00"),
			[]part{{"2026-03-28", time.Hour}, {"2026-03-29", 23 * time.Hour}, {"2026-03-30", time.Hour}}},
		{"a whole fall-back day", at("2026-10-25 00:00"), at("2026-10-26 00:00"),
			[]part{{"2026-10-25", 25 * time.Hour}}},
		{"empty", at("2026-06-01 10:00"), at("2026-06-01 10:00"), nil},
		{"backwards", at("2026-06-01 10:00"), at("2026-06-01 09:00"), nil},
	}
	for _, tt := range tests {
		var got []part
		Split(tt.from, tt.to, berlin, func(d Day, dur time.Duration) { got = append(got, part{d, dur}) })
		if len(got) != len(tt.want) {
			t.Errorf("%s: Split = %v, want %v", tt.name, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("%s: Split = %v, want %v", tt.name, got, tt.want)
				break
			}
		}
	}
}

func TestDayArithmetic(t *testing.T) {
	if got := Day("2026-03-01").Add(-1); got != "2026-02-28" {
		t.Errorf("2026-03-01 - 1 = %s", got)
	}
	if got := Day("2024-12-31").Next(); got != "2025-01-01" {
		t.Errorf("2024-12-31 + 1 = %s", got)
	}
	if _, err := ParseDay("2026-13-01"); err == nil {
		t.Error("ParseDay(2026-13-01) = nil error")
	}
}
