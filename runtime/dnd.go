package runtime

import (
	"net/http"

	"github.com/clawdhq/clawd/runtime/client"
)

// handleGetDND is GET /api/v1/dnd.
func (s *Server) handleGetDND(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, s.dndView())
}

// dndView is the do-not-disturb setting with the notification pause, when
// one is running.
func (s *Server) dndView() client.DND {
	d := client.DND{On: s.DND()}
	if until := s.NotificationsPausedUntil(); until.After(s.cfg.Now()) {
		d.NotificationsPausedUntil = &until
	}
	return d
}

// handlePostDND is POST /api/v1/dnd: it sets do-not-disturb and answers
// with the setting now in force. Switching it on answers every pending
// permission request with no decision (see SetDND).
func (s *Server) handlePostDND(w http.ResponseWriter, r *http.Request) {
	on, ok := readSwitch(w, r)
	if !ok {
		return
	}
	s.SetDND(on)
	writeJSON(w, http.StatusOK, s.dndView())
}

// readSwitch reads a switch's body, {"on": true} or {"on": false}; on
// anything else it has answered the request with the error.
func readSwitch(w http.ResponseWriter, r *http.Request) (on, ok bool) {
	var body struct {
		On *bool `json:"on"`
	}
	if !readBody(w, r, maxStateBody, &body) {
		return false, false
	}
	if body.On == nil {
		writeError(w, http.StatusBadRequest, `missing "on": send {"on": true} or {"on": false}`)
		return false, false
	}
	return *body.On, true
}
