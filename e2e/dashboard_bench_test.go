//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/clawdhq/clawd/agents"
	"github.com/clawdhq/clawd/runtime/client"
)

// The dashboard's benchmarks, in real Chromium against a real clawd serve
// (run them with a fixed count: each iteration is a hook process or an
// update of the page):
//
//	go test -run '^$' -bench Dashboard -benchtime 100x ./e2e/
//
// BenchmarkDashboardHookToRow: a `clawd hook claude` SessionStart process
// starting → its session's row in the page (target p50 <= 100 ms).
// BenchmarkDashboardUpdate200x50: one update of a page that lists 200
// sessions and 50 pending requests, from the event's post to the page
// rendered and laid out, and the render and layout alone.

// benchServe is a headless clawd serve for a benchmark.
type benchServe struct {
	env  []string
	info runtimeInfo
}

func startBenchServe(b *testing.B) *benchServe {
	b.Helper()
	dir := b.TempDir()
	home, clawdHome := filepath.Join(dir, "home"), filepath.Join(dir, "ch")
	for _, d := range []string{home, clawdHome} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			b.Fatal(err)
		}
	}
	s := &benchServe{env: append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CLAWD_HOME=" + clawdHome,
		"LANG=C.UTF-8", "XDG_RUNTIME_DIR=" + dir}, raceEnv()...)}
	cmd := exec.Command(clawdBin, "serve", "--headless", "--port", "0")
	cmd.Env = s.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	b.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		data, err := os.ReadFile(filepath.Join(clawdHome, "runtime.json"))
		if err == nil && json.Unmarshal(data, &s.info) == nil && s.info.Port != 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("clawd serve wrote no runtime.json within 15 s")
		}
	}
	return s
}

func (s *benchServe) clawd(b *testing.B, stdin string, args ...string) string {
	b.Helper()
	cmd := exec.Command(clawdBin, args...)
	cmd.Env = s.env
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.Output()
	if err != nil {
		b.Fatalf("clawd %s: %v", strings.Join(args, " "), err)
	}
	return string(out)
}

// open logs a new browser's tab in to the dashboard.
func (s *benchServe) open(b *testing.B) context.Context {
	b.Helper()
	tab := newBrowser(b)
	u := strings.TrimSpace(s.clawd(b, "", "dashboard", "--no-open"))
	if err := chromedp.Do(tab, chromedp.Navigate(u), chromedp.WaitVisible(chromedp.CSS("#conn.live"))); err != nil {
		b.Fatal(err)
	}
	return tab
}

func percentile(xs []float64, p float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[min(len(s)-1, int(p*float64(len(s))))]
}

func BenchmarkDashboardHookToRow(b *testing.B) {
	s := startBenchServe(b)
	tab := s.open(b)
	var lags []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		sid := fmt.Sprintf("5e550000-0000-4000-8000-%012d", i)
		pageEval[bool](b, tab, "("+watchRow+")('claude/"+sid+"')")
		payload := claudePayload(b, "SessionStart.json", sid, "/home/ada/src/bench")
		start := time.Now()
		s.clawd(b, payload, "hook", "claude")
		waitPage(b, tab, "the new session", `!!(window.__seen||{})["claude/`+sid+`"]`, 10*time.Second)
		seen := pageEval[float64](b, tab, `window.__seen["claude/`+sid+`"]`)
		lags = append(lags, float64(time.UnixMilli(int64(seen)).Sub(start))/float64(time.Millisecond))
	}
	b.StopTimer()
	b.ReportMetric(percentile(lags, 0.5), "ms-p50")
	b.ReportMetric(percentile(lags, 0.9), "ms-p90")
	b.ReportMetric(0, "ns/op")
}

func BenchmarkDashboardUpdate200x50(b *testing.B) {
	s := startBenchServe(b)
	c := client.NewSocket(s.info.Socket, client.Options{DialTimeout: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sid := func(i int) string { return fmt.Sprintf("5e550000-0000-4000-8000-%012d", i) }
	for i := range 200 {
		e := agents.Event{Agent: "claude", Kind: agents.KindPromptSubmit, SessionID: sid(i), Time: time.Now().UTC(),
			Cwd: fmt.Sprintf("/home/ada/src/project-%03d", i), Title: fmt.Sprintf("Task number %d of the benchmark", i), TitleSource: agents.TitleFromPrompt}
		if err := c.PostEvent(ctx, e); err != nil {
			b.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	for i := range 50 {
		body, _ := json.Marshal(client.RequestBody{
			Event: agents.Event{Agent: "claude", Kind: agents.KindPermissionRequest, SessionID: sid(i), Time: time.Now().UTC(),
				Cwd: fmt.Sprintf("/home/ada/src/project-%03d", i), ToolName: "Bash"},
			Request:     agents.Request{ToolInput: json.RawMessage(fmt.Sprintf(`{"command":"npm test -- --shard %d"}`, i)), Summary: fmt.Sprintf("npm test -- --shard %d", i)},
			WaitSeconds: 600,
		})
		wg.Go(func() { client.AskPermission(ctx, s.info.Socket, body) })
	}
	tab := s.open(b)
	waitPage(b, tab, "200 sessions and 50 requests", `document.querySelectorAll("#session-list li").length === 200 && document.querySelectorAll("#needs-list li").length === 50`, 30*time.Second)
	// Time each render with the layout it causes.
	pageEval[bool](b, tab, `(() => {
	  const orig = render;
	  window.__renders = [];
	  render = (v) => { const t = performance.now(); orig(v); document.body.offsetHeight; window.__renders.push({t: Date.now(), ms: performance.now() - t}); };
	  return true;
	})()`)
	var totals []float64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := pageEval[int](b, tab, `window.__renders.length`)
		e := agents.Event{Agent: "claude", Kind: agents.KindToolStart, SessionID: sid(50 + i%150), Time: time.Now().UTC(), ToolName: fmt.Sprintf("Tool%d", i)}
		start := time.Now()
		if err := c.PostEvent(ctx, e); err != nil {
			b.Fatal(err)
		}
		waitPage(b, tab, "the update", fmt.Sprintf(`window.__renders.length > %d`, n), 10*time.Second)
		done := pageEval[float64](b, tab, fmt.Sprintf(`window.__renders[%d].t`, n))
		totals = append(totals, float64(time.UnixMilli(int64(done)).Sub(start))/float64(time.Millisecond))
	}
	b.StopTimer()
	renders := pageEval[[]float64](b, tab, `window.__renders.map((r) => r.ms)`)
	b.ReportMetric(percentile(renders, 0.5), "render-ms-p50")
	b.ReportMetric(percentile(renders, 0.9), "render-ms-p90")
	b.ReportMetric(percentile(totals, 0.5), "post-to-rendered-ms-p50")
	b.ReportMetric(0, "ns/op")
}
