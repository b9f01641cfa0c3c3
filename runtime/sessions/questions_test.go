package sessions

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// TestAnswerFits: an answer the hook could not read whole
// (client.MaxAnswerLine) is refused rather than sent.
func TestAnswerFits(t *testing.T) {
	input := func(n int) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"x": strings.Repeat("a", n)})
		return b
	}
	if p := fits(client.Answer{Decision: &agents.Decision{Allow: true, UpdatedInput: input(agents.MaxRequestInput + 8*agents.MaxAnswerText*6)}}); p != "" {
		t.Errorf("fits(the largest answer an AskUserQuestion allows) = %q, want it to fit", p)
	}
	if p := fits(client.Answer{Decision: &agents.Decision{Allow: true, UpdatedInput: input(client.MaxAnswerLine)}}); !strings.Contains(p, "more than") {
		t.Errorf("fits(an answer of MaxAnswerLine bytes of input) = %q, want it refused", p)
	}
}
