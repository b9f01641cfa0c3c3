package agents

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e encoded as JSON to dst and returns the extended
// buffer. The bytes are exactly those json.Marshal(e) produces: the same
// keys in the same order, the same omitempty rules and the same string
// escaping (HTML-safe, U+2028/U+2029 escaped, invalid UTF-8 as \ufffd).
//
// It exists because `clawd hook` is a whole process per agent event, and the
// first json.Marshal in a process pays for reflection and its type cache,
// which is a noticeable share of the hook's few-millisecond budget.
//
// It returns json.Marshal's error, and dst unchanged, for a time that
// json.Marshal rejects: a year outside [0,9999] or a zone offset of 24 hours
// or more. TestAppendJSONCoversEveryField fails when a field is
// added to Event and not here.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	n0 := len(dst)
	dst = append(dst, `{"agent":`...)
	dst = appendJSONString(dst, e.Agent)
	dst = append(dst, `,"kind":`...)
	dst = appendJSONString(dst, string(e.Kind))
	dst = append(dst, `,"session_id":`...)
	dst = appendJSONString(dst, e.SessionID)
	dst = append(dst, `,"time":"`...)
	var ok bool
	if dst, ok = appendJSONTime(dst, e.Time); !ok {
		// Rare enough to pay for reflection: json.Marshal says why,
		// and should it ever accept what appendJSONTime rejects, its
		// bytes are still the right answer.
		b, err := json.Marshal(e)
		if err != nil {
			return dst[:n0], err
		}
		return append(dst[:n0], b...), nil
	}
	dst = append(dst, '"')
	dst = appendStringField(dst, `,"hook_event":`, e.HookEvent)
	dst = appendStringField(dst, `,"turn_id":`, e.TurnID)
	dst = appendStringField(dst, `,"cwd":`, e.Cwd)
	dst = appendStringField(dst, `,"project_dir":`, e.ProjectDir)
	dst = appendStringField(dst, `,"transcript":`, e.Transcript)
	dst = appendStringField(dst, `,"tool_name":`, e.ToolName)
	dst = appendStringField(dst, `,"tool_use_id":`, e.ToolUseID)
	if len(e.ToolUseIDs) > 0 {
		dst = append(dst, `,"tool_use_ids":[`...)
		for i, id := range e.ToolUseIDs {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, id)
		}
		dst = append(dst, ']')
	}
	dst = appendStringField(dst, `,"input_hash":`, e.InputHash)
	dst = appendStringField(dst, `,"subagent_id":`, e.SubagentID)
	dst = appendStringField(dst, `,"subagent_type":`, e.SubagentType)
	dst = appendStringField(dst, `,"title":`, e.Title)
	dst = appendStringField(dst, `,"title_source":`, string(e.TitleSource))
	dst = appendStringField(dst, `,"source":`, e.Source)
	dst = appendStringField(dst, `,"reason":`, e.Reason)
	dst = appendStringField(dst, `,"notification_type":`, e.NotificationType)
	dst = appendStringField(dst, `,"notice":`, string(e.Notice))
	dst = appendStringField(dst, `,"error_kind":`, e.ErrorKind)
	dst = appendStringField(dst, `,"error_text":`, e.ErrorText)
	dst = appendStringField(dst, `,"action":`, e.Action)
	dst = appendStringField(dst, `,"state":`, e.State)
	dst = appendStringField(dst, `,"permission_mode":`, e.PermissionMode)
	if e.Interrupt {
		dst = append(dst, `,"interrupt":true`...)
	}
	dst = appendIntField(dst, `,"background_tasks":`, e.BackgroundTasks)
	if e.Headless {
		dst = append(dst, `,"headless":true`...)
	}
	dst = appendIntField(dst, `,"agent_pid":`, e.AgentPID)
	if e.Truncated {
		dst = append(dst, `,"truncated":true`...)
	}
	dst = appendStringField(dst, `,"host":`, e.Host)
	dst = appendStringField(dst, `,"wsl_distro":`, e.Distro)
	if e.Response != "" {
		dst = appendStringField(dst, `,"response":`, e.Response)
	}
	return append(dst, '}'), nil
}

// appendStringField appends an omitempty string field: key is the comma,
// the quoted name and the colon.
func appendStringField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONString(append(dst, key...), s)
}

// appendIntField appends an omitempty int field.
func appendIntField(dst []byte, key string, n int) []byte {
	if n == 0 {
		return dst
	}
	return strconv.AppendInt(append(dst, key...), int64(n), 10)
}

// appendJSONTime appends t as time.Time.MarshalJSON does, without the
// quotes, and reports false where MarshalJSON would fail. The checks are
// those of time's appendStrictRFC3339, applied to the same formatted bytes.
func appendJSONTime(dst []byte, t time.Time) ([]byte, bool) {
	n0 := len(dst)
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	b := dst[n0:]
	if len(b) < len("9999-") || b[len("9999")] != '-' {
		return dst, false // the year is not exactly four digits
	}
	if b[len(b)-1] != 'Z' {
		c := b[len(b)-len("Z07:00")]
		h := b[len(b)-len("07:00"):]
		if '0' <= c && c <= '9' || 10*(h[0]-'0')+(h[1]-'0') >= 24 {
			return dst, false // the zone offset is 24 hours or more
		}
	}
	return dst, true
}

// jsonSafe is encoding/json's htmlSafeSet: the ASCII bytes that go into a
// JSON string as they are when HTML escaping is on, as it is for
// json.Marshal.
var jsonSafe = func() (safe [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		safe[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return safe
}()

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a quoted JSON string, escaped exactly as
// encoding/json's appendString does with escapeHTML set.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				// Other control bytes, and <, > and & so the JSON
				// can be embedded in HTML.
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		// U+2028 and U+2029 are valid JSON but end a line in JavaScript.
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
