package cmd

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/urfave/cli/v3"

	"github.com/clawdhq/clawd/internal/config"
	"github.com/clawdhq/clawd/internal/text"
	"github.com/clawdhq/clawd/runtime/channels/telegram"
	"github.com/clawdhq/clawd/runtime/client"
)

// The channels clawd knows, by the name the commands take.
const channelTelegram = "telegram"

// Bounds of `clawd channels pair --for`.
const (
	minPairingTTL = time.Minute
	maxPairingTTL = time.Hour
)

func newChannelsCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:        "channels",
		Usage:       e.t("help.channels.usage"),
		Description: e.t("help.channels.description"),
		Commands: []*cli.Command{
			newChannelsStatusCmd(e),
			newChannelsPairCmd(e),
			newChannelsUnpairCmd(e),
		},
	}
}

type channelsStatusOptions struct{ json bool }

func newChannelsStatusCmd(e *env) *cli.Command {
	o := &channelsStatusOptions{}
	return &cli.Command{
		Name:  "status",
		Usage: e.t("help.channels.status.usage"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: e.t("help.channels.status.flag_json"), Destination: &o.json},
		},
		Action: func(ctx context.Context, c *cli.Command) error { return runChannelsStatus(ctx, e, o) },
	}
}

type channelsPairOptions struct {
	noWait bool
	ttl    time.Duration
}

func newChannelsPairCmd(e *env) *cli.Command {
	o := &channelsPairOptions{}
	ttl := &cli.DurationFlag{Name: "for", Value: telegram.DefaultPairingTTL, HideDefault: true, Destination: &o.ttl}
	ttl.Usage = e.t("help.channels.pair.flag_for", ttl.Value)
	return &cli.Command{
		Name:        "pair",
		Usage:       e.t("help.channels.pair.usage"),
		ArgsUsage:   "CHANNEL",
		Description: e.t("help.channels.pair.description"),
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "no-wait", Usage: e.t("help.channels.pair.flag_no_wait"), Destination: &o.noWait},
			ttl,
		},
		Action: func(ctx context.Context, c *cli.Command) error { return runChannelsPair(ctx, e, o, c.Args().Slice()) },
	}
}

func newChannelsUnpairCmd(e *env) *cli.Command {
	return &cli.Command{
		Name:      "unpair",
		Usage:     e.t("help.channels.unpair.usage"),
		ArgsUsage: "CHANNEL",
		Action:    func(ctx context.Context, c *cli.Command) error { return runChannelsUnpair(e, c.Args().Slice()) },
	}
}

// channelArg checks that args name one channel clawd knows.
func channelArg(args []string, verb string) error {
	switch {
	case len(args) != 1:
		return exitCode(2, fmt.Errorf("usage: clawd channels %s telegram", verb))
	case args[0] != channelTelegram:
		return exitCode(2, fmt.Errorf("unknown channel %q: clawd knows %s", args[0], channelTelegram))
	}
	return nil
}

// telegramState is the Telegram channel as `clawd channels status` shows
// it: its settings, its token file (never the token), its chat and what
// the channel in clawd serve is doing.
type telegramState struct {
	Enabled   bool   `json:"enabled"`
	TokenFile string `json:"token_file"`
	// Token is "ok", "missing", "open" (others may read it) or "bad";
	// TokenError says why when it is not ok.
	Token      string         `json:"token"`
	TokenError string         `json:"token_error,omitempty"`
	Paired     bool           `json:"paired"`
	Chat       *telegram.Chat `json:"chat,omitempty"`
	// Serving is whether the running clawd serve runs the channel; Link
	// is its status file, when it is that serve's.
	Serving bool             `json:"serving"`
	Link    *telegram.Status `json:"link,omitempty"`
}

// readTelegramState reads the channel's state; runtimePID is the running
// clawd serve's (0: none).
func readTelegramState(e *env, cfg config.Config, runtimePID int) telegramState {
	t := cfg.Channels.Telegram
	st := telegramState{Enabled: t.Enabled, TokenFile: t.TokenPath(e.home()), Token: "ok"}
	if _, err := telegram.ReadToken(st.TokenFile); err != nil {
		st.TokenError = err.Error()
		switch {
		case errors.Is(err, telegram.ErrNoToken):
			st.Token = "missing"
		case errors.Is(err, telegram.ErrTokenOpen):
			st.Token = "open"
		default:
			st.Token = "bad"
		}
	}
	if c, ok, err := telegram.ReadChat(e.home()); ok && err == nil {
		st.Paired, st.Chat = true, &c
	}
	if s, ok, err := telegram.ReadStatus(e.home()); ok && err == nil && runtimePID != 0 && s.PID == runtimePID && s.State != telegram.StateStopped {
		st.Serving, st.Link = true, &s
	}
	return st
}

// runtimePID asks the running clawd serve for its pid; 0 when none runs.
func runtimePID(ctx context.Context, e *env) int {
	dctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	c, err := client.Discover(dctx, e.home(), client.Options{DialTimeout: time.Second, ProbeTimeout: 2 * time.Second})
	if err != nil {
		return 0
	}
	var h struct {
		PID int `json:"pid"`
	}
	if err := c.Call(dctx, http.MethodGet, "/api/v1/health", nil, &h); err != nil {
		return 0
	}
	return h.PID
}

