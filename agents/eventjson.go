package agents

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"
	"unicode/utf8"
)

// AppendJSON appends e encoded as JSON to dst and returns the extended
// buffer. The bytes are exactly those of a json.Encoder with
// SetEscapeHTML(false), without its trailing newline: the same keys in the
// same order, the same omitempty rules and the same string escaping
// (U+2028/U+2029 escaped, invalid UTF-8 as \ufffd, but <, > and & as they
// are). The HTML escaping of json.Marshal would make each of those six
// bytes: an answer full of code or markup would no longer fit the
// runtime's body cap (see AppendJSONWithin).
//
// It exists because `clawd hook` is a whole process per agent event, and the
// first json.Marshal in a process pays for reflection and its type cache,
// which is a noticeable share of the hook's few-millisecond budget.
//
// It returns encoding/json's error, and dst unchanged, for a time that
// encoding/json rejects: a year outside [0,9999] or a zone offset of 24 hours
// or more. TestAppendJSONCoversEveryField fails when a field is
// added to Event and not here.
func (e *Event) AppendJSON(dst []byte) ([]byte, error) {
	n0 := len(dst)
	dst = append(dst, `{"agent":`...)
	dst = appendJSONText(dst, e.Agent)
	dst = append(dst, `,"kind":`...)
	dst = appendJSONText(dst, string(e.Kind))
	dst = append(dst, `,"session_id":`...)
	dst = appendJSONText(dst, e.SessionID)
	dst = append(dst, `,"time":"`...)
	var ok bool
	if dst, ok = appendJSONTime(dst, e.Time); !ok {
		// Rare enough to pay for reflection: encoding/json says why,
		// and should it ever accept what appendJSONTime rejects, its
		// bytes are still the right answer.
		b, err := marshalJSON(e)
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
			dst = appendJSONText(dst, id)
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

// ErrEventTooLarge is AppendJSONWithin's refusal of an event whose fields
// other than Response alone take more than the cap.
var ErrEventTooLarge = errors.New("event too large")

// AppendJSONWithin is AppendJSON for a body of at most max bytes, such as
// MaxEventBody: e.Response, the agent's answer of any length, is cut to
// the longest prefix, on a UTF-8 boundary, whose encoding fits after the
// other fields (to none at all, and the key left out, when nothing does);
// cut reports that it was shortened. Only when the other fields alone do
// not fit does it fail, with ErrEventTooLarge and dst unchanged: the text
// never costs an event.
func (e *Event) AppendJSONWithin(dst []byte, max int) (out []byte, cut bool, err error) {
	n0 := len(dst)
	rest := *e
	rest.Response = ""
	if out, err = rest.AppendJSON(dst); err != nil {
		return out, false, err
	}
	// Measured, not encoded, first: an answer of 64 KiB of control bytes
	// would take 384 KiB.
	room := max - (len(out) - n0) - len(`,"response":""`)
	text := e.Response[:jsonPrefix(e.Response, room)]
	if text != "" {
		out = appendStringField(out[:len(out)-1], `,"response":`, text)
		out = append(out, '}')
	}
	if len(out)-n0 > max {
		return out[:n0], false, fmt.Errorf("%w: %d bytes without its response, more than %d", ErrEventTooLarge, len(out)-n0, max)
	}
	return out, len(text) < len(e.Response), nil
}

// jsonPrefix returns the length of the longest prefix of s that
// appendJSONText encodes (quotes aside) in at most room bytes and that
// ends on a UTF-8 boundary; 0 when room is not positive. It costs each
// rune as appendJSONText writes it: an invalid byte, a control byte,
// U+2028 and U+2029 take six bytes, so even a string of nothing but those
// is cut to fit.
func jsonPrefix(s string, room int) int {
	n := 0
	for i := 0; i < len(s); {
		w, size := 1, 1
		if b := s[i]; b < utf8.RuneSelf {
			switch {
			case jsonSafe[b]:
			case b == '\\', b == '"', b == '\b', b == '\f', b == '\n', b == '\r', b == '\t':
				w = 2
			default:
				w = len(`\u0000`)
			}
		} else {
			var c rune
			c, size = utf8.DecodeRuneInString(s[i:])
			w = size
			if c == utf8.RuneError && size == 1 || c == '\u2028' || c == '\u2029' {
				w = len(`\ufffd`)
			}
		}
		if n+w > room {
			return i
		}
		n += w
		i += size
	}
	return len(s)
}

// marshalJSON is what AppendJSON's bytes equal: v as a json.Encoder
// without HTML escaping writes it, without the newline after it.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// appendStringField appends an omitempty string field: key is the comma,
// the quoted name and the colon.
func appendStringField(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendJSONText(append(dst, key...), s)
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

// jsonSafe is encoding/json's safeSet: the ASCII bytes that go into a
// JSON string as they are when HTML escaping is off. htmlSafe is its
// htmlSafeSet, for json.Marshal's escaping, without <, > and &.
var jsonSafe, htmlSafe = func() (safe, html [utf8.RuneSelf]bool) {
	for b := ' '; b < utf8.RuneSelf; b++ {
		safe[b] = b != '"' && b != '\\'
		html[b] = safe[b] && b != '<' && b != '>' && b != '&'
	}
	return safe, html
}()

const hexDigits = "0123456789abcdef"

// appendJSONText appends s as a quoted JSON string, escaped exactly as
// encoding/json's appendString does with escapeHTML unset.
func appendJSONText(dst []byte, s string) []byte { return appendEscaped(dst, s, &jsonSafe) }

// appendJSONString appends s as json.Marshal encodes it, escaped for HTML
// too. The fingerprints of Codex's and Copilot's commands hash it, and so
// stay what earlier clawd versions computed.
func appendJSONString(dst []byte, s string) []byte { return appendEscaped(dst, s, &htmlSafe) }

// appendEscaped appends s as a quoted JSON string, escaped as
// encoding/json's appendString does: the ASCII bytes not in safe as \uXXXX
// (or their short escapes).
func appendEscaped(dst []byte, s string, safe *[utf8.RuneSelf]bool) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if safe[b] {
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
				// Other control bytes, and <, > and & when
				// escaped for HTML.
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
