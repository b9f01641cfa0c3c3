package recap

import (
	"cmp"
	"slices"
	"time"
)

// Row is a stored recap row: the counts of one scope (its Sessions left
// 0; Build counts them from the sessions seen).
type Row struct {
	Scope
	Counts
}

// Interval is a span of time [From, To) in which the runtime ran and saw
// what the agents did: its coverage.
type Interval struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Totals are counts as the recap reports them.
type Totals struct {
	Sessions    int `json:"sessions"`
	Turns       int `json:"turns"`
	ToolCalls   int `json:"tool_calls"`
	Permissions int `json:"permission_requests"`
	Questions   int `json:"questions"`
	// WaitingSeconds is how long sessions had a permission request or a
	// question open for the person.
	WaitingSeconds int64 `json:"waiting_seconds"`
	FailedTurns    int   `json:"failed_turns"`
	BusySeconds    int64 `json:"busy_seconds"`
}

func totals(c *Counts, sessions int) Totals {
	return Totals{
		Sessions: sessions, Turns: c.Turns, ToolCalls: c.ToolCalls, Permissions: c.Permissions,
		Questions: c.Questions, FailedTurns: c.FailedTurns,
		WaitingSeconds: int64(c.Waiting / time.Second), BusySeconds: int64(c.Busy / time.Second),
	}
}

// DaySummary is one local day of a recap.
type DaySummary struct {
	Day Day `json:"day"`
	// LengthSeconds is the day's length: 86400, or 82800 and 90000 on the
	// days daylight saving time starts and ends. Seconds is as much of it
	// as has passed: all of it but for today.
	LengthSeconds int64 `json:"length_seconds"`
	Seconds       int64 `json:"seconds"`
	// CoveredSeconds is how much of it clawd was running to see.
	CoveredSeconds int64 `json:"covered_seconds"`
	Totals
}

// AgentSummary is one agent's share of a recap.
type AgentSummary struct {
	Agent string `json:"agent"`
	Totals
}

// FolderSummary is one folder's share of a recap.
type FolderSummary struct {
	// Folder is the folder's hash; Name is its path, only when asked for
	// and known (see runtime/history).
	Folder string `json:"folder"`
	Name   string `json:"name,omitempty"`
	Totals
}

// ToolSummary is the calls of one tool.
type ToolSummary struct {
	Tool  string `json:"tool"`
	Calls int    `json:"calls"`
}

// Summary is a recap of whole local days, from From to To included. See
// the README for the JSON schema.
type Summary struct {
	// Zone is the time zone the days are local to.
	Zone string `json:"zone"`
	From Day    `json:"from"`
	To   Day    `json:"to"`
	// Seconds and CoveredSeconds are the days' lengths (up to now) and
	// how much of them clawd was running to see.
	Seconds        int64 `json:"seconds"`
	CoveredSeconds int64 `json:"covered_seconds"`
	// Gaps are the spans of the days, up to now, clawd did not see:
	// nothing is known of what the agents did then.
	Gaps   []Interval `json:"gaps"`
	Totals Totals     `json:"totals"`
	// Days are the days oldest first; Agents, Folders and Tools the
	// busiest first.
	Days    []DaySummary    `json:"days"`
	Agents  []AgentSummary  `json:"agents"`
	Folders []FolderSummary `json:"folders"`
	Tools   []ToolSummary   `json:"tools"`
}

