package automations

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestShutdownCancelsRunningActions: when the runtime stops while a
// command action runs (a sleep of 30 s, under a 2-minute timeout), Run
// returns at once instead of waiting the action out, the command is
// killed, and the run ends outcome_unknown (it may have done its work),
// never succeeded, failed or re-sent. A run that had not started when the
// stop came stays queued for the next start.
func TestShutdownCancelsRunningActions(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	dir := t.TempDir()
	started := filepath.Join(dir, "started")
	script := filepath.Join(dir, "act.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho $$ > "+started+"\nexec sleep 30\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := testEngine(t, clock, `[[automation]]
id = "slow"
event = "turn.completed"
action = { type = "command", argv = ["`+script+`"] }
policy = { timeout = "120s", concurrency = "parallel" }
`)
	trust(t, e, "slow")
	if err := e.Observe(ctx, completed("s1", "t1", clock.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DispatchOnce(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(runCtx)
	}()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the command action never started")
		}
		time.Sleep(10 * time.Millisecond) // polling for the action to begin
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of the stop: it waits for the running action")
	}
	rs := runsOf(t, e)
	if len(rs) != 1 || rs[0].State != StateOutcomeUnknown || rs[0].ErrorCode != CodeShutdown {
		t.Fatalf("runs after the stop = %+v, want one outcome_unknown with %s", rs, CodeShutdown)
	}
	pid, _ := os.ReadFile(started)
	if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); err == nil {
		deadline := time.Now().Add(5 * time.Second)
		for {
			if _, err := os.Stat("/proc/" + strings.TrimSpace(string(pid))); err != nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the command (pid %s) still runs after the stop", pid)
			}
			time.Sleep(10 * time.Millisecond) // polling for the process to be gone
		}
	}

	// A run claimed as the stop comes never starts its action: queued
	// again, its attempt not counted.
	if err := e.Observe(ctx, completed("s1", "t2", clock.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DispatchOnce(ctx); err != nil {
		t.Fatal(err)
	}
	cs, err := e.claim(ctx, 1)
	if err != nil || len(cs) != 1 {
		t.Fatalf("claim = %v, %v", cs, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	e.execute(cancelled, cs[0])
	for _, r := range runsOf(t, e) {
		if r.EventID == EventID(TurnCompleted, "s1:t2") && (r.State != StateQueued || r.Attempts != 0) {
			t.Errorf("the run claimed at the stop = %+v, want queued with 0 attempts", r)
		}
	}
}

// TestShutdownCancelsHangingWebhook: a webhook whose receiver never
// answers (under a 2-minute timeout) holds nothing up when the runtime
// stops: Run returns at once and the run is outcome_unknown.
func TestShutdownCancelsHangingWebhook(t *testing.T) {
	ctx := context.Background()
	clock := newFakeClock()
	rec := newReceiver(t)
	rec.hold = make(chan struct{})
	defer close(rec.hold)
	arrived := make(chan struct{}, 1)
	rec.answerFor = func(b body, n int) int {
		arrived <- struct{}{}
		return 200
	}
	e := testEngine(t, clock, webhookDef("hang", rec.URL, `policy = { timeout = "120s" }
`))
	trust(t, e, "hang")
	if err := e.Observe(ctx, completed("s1", "t1", clock.Now())); err != nil {
		t.Fatal(err)
	}
	if _, err := e.DispatchOnce(ctx); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.Run(runCtx)
	}()
	select {
	case <-arrived:
	case <-time.After(20 * time.Second):
		t.Fatal("the webhook never arrived")
	}
	stop()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return within 10 s of the stop: it waits for the hanging webhook")
	}
	rs := runsOf(t, e)
	if len(rs) != 1 || rs[0].State != StateOutcomeUnknown || rs[0].ErrorCode != CodeShutdown {
		t.Fatalf("runs after the stop = %+v, want one outcome_unknown with %s", rs, CodeShutdown)
	}
}
