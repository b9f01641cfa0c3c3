//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/clawdhq/clawd/runtime"
	"github.com/clawdhq/clawd/runtime/client"
)

// capturedInput is the tool_input of a captured Claude Code payload, with
// the fields of set changed.
func capturedInput(t *testing.T, file string, set map[string]any) map[string]any {
	t.Helper()
	var m struct {
		ToolInput map[string]any `json:"tool_input"`
	}
	if err := json.Unmarshal(readTestdata(t, "claude", "hooks", file), &m); err != nil {
		t.Fatal(err)
	}
	for k, v := range set {
		m.ToolInput[k] = v
	}
	return m.ToolInput
}

// TestDashboardRequestCards: real `clawd hook claude` processes send
// Claude Code 2.1.328's captured requests (an Edit, a Bash call with its
// description, a WebFetch, an MCP tool) from a folder of a Git checkout,
// and Chromium reads each card: the folder by its repository with the
// whole path on hover, the session's title, how long it has waited,
// counted on in the page; the Edit's diff, line by line, its file relative
// to the repository; the description; the fetch's prompt; the MCP tool by
// server and tool. Allow is the primary button and the card's first Tab
// stop; the "always" offer reads as Claude's own label, once. Allow from
// the card makes the hook print Claude's allow. With CLAWD_CARD_SHOTS set,
// the page is pictured there at 1280 and 390 px.
func TestDashboardRequestCards(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	w := newWorld(t)
	srv := runInProcess(t, runtime.Config{Home: w.clawdHome})
	tab := newBrowser(t)
	if err := chromedp.Do(tab, chromedp.Navigate(srv.DashboardLogin().URL), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		t.Fatal(err)
	}
	checkout := filepath.Join(w.dir, "src", "shop")
	cwd := filepath.Join(checkout, "api")
	for _, d := range []string{filepath.Join(checkout, ".git"), cwd} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	const (
		sidEdit  = "5e550000-0000-4000-8000-0000000000c1"
		sidBash  = "5e550000-0000-4000-8000-0000000000c2"
		sidFetch = "5e550000-0000-4000-8000-0000000000c3"
		sidMCP   = "5e550000-0000-4000-8000-0000000000c4"
		title    = "Fix the greeting"
	)
	edit := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.Edit.json", sidEdit, cwd, "session_title", title,
		"tool_input", capturedInput(t, "PermissionRequest.Edit.json", map[string]any{"file_path": filepath.Join(cwd, "main.go")})))
	editCard := pageCard(t, tab, srv, sidEdit)
	bash := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.json", sidBash, cwd))
	bashCard := pageCard(t, tab, srv, sidBash)
	fetch := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.WebFetch.json", sidFetch, checkout))
	fetchCard := pageCard(t, tab, srv, sidFetch)
	mcp := w.blockingHook(ctx, claudePayload(t, "PermissionRequest.mcp.json", sidMCP, filepath.Join(w.dir, "loose")))
	mcpCard := pageCard(t, tab, srv, sidMCP)

	in := func(c requestCard, js string) string { return `document.querySelector('` + c.sel + `')` + js }

	// Where, and for how long, counted on in the page.
	if where := pageEval[string](t, tab, in(editCard, `.querySelector(".where").textContent`)); where != " — shop/api · "+title {
		t.Errorf("the Edit's card says where: %q, want the folder by its repository and the session's title", where)
	}
	if hover := pageEval[string](t, tab, in(editCard, `.querySelector(".where").title`)); hover != cwd {
		t.Errorf("the folder's hover reads %q, want the whole path %s", hover, cwd)
	}
	if where := pageEval[string](t, tab, in(fetchCard, `.querySelector(".where").textContent`)); where != " — shop" {
		t.Errorf("a request at the checkout's root says where: %q, want the repository's name", where)
	}
	if where := pageEval[string](t, tab, in(mcpCard, `.querySelector(".where").textContent`)); where != " — loose" {
		t.Errorf("a request outside any repository says where: %q, want its folder's name", where)
	}
	waitedRe := regexp.MustCompile(`^ · waiting (\d+)s$`)
	waitedJS := in(editCard, `.querySelector(".waited").textContent`)
	first := pageEval[string](t, tab, waitedJS)
	m := waitedRe.FindStringSubmatch(first)
	if m == nil {
		t.Fatalf("the Edit's card says it waited %q, want \" · waiting Ns\"", first)
	}
	was, _ := strconv.Atoi(m[1])
	waitPage(t, tab, "the wait counted on", `((re, was) => { const m = re.exec(`+waitedJS+`); return m && Number(m[1]) > was; })(/waiting (\d+)s$/, `+m[1]+`)`, 10*time.Second)
	if ps := srv.Permissions(); len(ps) == 0 || time.Since(ps[0].CreatedAt) < time.Duration(was)*time.Second {
		t.Errorf("the page counts %ds, more than the request has waited", was)
	}

	// The Edit's diff, as Claude Code's payload has it, its file relative
	// to the repository as in its line.
	if line := pageEval[string](t, tab, in(editCard, `.querySelector(".line").textContent`)); line != "Edit: api/main.go" {
		t.Errorf("the Edit card's line = %q, want Edit: api/main.go", line)
	}
	if path := pageEval[string](t, tab, in(editCard, `.querySelector(".change-head code").textContent`)); path != "api/main.go" {
		t.Errorf("the diff's file reads %q, want api/main.go (relative to the repository)", path)
	}
	lines := pageEval[[][]string](t, tab, `[...`+in(editCard, `.querySelectorAll(".diff-lines span")`)+`].map((s) => [s.className, s.textContent])`)
	want := [][]string{{"del", "-\tprintln(\"hello\")\n"}, {"add", "+\tprintln(\"hello, world\")\n"}, {"add", "+\tprintln(\"bye\")\n"}}
	if !slices.EqualFunc(lines, want, slices.Equal) {
		t.Errorf("the Edit's diff reads %q, want %q", lines, want)
	}

	// A card without a change or a description shows nothing in their
	// place.
	for _, c := range []requestCard{editCard, bashCard, fetchCard, mcpCard} {
		if text := c.text(t, tab); regexp.MustCompile(`(?m)^(null|undefined)$`).MatchString(text) {
			t.Errorf("request %s's card holds a stray null:\n%s", c.id, text)
		}
	}

	// What the agent says of the call, and who is called.
	if d := pageEval[string](t, tab, in(bashCard, `.querySelector(".description").textContent`)); d != "Write hello to out.txt" {
		t.Errorf("the Bash card's description = %q, want the command's own", d)
	}
	if line := pageEval[string](t, tab, in(bashCard, `.querySelector(".line").textContent`)); line != "Bash: echo hello > out.txt" {
		t.Errorf("the Bash card's line = %q", line)
	}
	if line, prompt := pageEval[string](t, tab, in(fetchCard, `.querySelector(".line").textContent`)),
		pageEval[string](t, tab, in(fetchCard, `.querySelector(".prompt").textContent`)); line != "WebFetch: https://example.com/docs" ||
		prompt != "asks of the page: Summarize the install steps" {
		t.Errorf("the WebFetch card reads %q / %q, want its URL and prompt", line, prompt)
	}
	if line := pageEval[string](t, tab, in(mcpCard, `.querySelector(".line").textContent`)); line != "mini · ask_user: color?" {
		t.Errorf("the MCP card's line = %q, want the server · tool", line)
	}

	// The offer reads once, as Claude labels it; Allow is the primary
	// button and the first Tab stop of the first card.
	labels := pageEval[[]string](t, tab, `[...`+in(editCard, `.querySelectorAll("button")`)+`].map((b) => b.textContent)`)
	if !slices.Equal(labels, []string{"Allow", "Deny", "Auto-accept edits this session", "Answer in terminal"}) {
		t.Errorf("the Edit's buttons read %q, want Allow, Deny, Claude's own label and the terminal", labels)
	}
	if text := editCard.text(t, tab); strings.Contains(text, "Always") || strings.Count(text, "Auto-accept") != 1 {
		t.Errorf("the Edit's card reads %q, want its offer once, without an Always prefix", text)
	}
	if bg := pageEval[string](t, tab, in(editCard, `.querySelector("button.allow")`)+` && getComputedStyle(`+in(editCard, `.querySelector("button.allow")`)+`).backgroundColor`); bg != "rgb(26, 117, 53)" {
		t.Errorf("Allow's background is %q, want the allow colour: the primary action", bg)
	}
	if bg := pageEval[string](t, tab, `getComputedStyle(`+in(editCard, `.querySelector("button.deny")`)+`).backgroundColor`); bg == "rgb(26, 117, 53)" {
		t.Error("Deny is styled as the primary action too")
	}
	pageEval[bool](t, tab, `document.getElementById("f-inbox").focus(); true`)
	if err := chromedp.Do(tab, chromedp.KeyEvent(kb.Tab)); err != nil {
		t.Fatal(err)
	}
	if !pageEval[bool](t, tab, `document.activeElement === `+in(editCard, `.querySelector("button")`)+` && document.activeElement.classList.contains("allow")`) {
		t.Errorf("Tab from the inbox's filter lands on %q, want the first card's Allow", pageEval[string](t, tab, `document.activeElement.outerHTML.slice(0, 120)`))
	}

	cardShots(t, tab)

	editCard.click(t, tab, "Allow")
	if r := edit.wait(t); !jsonEqual(r.stdout, string(readTestdata(t, "claude", "outputs", "PermissionRequest.allow.json"))) {
		t.Errorf("the hook after Allow printed %q, want Claude's allow", r.stdout)
	}
	for _, c := range []requestCard{bashCard, fetchCard, mcpCard} {
		if _, err := srv.Decide(c.id, client.DecisionBody{Behavior: client.Terminal}); err != nil {
			t.Fatal(err)
		}
	}
	for _, h := range []*blockedHook{bash, fetch, mcp} {
		h.wait(t)
	}
}

