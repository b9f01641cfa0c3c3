package doctor

import (
	"errors"
	"time"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/health"
	"github.com/clawdhq/clawd/internal/i18n"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
)

// checkChannels checks the channels config.toml turns on: for Telegram,
// its token file, its pairing, and what the channel in the running clawd
// serve says of Telegram (its status file). A channel that fails never
// keeps a request from being answered on this machine, so its trouble is
// a warning, except a token Telegram rejects, which needs the person.
func checkChannels(o Options, cfg config.Config, rt *runtimeState) []Check {
	t := cfg.Channels.Telegram
	if !t.Enabled {
		return nil
	}
	var out []Check
	var none i18n.Msg
	add := func(id string, s Status, finding, fix i18n.Msg) {
		out = append(out, health.New("channels.telegram."+id, "", s, finding, fix))
	}
	path := t.TokenPath(o.Home)
	switch _, err := telegram.ReadToken(path); {
	case errors.Is(err, telegram.ErrNoToken):
		add("token", Fail, i18n.M("doctor.finding.telegram.no_token", path), i18n.M("doctor.fixes.telegram.token", path))
	case errors.Is(err, telegram.ErrTokenOpen):
		add("token", Fail, i18n.M("doctor.finding.error", err.Error()), i18n.Literal("chmod 600 "+path))
	case err != nil:
		add("token", Fail, i18n.M("doctor.finding.error", err.Error()), i18n.M("doctor.fixes.telegram.token", path))
	default:
		add("token", OK, i18n.M("doctor.finding.telegram.token_ok", path), none)
	}
	pair := i18n.Literal("clawd channels pair telegram")
	switch c, ok, err := telegram.ReadChat(o.Home); {
	case err != nil:
		add("paired", Fail, i18n.M("doctor.finding.error", err.Error()), pair)
	case !ok:
		add("paired", Warn, i18n.M("doctor.finding.telegram.not_paired"), pair)
	default:
		add("paired", OK, i18n.M("doctor.finding.telegram.paired", text.Line(c.Name, 64), c.ChatID), none)
	}
	if rt.pid == 0 {
		// runtime.reachable says it already.
		add("link", Skipped, i18n.M("doctor.finding.telegram.no_serve"), none)
		return out
	}
	st, ok, err := telegram.ReadStatus(o.Home)
	since := st.Since.Local().Format(time.DateTime)
	why := text.Line(st.Error, 300)
	switch {
	case err != nil:
		add("link", Warn, i18n.M("doctor.finding.error", err.Error()), i18n.M("doctor.fixes.restart"))
	case !ok || st.PID != rt.pid || st.State == telegram.StateStopped:
		add("link", Warn, i18n.M("doctor.finding.telegram.not_served", rt.pid), i18n.M("doctor.fixes.restart"))
	case st.State == telegram.StateOK && st.SendError != "":
		add("link", Warn, i18n.M("doctor.finding.telegram.send", text.Line(st.SendError, 300)), i18n.M("doctor.fixes.telegram.send"))
	case st.State == telegram.StateOK:
		add("link", OK, i18n.M("doctor.finding.telegram.ok", text.Line(st.Bot, 64)), none)
	case st.State == telegram.StateStarting:
		add("link", Warn, i18n.M("doctor.finding.telegram.starting"), i18n.M("doctor.fixes.telegram.network"))
	case st.State == telegram.StateTokenRejected:
		add("link", Fail, i18n.M("doctor.finding.telegram.rejected", why), i18n.M("doctor.fixes.telegram.rejected", path))
	case st.State == telegram.StateConflict:
		add("link", Warn, i18n.M("doctor.finding.telegram.conflict", why), i18n.M("doctor.fixes.telegram.conflict"))
	case st.State == telegram.StateNoToken:
		add("link", Warn, i18n.M("doctor.finding.error", why), i18n.M("doctor.fixes.telegram.token", path))
	default:
		add("link", Warn, i18n.M("doctor.finding.telegram.failing", since, why), i18n.M("doctor.fixes.telegram.network"))
	}
	return out
}