// Build sums up rows, the sessions seen and the coverage for the days from
// from to to in loc, as of now. names, when not nil, names folders by
// their hash.
func Build(rows []Row, seen []Seen, coverage []Interval, from, to Day, loc *time.Location, zone string, now time.Time, names map[string]string) Summary {
	sum := Summary{Zone: zone, From: from, To: to, Gaps: []Interval{}, Days: []DaySummary{},
		Agents: []AgentSummary{}, Folders: []FolderSummary{}, Tools: []ToolSummary{}}
	inRange := func(d Day) bool { return d >= from && d <= to }

	type set map[string]bool
	all, byDay, byAgent, byFolder := set{}, map[Day]set{}, map[string]set{}, map[string]set{}
	add := func(m map[string]set, k, session string) {
		if m[k] == nil {
			m[k] = set{}
		}
		m[k][session] = true
	}
	for _, s := range seen {
		if !inRange(s.Day) {
			continue
		}
		all[s.Session] = true
		if byDay[s.Day] == nil {
			byDay[s.Day] = set{}
		}
		byDay[s.Day][s.Session] = true
		add(byAgent, s.Agent, s.Session)
		add(byFolder, s.Folder, s.Session)
	}

	var total Counts
	dayCounts, agentCounts, folderCounts := map[Day]*Counts{}, map[string]*Counts{}, map[string]*Counts{}
	into := func(m map[string]*Counts, k string, c *Counts) {
		if m[k] == nil {
			m[k] = &Counts{}
		}
		m[k].Add(c)
	}
	for i := range rows {
		r := &rows[i]
		if !inRange(r.Day) {
			continue
		}
		total.Add(&r.Counts)
		if dayCounts[r.Day] == nil {
			dayCounts[r.Day] = &Counts{}
		}
		dayCounts[r.Day].Add(&r.Counts)
		into(agentCounts, r.Agent, &r.Counts)
		into(folderCounts, r.Folder, &r.Counts)
	}
	sum.Totals = totals(&total, len(all))

	for d := from; d <= to; d = d.Next() {
		start, end := d.Bounds(loc)
		if !start.Before(now) {
			break
		}
		ds := DaySummary{Day: d, LengthSeconds: int64(end.Sub(start) / time.Second)}
		end = minTime(end, now)
		ds.Seconds = int64(end.Sub(start) / time.Second)
		ds.CoveredSeconds = int64(covered(coverage, start, end) / time.Second)
		c := dayCounts[d]
		if c == nil {
			c = &Counts{}
		}
		ds.Totals = totals(c, len(byDay[d]))
		sum.Days = append(sum.Days, ds)
		sum.Seconds += ds.Seconds
		sum.CoveredSeconds += ds.CoveredSeconds
	}
	if start := from.Start(loc); start.Before(now) {
		for _, g := range gaps(coverage, start, minTime(to.Next().Start(loc), now)) {
			sum.Gaps = append(sum.Gaps, Interval{From: g.From.In(loc), To: g.To.In(loc)})
		}
	}

	for a, c := range agentCounts {
		sum.Agents = append(sum.Agents, AgentSummary{Agent: a, Totals: totals(c, len(byAgent[a]))})
	}
	slices.SortFunc(sum.Agents, func(x, y AgentSummary) int {
		return cmp.Or(busier(x.Totals, y.Totals), cmp.Compare(x.Agent, y.Agent))
	})
	for f, c := range folderCounts {
		sum.Folders = append(sum.Folders, FolderSummary{Folder: f, Name: names[f], Totals: totals(c, len(byFolder[f]))})
	}
	slices.SortFunc(sum.Folders, func(x, y FolderSummary) int {
		return cmp.Or(busier(x.Totals, y.Totals), cmp.Compare(x.Folder, y.Folder))
	})
	for tool, n := range total.Tools {
		sum.Tools = append(sum.Tools, ToolSummary{Tool: tool, Calls: n})
	}
	slices.SortFunc(sum.Tools, func(x, y ToolSummary) int {
		return cmp.Or(cmp.Compare(y.Calls, x.Calls), cmp.Compare(x.Tool, y.Tool))
	})
	return sum
}

// busier orders the busiest first: by time busy, then turns, then tool
// calls.
func busier(x, y Totals) int {
	return cmp.Or(cmp.Compare(y.BusySeconds, x.BusySeconds), cmp.Compare(y.Turns, x.Turns),
		cmp.Compare(y.ToolCalls, x.ToolCalls))
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// covered returns how much of [start, end) the intervals cover (they may
// overlap).
func covered(cov []Interval, start, end time.Time) time.Duration {
	var d time.Duration
	for _, g := range gaps(cov, start, end) {
		d += g.To.Sub(g.From)
	}
	return end.Sub(start) - d
}

// gaps returns the spans of [start, end) no interval covers.
func gaps(cov []Interval, start, end time.Time) []Interval {
	ivs := slices.Clone(cov)
	slices.SortFunc(ivs, func(a, b Interval) int { return a.From.Compare(b.From) })
	out := []Interval{}
	at := start
	for _, iv := range ivs {
		if !iv.To.After(at) {
			continue
		}
		if iv.From.After(at) {
			g := Interval{From: at, To: minTime(iv.From, end)}
			if g.To.After(g.From) {
				out = append(out, g)
			}
		}
		if iv.To.After(at) {
			at = iv.To
		}
		if !at.Before(end) {
			break
		}
	}
	if at.Before(end) {
		out = append(out, Interval{From: at, To: end})
	}
	return out
}
