package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime"
)

// postRecorder passes every request on to a real runtime's socket handler
// and keeps each posted event's body and the runtime's status.
type postRecorder struct {
	h      http.Handler
	mu     sync.Mutex
	bodies [][]byte
	codes  []int
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	w.code = code
	w.ResponseWriter.WriteHeader(code)
}

func (p *postRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost || r.URL.Path != "/api/v1/events" {
		p.h.ServeHTTP(w, r)
		return
	}
	b, _ := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(b))
	sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
	p.h.ServeHTTP(sw, r)
	p.mu.Lock()
	p.bodies = append(p.bodies, b)
	p.codes = append(p.codes, sw.code)
	p.mu.Unlock()
}

// setField returns the JSON object payload with key set to v.
func setField(t *testing.T, payload []byte, key string, v any) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(payload, &m); err != nil {
		t.Fatal(err)
	}
	m[key] = v
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHookStopAnswerFitsTheRuntime: a turn's final answer of any size and
// make-up reaches a real runtime over its socket within its body cap, cut
// if it must be, and the session leaves its turn. Before, a 40 KB code
// answer or 11,000 '<' (six bytes each, HTML-escaped) got a 413 and the
// session stayed working.
func TestHookStopAnswerFitsTheRuntime(t *testing.T) {
	code := strings.Repeat("if a < b && b > c {\n\treturn \"<div>\" + x\n}\n", 40_000/43)
	tests := []struct {
		name, answer, cwd string
		whole             bool // the answer arrives as it is
	}{
		{"40 KB of code", code, "", true},
		{"11,000 <", strings.Repeat("<", 11_000), "", true},
		{"64 KiB of control characters", strings.Repeat("\x01", agents.MaxResponseLen), "", false},
		{"64 KiB of text, huge cwd", strings.Repeat("a", agents.MaxResponseLen), "/" + strings.Repeat("\x02", 256<<10), false},
		{"code, huge cwd", code, "/" + strings.Repeat("\x1f", 256<<10), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			s := runtime.New(runtime.Config{Home: home, Version: "test"})
			rec := &postRecorder{h: s.SocketHandler()}
			serveOnSocket(t, home, rec)

			stop := fixture(t, "Stop.json")
			prompt := fixture(t, "UserPromptSubmit.json")
			if tt.cwd != "" {
				stop, prompt = setField(t, stop, "cwd", tt.cwd), setField(t, prompt, "cwd", tt.cwd)
			}
			stop = setField(t, stop, "last_assistant_message", tt.answer)
			for _, payload := range [][]byte{prompt, stop} {
				e, out, errb := testEnv(t, home, payload, map[string]string{"CLAUDE_CODE_SESSION_ATTENDED": "1"})
				if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 || out.Len() != 0 || errb.Len() != 0 {
					t.Fatalf("hook: exit %d, stdout %q, stderr %q", code, out, errb)
				}
			}
			if l := hookLog(t, home); l != "" {
				t.Errorf("hook.log = %q, want nothing logged", l)
			}
			rec.mu.Lock()
			defer rec.mu.Unlock()
			if len(rec.bodies) != 2 {
				t.Fatalf("the runtime got %d events, want 2", len(rec.bodies))
			}
			body := rec.bodies[1]
			if rec.codes[1] != http.StatusNoContent || len(body) > agents.MaxEventBody {
				t.Fatalf("Stop: %d bytes (cap %d), status %d, want 204", len(body), agents.MaxEventBody, rec.codes[1])
			}
			var ev agents.Event
			if err := json.Unmarshal(body, &ev); err != nil {
				t.Fatal(err)
			}
			got := ev.Response
			switch {
			case !utf8.ValidString(got) || got == "":
				t.Errorf("response of %d bytes, valid UTF-8 %v", len(got), utf8.ValidString(got))
			case tt.whole && got != tt.answer:
				t.Errorf("response of %d bytes, want all %d", len(got), len(tt.answer))
			case !tt.whole && (len(got) >= len(tt.answer) || !strings.HasPrefix(tt.answer, got)):
				t.Errorf("response of %d bytes, want a cut prefix of the %d-byte answer", len(got), len(tt.answer))
			}
			if tt.cwd != "" && len(ev.Cwd) != agents.MaxPathLen {
				t.Errorf("cwd of %d bytes, want the decoder's %d", len(ev.Cwd), agents.MaxPathLen)
			}
			snap := s.Snapshot()
			if len(snap.Sessions) != 1 || snap.Sessions[0].BaseState != "idle" || snap.Sessions[0].LastEvent != string(agents.KindTurnEnd) {
				t.Errorf("sessions after Stop = %+v, want one idle after its turn.end", snap.Sessions)
			}
			if gjson.GetBytes(body, "hook_event").String() != "Stop" {
				t.Errorf("the second event is %s, want Stop", gjson.GetBytes(body, "hook_event"))
			}
		})
	}
}

// TestHookEventTooLarge: an event whose paths alone, every byte escaped,
// are over the runtime's cap is dropped with a log line that says so, not
// that the runtime is unreachable.
func TestHookEventTooLarge(t *testing.T) {
	home := t.TempDir()
	s := runtime.New(runtime.Config{Home: home, Version: "test"})
	rec := &postRecorder{h: s.SocketHandler()}
	serveOnSocket(t, home, rec)
	path := "/" + strings.Repeat("\x01", agents.MaxPathLen)
	stop := setField(t, setField(t, fixture(t, "Stop.json"), "cwd", path), "transcript_path", path)
	e, _, _ := testEnv(t, home, stop, map[string]string{"CLAUDE_PROJECT_DIR": path})
	if code := run(context.Background(), e, []string{"clawd", "hook", "claude"}); code != 0 {
		t.Fatalf("hook exit %d", code)
	}
	if l := hookLog(t, home); !strings.Contains(l, "event too large for the runtime; dropped") || !strings.Contains(l, "event=Stop") {
		t.Errorf("hook.log = %q, want the event too large", l)
	}
	if len(rec.bodies) != 0 {
		t.Errorf("the runtime got %d events, want none", len(rec.bodies))
	}
}
