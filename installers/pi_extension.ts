// clawd's extension for Pi, written by `clawd install pi`: clawd rewrites and deletes this file, do not edit it.
//
// It lets clawd show what Pi does. Pi hands its extensions its lifecycle
// events; this one sends those clawd uses, slimmed to ids, names and the
// prompt's start, to `clawd hook pi <event>` (the event as JSON on stdin),
// one process at a time and in order; the hook passes them on to
// `clawd serve` over its socket and exits at once when clawd is not
// running. It only reports: it registers no tool_call handler, so it never
// blocks, changes or slows down a tool. Nothing here holds Pi up: hooks run
// in the background, their errors are ignored, none lives longer than its
// timeout, and at exit Pi waits at most SHUTDOWN_WAIT_MS for the last ones.
import { spawn } from "node:child_process"

// CLAWD_COMMAND is the hook command in clawd's own shape, by which clawd
// knows this file for its own; CLAWD is the executable it runs.
const CLAWD_COMMAND = __CLAWD_COMMAND__
const CLAWD = __CLAWD__
const STATE_TIMEOUT_MS = __STATE_TIMEOUT_MS__
// At most this many events wait for their hook; past it events are dropped.
const MAX_QUEUE = 256
// How long Pi's exit waits for the last events to reach clawd.
const SHUTDOWN_WAIT_MS = 1500
// How much of a prompt goes to clawd: its title is the first line's start.
const MAX_PROMPT = 4096

export default function (pi: any) {
  // hook runs `clawd hook pi <name>` with payload on stdin and resolves
  // once it exits (or is killed at its timeout). It never rejects.
  const hook = (name: string, payload: object) =>
    new Promise<void>((resolve) => {
      let child: any
      try {
        child = spawn(CLAWD, ["hook", "pi", name], { stdio: ["pipe", "ignore", "ignore"], windowsHide: true })
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

  // send queues an event behind the others.
  let tail: Promise<void> = Promise.resolve()
  let queued = 0
  const send = (name: string, payload: object) => {
    if (queued >= MAX_QUEUE) return
    queued++
    tail = tail
      .then(() => hook(name, payload))
      .catch(() => {})
      .then(() => {
        queued--
      })
  }

  // event is what every event carries: the session, its file and name,
  // the folder, Pi's pid, and whether anyone watches (no UI: pi -p, json
  // and rpc modes).
  const event = (type: string, ctx: any, extra: object) => {
    const e: any = { type }
    try {
      e.session_id = ctx.sessionManager.getSessionId()
    } catch {}
    try {
      const file = ctx.sessionManager.getSessionFile()
      if (file) e.session_file = file
    } catch {}
    try {
      const name = pi.getSessionName()
      if (name) e.session_name = name
    } catch {}
    if (typeof ctx?.cwd === "string") e.cwd = ctx.cwd
    e.pid = process.pid
    if (!ctx?.hasUI) e.headless = true
    return Object.assign(e, extra)
  }
  const text = (s: unknown) => (typeof s === "string" ? s : "")
  const on = (type: string, extra: (ev: any) => object = () => ({})) =>
    pi.on(type, async (ev: any, ctx: any) => {
      try {
        send(type, event(type, ctx, extra(ev || {})))
      } catch {}
    })

  on("session_start", (ev) => ({ reason: text(ev.reason) }))
  on("before_agent_start", (ev) => ({ prompt: text(ev.prompt).slice(0, MAX_PROMPT) }))
  on("tool_execution_start", (ev) => ({ tool_call_id: text(ev.toolCallId), tool_name: text(ev.toolName) }))
  on("tool_execution_end", (ev) => ({ tool_call_id: text(ev.toolCallId), tool_name: text(ev.toolName), is_error: ev.isError === true }))
  on("session_before_compact")
  on("session_compact")
  on("agent_end")
  pi.on("session_shutdown", async (ev: any, ctx: any) => {
    try {
      send("session_shutdown", event("session_shutdown", ctx, { reason: text(ev?.reason) }))
      let timer: any
      await Promise.race([tail, new Promise((r) => (timer = setTimeout(r, SHUTDOWN_WAIT_MS)))])
      clearTimeout(timer)
    } catch {}
  })
}
