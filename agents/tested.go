package agents

import (
	"strconv"
	"strings"
)

// Pinned returns the release of the agent the end-to-end tests run (the
// last of Tested), "" when no real CLI of it was tested.
func (a *Agent) Pinned() string {
	if len(a.Tested) == 0 {
		return ""
	}
	return a.Tested[len(a.Tested)-1]
}

// HooksFor returns the hooks to register for release version of the
// agent: Hooks without those whose Since is a later release. When the
// release is unknown ("", or no release number) whether it knows an event
// with a Since cannot be told: those are returned too, and named in
// keepOnly, to be kept where clawd's handler is there and not added where
// it is not (a `clawd serve` whose PATH lacks the agent leaves what
// `clawd install` wrote with the agent on PATH).
func (a *Agent) HooksFor(version string) (hooks []HookSpec, keepOnly map[string]bool) {
	known := isVersion(version)
	hooks = make([]HookSpec, 0, len(a.Hooks))
	for _, h := range a.Hooks {
		switch {
		case h.Since == "" || known && CompareVersions(version, h.Since) >= 0:
			hooks = append(hooks, h)
		case !known:
			hooks = append(hooks, h)
			if keepOnly == nil {
				keepOnly = map[string]bool{}
			}
			keepOnly[h.Event] = true
		}
	}
	return hooks, keepOnly
}

// Required returns the hooks an install for release version adds where
// they are missing: HooksFor's without those it only keeps.
func (a *Agent) Required(version string) []HookSpec {
	hooks, keepOnly := a.HooksFor(version)
	out := hooks[:0:0]
	for _, h := range hooks {
		if !keepOnly[h.Event] {
			out = append(out, h)
		}
	}
	return out
}

// NewerThanTested reports whether version, an installed release of the
// agent, is newer than every release in Tested: its hooks may send what
// clawd has not seen. False when nothing was tested or version does not
// read as a release number.
func (a *Agent) NewerThanTested(version string) bool {
	if len(a.Tested) == 0 || !isVersion(version) {
		return false
	}
	for _, t := range a.Tested {
		if CompareVersions(version, t) <= 0 {
			return false
		}
	}
	return true
}

// isVersion reports whether v starts with a number, as release numbers
// (2.1.332, 0.171.0-alpha.2, v1.2) do.
func isVersion(v string) bool {
	v = strings.TrimPrefix(v, "v")
	return v != "" && v[0] >= '0' && v[0] <= '9'
}

// CompareVersions orders two release numbers as -1, 0 or +1: dotted
// numbers compared field by field (a missing field is 0), a leading "v"
// ignored, and a pre-release ("-alpha.1") before the release itself. It
// knows no more of semver than agents' release numbers need.
func CompareVersions(a, b string) int {
	a, b = strings.TrimPrefix(a, "v"), strings.TrimPrefix(b, "v")
	ar, apre, _ := strings.Cut(a, "-")
	br, bpre, _ := strings.Cut(b, "-")
	if c := compareDotted(ar, br); c != 0 {
		return c
	}
	switch {
	case apre == bpre:
		return 0
	case apre == "":
		return 1
	case bpre == "":
		return -1
	}
	return compareDotted(apre, bpre)
}

// compareDotted compares dot-separated fields: numerically where both are
// numbers, else as strings.
func compareDotted(a, b string) int {
	af, bf := strings.Split(a, "."), strings.Split(b, ".")
	for i := range max(len(af), len(bf)) {
		x, y := "0", "0"
		if i < len(af) {
			x = af[i]
		}
		if i < len(bf) {
			y = bf[i]
		}
		xn, xerr := strconv.ParseUint(x, 10, 64)
		yn, yerr := strconv.ParseUint(y, 10, 64)
		switch {
		case xerr == nil && yerr == nil:
			if xn != yn {
				if xn < yn {
					return -1
				}
				return 1
			}
		case x != y:
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}