// cardShots pictures the page at 1280 and 390 px, each fitting its width,
// into $CLAWD_CARD_SHOTS when it is set.
func cardShots(t *testing.T, tab context.Context) {
	t.Helper()
	dir := os.Getenv("CLAWD_CARD_SHOTS")
	pageEval[bool](t, tab, `document.activeElement && document.activeElement.blur(); true`)
	for _, width := range []int64{1280, 390} {
		if err := chromedp.Do(tab, chromedp.EmulateViewport(width, 1400)); err != nil {
			t.Fatal(err)
		}
		if over := pageEval[float64](t, tab, `document.documentElement.scrollWidth - window.innerWidth`); over > 0 {
			t.Errorf("at %d px the page is %v px wider than the viewport", width, over)
		}
		buf, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
		if err != nil {
			t.Fatal(err)
		}
		if img, err := png.Decode(bytes.NewReader(buf)); err != nil || int64(img.Bounds().Dx()) != width {
			t.Fatalf("screenshot at %d px: %v", width, err)
		}
		if dir != "" {
			file := filepath.Join(dir, "cards-"+strconv.FormatInt(width, 10)+".png")
			if err := os.WriteFile(file, buf, 0o644); err != nil {
				t.Fatal(err)
			}
			t.Logf("wrote %s", file)
		}
	}
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
}
