// Package recap counts, per local day, per agent and per folder, what the
// agents did as the runtime saw it: sessions, turns, tool calls by tool,
// permission requests and questions, how long sessions waited for the
// person, failed turns and how long they were busy. It is pure: the
// runtime feeds it the events it applied and the sessions as the state
// machine left them, with the time; runtime/history keeps what it counted.
package recap

import (
	"fmt"
	"time"
)

// Day is a local calendar day, as "2006-01-02". Days follow the zone the
// counting runs in, daylight saving changes included: a day of 23 or 25
// hours is one day.
type Day string

// DayLayout is a Day's format.
const DayLayout = "2006-01-02"

// DayOf returns the day t falls on in loc.
func DayOf(t time.Time, loc *time.Location) Day {
	return Day(t.In(loc).Format(DayLayout))
}

// ParseDay checks a day's spelling.
func ParseDay(s string) (Day, error) {
	if _, err := time.Parse(DayLayout, s); err != nil {
		return "", fmt.Errorf("bad day %q: want YYYY-MM-DD", s)
	}
	return Day(s), nil
}

// Start returns the first instant of d in loc. Where a daylight saving
// change skips midnight (clocks go from 23:59:59 to 01:00), that is the
// moment of the change.
func (d Day) Start(loc *time.Location) time.Time {
	t, err := time.ParseInLocation(DayLayout, string(d), loc)
	if err != nil {
		return time.Time{}
	}
	y, m, dd := t.Date()
	start := time.Date(y, m, dd, 0, 0, 0, 0, loc)
	// time.Date may answer a midnight that does not exist with the hour
	// before it, on the day before: the day starts where that zone ends.
	if DayOf(start, loc) != d {
		_, start = start.ZoneBounds()
	}
	return start
}

// Next returns the day after d.
func (d Day) Next() Day { return d.Add(1) }

// Add returns the day n days after d (before it for n < 0).
func (d Day) Add(n int) Day {
	t, err := time.Parse(DayLayout, string(d))
	if err != nil {
		return d
	}
	return Day(t.AddDate(0, 0, n).Format(DayLayout))
}

// Bounds returns the first instant of d and of the day after, in loc: a
// day is [start, end).
func (d Day) Bounds(loc *time.Location) (start, end time.Time) {
	return d.Start(loc), d.Next().Start(loc)
}

// Split divides [from, to) at the local midnights of loc and calls f with
// each day's share, in order.
func Split(from, to time.Time, loc *time.Location, f func(Day, time.Duration)) {
	for from.Before(to) {
		d := DayOf(from, loc)
		end := d.Next().Start(loc)
		if !end.After(from) {
			// Never: a day's end is after every instant of it. Guard the
			// loop all the same.
			end = to
		}
		if end.After(to) {
			end = to
		}
		f(d, end.Sub(from))
		from = end
	}
}
