// clawd's extension for OMP (oh-my-pi), written by `clawd install omp`: clawd rewrites and deletes this file, do not edit it.
//
// It lets clawd show what OMP does. OMP hands its extensions its lifecycle
// events; this one sends those clawd uses, slimmed to ids, names and the
// prompt's start, to `clawd hook omp <event>` (the event as JSON on stdin),
// one process at a time and in order; the hook passes them on to
// `clawd serve` over its socket and exits at once when clawd is not
// running. It only reports: its tool handlers return nothing, so it never
// blocks, changes or slows down a tool. Nothing here holds OMP up: hooks
// run in the background, their errors are ignored, none lives longer than
// its timeout, and at exit OMP waits at most SHUTDOWN_WAIT_MS for the last
// ones.
//
// A turn is done only when OMP says so twice: session_stop (the settled
// turn) makes it a candidate and the agent_end after it, unless OMP will
// continue (willContinue), confirms it. OMP fires agent_end at every pause
// of its loop (a retried model call, queued follow-ups), which alone is no
// "done". A switch or a branch to another session ends, for clawd, the
// session left.
import { spawn } from "node:child_process"

// CLAWD_COMMAND is the hook command in clawd's own shape, by which clawd
// knows this file for its own; CLAWD is the executable it runs.
const CLAWD_COMMAND = __CLAWD_COMMAND__
const CLAWD = __CLAWD__
const STATE_TIMEOUT_MS = __STATE_TIMEOUT_MS__
// At most this many events wait for their hook; past it events are dropped.
const MAX_QUEUE = 256
// How long OMP's exit waits for the last events to reach clawd.
const SHUTDOWN_WAIT_MS = 1500
// How much of a prompt goes to clawd: its title is the first line's start.
const MAX_PROMPT = 4096

export default function (omp: any) {
  // hook runs `clawd hook omp <name>` with payload on stdin and resolves
  // once it exits (or is killed at its timeout). It never rejects.
  const hook = (name: string, payload: object) =>
    new Promise<void>((resolve) => {
      let child: any
      try {
        child = spawn(CLAWD, ["hook", "omp", name], { stdio: ["pipe", "ignore", "ignore"], windowsHide: true })
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
  const send = (name: string, payload: any) => {
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
  // the folder, OMP's pid, and whether anyone watches (no UI: omp -p).
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
      const name = ctx.sessionManager.getSessionName?.() || omp.getSessionName?.()
      if (name) e.session_name = name
    } catch {}
    if (typeof ctx?.cwd === "string") e.cwd = ctx.cwd
    e.pid = process.pid
    if (!ctx?.hasUI) e.headless = true
    return Object.assign(e, extra)
  }
  const text = (s: unknown) => (typeof s === "string" ? s : "")

  // current is the last event sent for the session this OMP shows, to end
  // it when OMP moves to another one; candidate is the session whose turn
  // session_stop settled, until agent_end confirms it.
  let current: any = null
  let candidate = ""
  const report = (type: string, ctx: any, extra: object, reason = "") => {
    const e = event(type, ctx, extra)
    if (current && e.session_id && current.session_id && current.session_id !== e.session_id) {
      const left = { ...current, type: "session_shutdown", reason: reason || "switch" }
      delete left.prompt
      delete left.tool_call_id
      delete left.tool_name
      delete left.is_error
      send("session_shutdown", left)
      if (candidate === current.session_id) candidate = ""
    }
    current = type === "session_shutdown" ? null : e
    send(type, e)
  }
  const on = (type: string, extra: (ev: any) => object = () => ({}), reason = "") =>
    omp.on(type, async (ev: any, ctx: any) => {
      try {
        report(type, ctx, extra(ev || {}), reason)
      } catch {}
    })

  on("session_start", (ev) => ({ reason: text(ev.reason) }))
  on("session_switch", (ev) => ({ reason: text(ev.reason) }), "switch")
  on("session_branch", (ev) => ({ reason: text(ev.reason) }), "branch")
  on("before_agent_start", (ev) => ({ prompt: text(ev.prompt).slice(0, MAX_PROMPT) }))
  on("tool_execution_start", (ev) => ({ tool_call_id: text(ev.toolCallId), tool_name: text(ev.toolName) }))
  on("tool_execution_end", (ev) => ({ tool_call_id: text(ev.toolCallId), tool_name: text(ev.toolName), is_error: ev.isError === true }))
  on("session_before_compact")
  on("session_compact")
  omp.on("session_stop", async (_ev: any, ctx: any) => {
    try {
      candidate = ctx.sessionManager.getSessionId() || ""
    } catch {}
  })
  omp.on("agent_end", async (ev: any, ctx: any) => {
    try {
      let sid = ""
      try {
        sid = ctx.sessionManager.getSessionId() || ""
      } catch {}
      if (!candidate || candidate !== sid || ev?.willContinue === true) return
      candidate = ""
      report("agent_end", ctx, {})
    } catch {}
  })
  omp.on("session_shutdown", async (ev: any, ctx: any) => {
    try {
      report("session_shutdown", ctx, { reason: text(ev?.reason) })
      let timer: any
      await Promise.race([tail, new Promise((r) => (timer = setTimeout(r, SHUTDOWN_WAIT_MS)))])
      clearTimeout(timer)
    } catch {}
  })
}