func runChannelsStatus(ctx context.Context, e *env, o *channelsStatusOptions) error {
	cfg, err := config.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	st := readTelegramState(e, cfg, runtimePID(ctx, e))
	if o.json {
		return printJSON(e.stdout, map[string]telegramState{channelTelegram: st}, true)
	}
	w := e.stdout
	if st.Enabled {
		fmt.Fprintln(w, e.t("channels.telegram_on", config.Path(e.home())))
	} else {
		fmt.Fprintln(w, e.t("channels.telegram_off", config.Path(e.home())))
	}
	if st.Token == "ok" {
		fmt.Fprintln(w, "  "+e.t("channels.token_ok", st.TokenFile))
	} else {
		fmt.Fprintln(w, "  "+e.t("channels.token_bad", text.Line(st.TokenError, 0)))
	}
	if st.Chat != nil {
		fmt.Fprintln(w, "  "+e.t("channels.paired", text.Line(st.Chat.Name, 64), st.Chat.ChatID, st.Chat.PairedAt.Local().Format(time.DateTime)))
	} else {
		fmt.Fprintln(w, "  "+e.t("channels.not_paired"))
	}
	switch {
	case !st.Enabled:
	case st.Link == nil:
		fmt.Fprintln(w, "  "+e.t("channels.not_served"))
	case st.Link.State == telegram.StateOK:
		fmt.Fprintln(w, "  "+e.t("channels.link_ok", text.Line(st.Link.Bot, 64)))
	default:
		fmt.Fprintln(w, "  "+e.t("channels.link_failing", st.Link.State, text.Line(st.Link.Error, 300)))
	}
	if st.Link != nil && st.Link.SendError != "" {
		fmt.Fprintln(w, "  "+e.t("channels.send_failing", text.Line(st.Link.SendError, 300)))
	}
	return nil
}

func runChannelsPair(ctx context.Context, e *env, o *channelsPairOptions, args []string) error {
	if err := channelArg(args, "pair"); err != nil {
		return err
	}
	if o.ttl < minPairingTTL || o.ttl > maxPairingTTL {
		return exitCode(2, fmt.Errorf("--for %v: want between %v and %v", o.ttl, minPairingTTL, maxPairingTTL))
	}
	cfg, err := config.Load(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	pid := runtimePID(ctx, e)
	st := readTelegramState(e, cfg, pid)
	switch {
	case !st.Enabled:
		return exitCode(1, errors.New(e.t("channels.pair_off", config.Path(e.home()))))
	case st.Token != "ok":
		return exitCode(1, errors.New(st.TokenError))
	case pid == 0:
		return exitCode(1, errNotRunning)
	case !st.Serving:
		return exitCode(1, errors.New(e.t("channels.pair_not_served", pid)))
	}
	if st.Link.State != telegram.StateOK {
		fmt.Fprintln(e.stderr, e.t("channels.pair_link_down", text.Line(st.Link.Error, 300)))
	}
	start := e.now()
	p, err := telegram.StartPairing(e.home(), start, o.ttl, nil)
	if err != nil {
		return exitCode(1, err)
	}
	bot := e.t("channels.your_bot")
	if st.Link.Bot != "" {
		bot = "@" + st.Link.Bot
	}
	fmt.Fprintln(e.stdout, e.t("channels.pair_send", bot, o.ttl.Round(time.Second)))
	fmt.Fprintf(e.stdout, "\n    %s\n\n", p.Code)
	if st.Link.Bot != "" {
		fmt.Fprintln(e.stdout, e.t("channels.pair_link", "https://t.me/"+st.Link.Bot+"?start="+strings.ReplaceAll(p.Code, "-", "")))
	}
	if st.Chat != nil {
		fmt.Fprintln(e.stdout, e.t("channels.pair_replaces", text.Line(st.Chat.Name, 64)))
	}
	if o.noWait {
		return nil
	}
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for {
		if c, ok, _ := telegram.ReadChat(e.home()); ok && !c.PairedAt.Before(start.Add(-time.Second)) &&
			!telegram.PairingWaits(e.home(), e.now()) {
			fmt.Fprintln(e.stdout, e.t("channels.pair_done", text.Line(c.Name, 64), c.ChatID))
			return nil
		}
		if !e.now().Before(p.Expires) {
			return exitCode(1, errors.New(e.t("channels.pair_expired")))
		}
		select {
		case <-ctx.Done():
			// A code nobody will wait for is withdrawn.
			telegram.CancelPairing(e.home())
			return exitCode(1, errors.New(e.t("channels.pair_cancelled")))
		case <-tick.C:
		}
	}
}

func runChannelsUnpair(e *env, args []string) error {
	if err := channelArg(args, "unpair"); err != nil {
		return err
	}
	c, ok, err := telegram.Unpair(e.home())
	if err != nil {
		return exitCode(1, err)
	}
	if !ok {
		fmt.Fprintln(e.stdout, e.t("channels.unpair_none"))
		return nil
	}
	fmt.Fprintln(e.stdout, e.t("channels.unpaired", text.Line(c.Name, 64), c.ChatID))
	return nil
}
