#!/usr/bin/env node
// hook.js is the Node baseline of bench/: the least a hook written like the
// original app's (Clawd-on-desk, whose hooks are Node scripts run by Claude
// Code on every event) must do. Zero dependencies: read all of stdin,
// JSON.parse it, map the hook event to a display state, read the port from
// $CLAWD_HOME/runtime.json (else 23333), POST the original's /state body and
// exit 0 once the answer has ended or anything failed (fail open).
//
// The original's real hook does more (pid chain, transcript tail, titles),
// so this script is a lower bound on the Node cost, not a caricature.
"use strict";

const fs = require("fs");
const http = require("http");
const os = require("os");
const path = require("path");

const EVENT_TO_STATE = {
  SessionStart: "idle",
  SessionEnd: "sleeping",
  UserPromptSubmit: "thinking",
  PreToolUse: "working",
  PostToolUse: "working",
  PostToolUseFailure: "error",
  Stop: "attention",
  StopFailure: "error",
  SubagentStart: "juggling",
  SubagentStop: "working",
  PreCompact: "sweeping",
  PostCompact: "thinking",
  Notification: "notification",
  Elicitation: "notification",
  WorktreeCreate: "carrying",
};

const POST_TIMEOUT_MS = 400;

function runtimePort() {
  const home = process.env.CLAWD_HOME || path.join(os.homedir(), ".clawd");
  try {
    const info = JSON.parse(fs.readFileSync(path.join(home, "runtime.json"), "utf8"));
    if (Number.isInteger(info.port) && info.port > 0 && info.port < 65536) return info.port;
  } catch {}
  return 23333;
}

function post(body) {
  const req = http.request({
    host: "127.0.0.1",
    port: runtimePort(),
    path: "/state",
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(body),
    },
    timeout: POST_TIMEOUT_MS,
  }, (res) => {
    res.resume();
    res.on("end", () => process.exit(0));
  });
  req.on("timeout", () => req.destroy());
  req.on("error", () => process.exit(0));
  req.end(body);
}

const chunks = [];
process.stdin.on("data", (c) => chunks.push(c));
process.stdin.on("error", () => process.exit(0));
process.stdin.on("end", () => {
  let payload;
  try {
    payload = JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    process.exit(0);
  }
  const event = String(payload.hook_event_name || process.argv[2] || "");
  post(JSON.stringify({
    state: EVENT_TO_STATE[event] || "idle",
    session_id: String(payload.session_id || "default"),
    event,
    agent_id: "claude-code",
    cwd: String(payload.cwd || ""),
  }));
});
