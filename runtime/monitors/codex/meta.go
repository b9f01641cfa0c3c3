package codex

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/clawdhq/clawd/agents"
	"github.com/tidwall/gjson"
)

// Meta is what a rollout's session_meta record says about its thread.
type Meta struct {
	// ThreadID is the thread this rollout belongs to (payload.id).
	ThreadID string
	// SessionID is the root thread of the session: the id hooks send as
	// session_id. It equals ThreadID except for a sub-agent's rollout.
	SessionID string
	// ParentThreadID is the thread that spawned a sub-agent.
	ParentThreadID string
	// Originator is the client that ran the thread: "codex_exec" for
	// `codex exec`, "codex-tui" for the TUI.
	Originator string
	Cwd        string
	// Source is payload.source when it is a word ("exec", "cli",
	// "vscode" — what the TUI's app-server daemon writes), or "subagent"
	// when it is a sub-agent's spawn record.
	Source string
	// ThreadSource is "user" or "subagent".
	ThreadSource string
	CLIVersion   string
	// AgentNickname and AgentRole name a sub-agent ("Hume"); the role is
	// empty for Codex's default agent.
	AgentNickname string
	AgentRole     string
	// Time is the record's timestamp.
	Time time.Time
}

// Headless reports whether nobody watches the thread: `codex exec`.
func (m Meta) Headless() bool { return m.Originator == "codex_exec" }

// Subagent reports whether the rollout is a sub-agent's, whose activity
// belongs to the root session SessionID.
func (m Meta) Subagent() bool {
	return m.ThreadSource == "subagent" || m.Source == "subagent" ||
		(m.ParentThreadID != "" && m.SessionID != m.ThreadID)
}

// ErrNoMeta is returned by ReadMeta for a file whose first line is not a
// session_meta record.
var ErrNoMeta = errors.New("no session_meta record")

// ReadMeta reads the first line of a rollout file, its session_meta
// record. It reads at most maxLine bytes: the record carries Codex's base
// instructions and can be tens of kilobytes long.
func ReadMeta(path string) (Meta, error) {
	f, err := os.Open(path)
	if err != nil {
		return Meta{}, fmt.Errorf("read rollout meta: %w", err)
	}
	defer f.Close()
	line, err := firstLine(f, defaultMaxLine)
	if err != nil {
		return Meta{}, fmt.Errorf("read rollout meta %s: %w", path, err)
	}
	m, ok := parseMeta(line)
	if !ok {
		return Meta{}, fmt.Errorf("read rollout meta %s: %w", path, ErrNoMeta)
	}
	return m, nil
}

// firstLine returns the first line of r, without its newline. A file of
// one unfinished line is still read: Codex writes the record whole.
func firstLine(r io.Reader, max int) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if len(line)+len(chunk) > max {
			return nil, fmt.Errorf("%w: first line longer than %d bytes", ErrNoMeta, max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			return line[:len(line)-1], nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return line, nil
		case errors.Is(err, io.EOF):
			return nil, ErrNoMeta
		default:
			return nil, err
		}
	}
}

// parseMeta decodes a session_meta line.
func parseMeta(line []byte) (Meta, bool) {
	if gjson.GetBytes(line, "type").String() != "session_meta" {
		return Meta{}, false
	}
	str := func(path string, max int) string {
		r := gjson.GetBytes(line, path)
		if r.Type != gjson.String {
			return ""
		}
		return clip(r.String(), max)
	}
	m := Meta{
		ThreadID:       str("payload.id", agents.MaxIDLen),
		SessionID:      str("payload.session_id", agents.MaxIDLen),
		ParentThreadID: str("payload.parent_thread_id", agents.MaxIDLen),
		Originator:     str("payload.originator", agents.MaxWordLen),
		Cwd:            str("payload.cwd", agents.MaxPathLen),
		Source:         str("payload.source", agents.MaxWordLen),
		ThreadSource:   str("payload.thread_source", agents.MaxWordLen),
		CLIVersion:     str("payload.cli_version", agents.MaxWordLen),
		AgentNickname:  str("payload.agent_nickname", agents.MaxIDLen),
		AgentRole:      str("payload.agent_role", agents.MaxIDLen),
		Time:           recordTime(line),
	}
	if m.ThreadID == "" {
		return Meta{}, false
	}
	if gjson.GetBytes(line, "payload.source.subagent").Exists() {
		m.Source = "subagent"
		if m.ParentThreadID == "" {
			m.ParentThreadID = str("payload.source.subagent.thread_spawn.parent_thread_id", agents.MaxIDLen)
		}
		if m.AgentRole == "" {
			m.AgentRole = str("payload.source.subagent.thread_spawn.agent_role", agents.MaxIDLen)
		}
	}
	// Rollouts before session_id was written name only their own
	// thread; a root thread is its own session.
	if m.SessionID == "" {
		m.SessionID = m.ThreadID
	}
	return m, true
}

// recordTime is a record's timestamp, zero when it has none.
func recordTime(line []byte) time.Time {
	r := gjson.GetBytes(line, "timestamp")
	if r.Type != gjson.String {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, r.Str)
	if err != nil {
		return time.Time{}
	}
	return t
}

// clip cuts s to at most n bytes without splitting a UTF-8 sequence.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
