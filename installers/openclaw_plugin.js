// clawd's plugin for OpenClaw, written by `clawd install openclaw`: clawd rewrites and deletes this file, do not edit it.
//
// It lets clawd show what OpenClaw does. OpenClaw hands a native plugin's
// typed hooks its lifecycle; this one sends those clawd uses to `clawd hook
// openclaw <event>` (a small JSON object on stdin), one process at a time
// and in order; the hook passes them on to `clawd serve` over its socket and
// exits at once when clawd is not running. What it sends is an allowlist of
// ids, names, the folder and OpenClaw's own words for an outcome: never a
// tool's params or result, an error's text or a message. It answers
// nothing and blocks nothing: every handler returns undefined at once, and
// hooks run in the background, their errors ignored, none longer than its
// timeout.
//
// OpenClaw says nothing when a run settles: a model call that completed is
// reported as the turn's end STOP_DEBOUNCE_MS later, unless another model
// call, a tool or a compaction of the same run came first.
import { spawn, spawnSync } from "node:child_process"

// CLAWD_COMMAND is the hook command in clawd's own shape, by which clawd
// knows this file for its own; CLAWD is the executable it runs.
const CLAWD_COMMAND = __CLAWD_COMMAND__
const CLAWD = __CLAWD__
const STATE_TIMEOUT_MS = __STATE_TIMEOUT_MS__
const STOP_DEBOUNCE_MS = 1500
// At most this many events wait for their hook; past it events are dropped.
const MAX_QUEUE = 256
// How many runs are remembered as having called their model.
const MAX_RUNS = 1024
// The session_end reasons that end a session for clawd.
const END_REASONS = new Set(["idle", "daily", "deleted", "unknown"])

const str = (v) => (typeof v === "string" && v.trim() ? v.trim() : "")
const pick = (...vs) => {
  for (const v of vs) if (str(v)) return str(v)
  return ""
}

// command is OpenClaw's subcommand in its arguments: the first that is not
// an option (nor the value of one that takes it).
const command = (args) => {
  const valued = new Set(["--container", "--log-level", "--profile"])
  for (let i = 0; i < args.length; i++) {
    if (valued.has(args[i])) i++
    else if (!String(args[i]).startsWith("-")) return args[i]
  }
  return ""
}

