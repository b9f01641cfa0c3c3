package installers

import "github.com/aymanbagabas/go-udiff"

// unifiedDiff returns the unified diff that turns old into new, with the
// file names fromName and toName, or "" when they are equal. It is only
// computed for a dry run, where it is shown: go-udiff's bounded LCS keeps
// time and memory about linear in the files' size, where a plain Myers
// diff of a 20 MB settings file took gigabytes.
func unifiedDiff(fromName, toName string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	return udiff.Unified(fromName, toName, string(old), string(new))
}
