package runtime

import (
	"net/http"

	"github.com/clawdhq/clawd/runtime/client"
)

// handleGetDND is GET /api/v1/dnd.
func (s *Server) handleGetDND(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, client.DND{On: s.DND()})
}

// handlePostDND is POST /api/v1/dnd: it sets do-not-disturb and answers
// with the setting now in force. Switching it on answers every pending
// permission request with no decision (see SetDND).
func (s *Server) handlePostDND(w http.ResponseWriter, r *http.Request) {
	var body struct {
		On *bool `json:"on"`
	}
	if !readBodyCapped(w, r, maxStateBody, &body) {
		return
	}
	if body.On == nil {
		writeError(w, http.StatusBadRequest, `missing "on": send {"on": true} or {"on": false}`)
		return
	}
	s.SetDND(*body.On)
	writeJSON(w, http.StatusOK, client.DND{On: s.DND()})
}