export function createClawd() {
  // `openclaw agent` runs one turn and exits: nobody watches it.
  const headless = command(process.argv.slice(2)) === "agent"

  // hook runs `clawd hook openclaw <name>` with payload on stdin and
  // resolves once it exits (or is killed at its timeout). It never rejects.
  const hook = (name, payload) =>
    new Promise((resolve) => {
      let child
      try {
        child = spawn(CLAWD, ["hook", "openclaw", name], { stdio: ["pipe", "ignore", "ignore"], windowsHide: true })
      } catch {
        resolve()
        return
      }
      let done = false
      const timer = setTimeout(() => {
        try {
          child.kill()
        } catch {}
      }, STATE_TIMEOUT_MS)
      timer.unref?.()
      const finish = () => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve()
      }
      try {
        child.on("error", finish)
        child.on("close", finish)
        child.stdin.on("error", () => {})
        child.stdin.end(JSON.stringify(payload))
      } catch {
        finish()
      }
    })

  // queue holds the events waiting for their hook, in order; one hook
  // runs at a time.
  const queue = []
  let running = false
  const pump = async () => {
    if (running) return
    running = true
    while (queue.length > 0) {
      const [name, payload] = queue.shift()
      await hook(name, payload)
    }
    running = false
  }
  const send = (name, payload) => {
    if (queue.length >= MAX_QUEUE) return
    queue.push([name, payload])
    pump().catch(() => {})
  }

  // body is the allowlist every event carries, plus extra.
  const body = (type, ev, ctx, extra) => {
    const b = { type }
    const sid = pick(ev.sessionId, ctx.sessionId)
    if (sid) b.session_id = sid
    const key = pick(ev.sessionKey, ctx.sessionKey)
    if (key) b.session_key = key
    const run = pick(ev.runId, ctx.runId)
    if (run) b.run_id = run
    const agent = pick(ctx.agentId)
    if (agent) b.agent_id = agent
    const tool = pick(ev.toolName, ctx.toolName)
    if (tool) b.tool_name = tool
    const call = pick(ev.toolCallId, ctx.toolCallId)
    if (call) b.tool_call_id = call
    b.cwd = pick(ctx.workspaceDir, ev.workspaceDir) || process.cwd()
    b.pid = process.pid
    if (headless) b.headless = true
    return Object.assign(b, extra)
  }

  // pending holds the debounced turn end of each run (or session).
  const pending = new Map()
  const runs = new Set()
  const keyOf = (ev, ctx) => pick(ev.runId, ctx.runId, ev.sessionId, ctx.sessionId, ev.sessionKey, ctx.sessionKey) || "default"
  const cancel = (key) => {
    const t = pending.get(key)
    if (t) {
      clearTimeout(t)
      pending.delete(key)
    }
  }

  const handle = (name, ev, ctx) => {
    const key = keyOf(ev, ctx)
    switch (name) {
      case "session_start":
        send(name, body(name, ev, ctx, {}))
        return
      case "model_call_started": {
        cancel(key)
        const run = pick(ev.runId, ctx.runId)
        const first = !run || !runs.has(run)
        if (run) {
          runs.add(run)
          if (runs.size > MAX_RUNS) runs.delete(runs.values().next().value)
        }
        send(name, body(name, ev, ctx, { first }))
        return
      }
      case "before_tool_call":
      case "before_compaction":
        cancel(key)
        send(name, body(name, ev, ctx, {}))
        return
      case "after_tool_call":
        send(name, body(name, ev, ctx, { error_present: ev.error !== undefined && ev.error !== null && ev.error !== "" }))
        return
      case "after_compaction":
        send(name, body(name, ev, ctx, {}))
        return
      case "model_call_ended": {
        cancel(key)
        const outcome = str(ev.outcome) || "completed"
        if (outcome === "error") {
          send(name, body(name, ev, ctx, { outcome, failure_kind: str(ev.failureKind), error_present: true }))
          return
        }
        const b = body(name, ev, ctx, { outcome: "completed" })
        const t = setTimeout(() => {
          pending.delete(key)
          send(name, b)
        }, STOP_DEBOUNCE_MS)
        t.unref?.()
        t.body = b
        pending.set(key, t)
        return
      }
      case "session_end": {
        cancel(key)
        const reason = str(ev.reason) || "unknown"
        if (!END_REASONS.has(reason)) return
        send(name, body(name, ev, ctx, { reason }))
        return
      }
    }
  }

  // At exit (`openclaw agent` exits right after its run) nothing more
  // comes: a turn end waiting for its debounce is due now, and it and the
  // events still queued run before the process goes, each bounded by its
  // timeout.
  const flush = () => {
    for (const [key, t] of pending) {
      clearTimeout(t)
      pending.delete(key)
      queue.push(["model_call_ended", t.body])
    }
    while (queue.length > 0) {
      const [name, payload] = queue.shift()
      try {
        spawnSync(CLAWD, ["hook", "openclaw", name], { input: JSON.stringify(payload), stdio: ["pipe", "ignore", "ignore"], timeout: STATE_TIMEOUT_MS, windowsHide: true })
      } catch {}
    }
  }

  return {
    handle,
    flush,
    register(api) {
      if (!api || typeof api.on !== "function") return
      for (const name of ["session_start", "model_call_started", "before_tool_call", "after_tool_call",
        "before_compaction", "after_compaction", "model_call_ended", "session_end"]) {
        api.on(
          name,
          (ev, ctx) => {
            try {
              handle(name, ev || {}, ctx || {})
            } catch {}
            return undefined
          },
          { priority: -100, timeoutMs: 1000 },
        )
      }
    },
  }
}

// OpenClaw loads the plugin in more than one registration of its own;
// one runtime serves them all.
let runtime = null

export default {
  id: "clawd",
  name: "clawd",
  description: "Shows OpenClaw's sessions in clawd (written by clawd install openclaw)",
  register(api) {
    if (!runtime) {
      runtime = createClawd()
      process.once("exit", () => {
        try {
          runtime.flush()
        } catch {}
      })
    }
    runtime.register(api)
  },
}
