package agents

import (
	"bytes"

	"github.com/tidwall/gjson"
)

// titleRecords are the lines of a JSONL transcript that name a session,
// by their "type": the field that holds the name and whether a person
// gave it (a rename) rather than the agent generated it. Claude Code and
// Qoder CLI both append such records to their transcripts.
type titleRecords map[string]titleRecord

type titleRecord struct {
	field string
	named bool
}

// line reads one transcript line, as a TitleFile's Line. A name the
// person gave holds whatever sessionId the record carries (a resumed or
// forked session inherits it); a generated title only for its own
// session.
func (recs titleRecords) line(line []byte, sessionID string) (string, bool, bool) {
	// Every title record starts with its type; the transcript's messages,
	// which do not, are passed over without parsing.
	if !bytes.HasPrefix(line, []byte(`{"type":"`)) || !gjson.ValidBytes(line) {
		return "", false, false
	}
	r := gjson.ParseBytes(line)
	rec, ok := recs[r.Get("type").String()]
	if !ok {
		return "", false, false
	}
	t := r.Get(rec.field)
	if t.Type != gjson.String {
		return "", false, false
	}
	if sid := r.Get("sessionId"); !rec.named && sid.Exists() && sid.String() != sessionID {
		return "", false, false
	}
	return t.String(), rec.named, true
}

// sessionTitleRecords are the title records of Qoder's and WorkBuddy's
// transcripts: {"type":"custom-title","customTitle":...,"sessionId":...}
// when the person renames a session, {"type":"ai-title","aiTitle":...}
// when the agent names it itself.
var sessionTitleRecords = titleRecords{
	"custom-title": {"customTitle", true},
	"ai-title":     {"aiTitle", false},
}
