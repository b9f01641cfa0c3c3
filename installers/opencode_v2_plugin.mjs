// clawd's plugin for opencode 2, written by `clawd install opencode`: clawd rewrites and deletes this file, do not edit it.
//
// It lets clawd show what opencode 2 does and answer its permission asks.
// opencode 2 loads a plugin as a default-exported {id, setup} definition;
// setup subscribes to opencode's event stream and sends the events clawd
// uses, slimmed to ids and names, to `clawd hook opencode <type>` (the
// event as JSON on stdin), one process at a time and in order; the hook
// passes them on to `clawd serve` over its socket and exits at once when
// clawd is not running. For a permission evaluation that would ask the
// person, it waits for the person's answer in clawd and sets the
// evaluation's effect (allow or deny; "always" allows this action for the
// rest of the session, remembered here while opencode runs); with no
// answer it leaves the effect as it is, and opencode's own prompt asks.
// Nothing else holds opencode up: hooks run in the background, their
// errors are ignored, and none lives longer than its timeout.
import { spawn } from "node:child_process"

// CLAWD_COMMAND is the hook command in clawd's own shape, by which clawd
// knows this file for its own; CLAWD is the executable it runs.
const CLAWD_COMMAND = __CLAWD_COMMAND__
const CLAWD = __CLAWD__
const STATE_TIMEOUT_MS = __STATE_TIMEOUT_MS__
const PERMISSION_TIMEOUT_MS = __PERMISSION_TIMEOUT_MS__
// At most this many events wait for their hook; past it events are dropped.
const MAX_QUEUE = 256
// How many sessions are remembered.
const MAX_SESSIONS = 1024
// What of an evaluation's resources goes to clawd.
const MAX_RESOURCES = 32
const MAX_RESOURCE = 4096
// The events clawd uses.
const EVENTS = new Set([
  "session.created", "session.renamed", "session.step.started", "session.tool.called", "session.tool.success",
  "session.tool.error", "session.execution.succeeded", "session.execution.failed", "session.error", "session.deleted",
])

const str = (v) => (typeof v === "string" ? v : "")

export default {
  id: "clawd",
  async setup(ctx) {
    // hook runs `clawd hook opencode <name>` with payload on stdin and
    // resolves with what it printed once it exits (or is killed at its
    // timeout). It never rejects.
    const hook = (name, payload, timeout) =>
      new Promise((resolve) => {
        let child
        try {
          child = spawn(CLAWD, ["hook", "opencode", name], { stdio: ["pipe", "pipe", "ignore"], windowsHide: true })
        } catch {
          resolve("")
          return
        }
        let out = ""
        let done = false
        const timer = setTimeout(() => {
          try {
            child.kill()
          } catch {}
        }, timeout)
        timer.unref?.()
        const finish = () => {
          if (done) return
          done = true
          clearTimeout(timer)
          resolve(out)
        }
        try {
          child.stdout.on("data", (b) => {
            if (out.length < 65536) out += b
          })
          child.on("error", finish)
          child.on("close", finish)
          child.stdin.on("error", () => {})
          child.stdin.end(JSON.stringify(payload))
        } catch {
          finish()
        }
      })

    let tail = Promise.resolve()
    let queued = 0
    const send = (name, payload) => {
      if (queued >= MAX_QUEUE) return
      queued++
      tail = tail
        .then(() => hook(name, payload, STATE_TIMEOUT_MS))
        .catch(() => {})
        .then(() => {
          queued--
        })
    }

    const sessions = new Map() // id → { parent, agent, busy, always }
    const session = (id) => {
      let s = sessions.get(id)
      if (!s) {
        s = { parent: "", agent: "", busy: false, always: new Set() }
        sessions.set(id, s)
        if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value)
      }
      return s
    }
    const rootOf = (id) => {
      let root = id
      for (let i = 0; i < 16; i++) {
        const parent = sessions.get(root)?.parent
        if (!parent) break
        root = parent
      }
      return root
    }
    // note is what the plugin adds to an event: its root session and agent.
    const note = (sid, extra) => {
      const c = { v: 2 }
      const root = rootOf(sid)
      if (root !== sid) {
        c.root = root
        const agent = sessions.get(sid)?.agent
        if (agent) c.agent = agent
      }
      return Object.assign(c, extra)
    }

    const onEvent = (ev) => {
      const type = str(ev?.type)
      if (!EVENTS.has(type)) return
      const d = ev.data || {}
      const sid = str(d.sessionID)
      if (!sid) return
      const s = session(sid)
      const data = { sessionID: sid }
      const extra = {}
      switch (type) {
        case "session.created":
          s.parent = str(d.parentID)
          s.agent = str(d.agent)
          if (s.parent) data.parentID = s.parent
          break
        case "session.renamed":
          data.title = str(d.title).slice(0, 1024)
          break
        case "session.step.started":
          extra.first = !s.busy
          s.busy = true
          break
        case "session.tool.called":
        case "session.tool.success":
        case "session.tool.error":
          data.id = str(d.id)
          data.name = str(d.name)
          break
        case "session.execution.failed":
        case "session.error":
          if (str(d.error?.name)) data.error = { name: str(d.error.name) }
          s.busy = false
          break
        case "session.execution.succeeded":
          s.busy = false
          break
      }
      const payload = { type, data, clawd: note(sid, extra) }
      const dir = str(ev.location?.directory)
      if (dir) payload.location = { directory: dir }
      send(type, payload)
    }

    // evaluate asks clawd about an evaluation that would ask the person.
    const evaluate = async (event) => {
      try {
        if (!event || event.effect !== "ask") return
        const sid = str(event.sessionID)
        const action = str(event.action)
        const s = session(sid)
        if (action && s.always.has(action)) {
          event.effect = "allow"
          return
        }
        const resources = Array.isArray(event.resources)
          ? event.resources.filter((r) => typeof r === "string").slice(0, MAX_RESOURCES).map((r) => r.slice(0, MAX_RESOURCE))
          : []
        const data = { sessionID: sid, action, resources }
        if (str(event.agent)) data.agent = str(event.agent)
        if (event.source) data.source = { type: str(event.source.type), id: str(event.source.id) }
        // The events before it reach clawd first.
        await Promise.race([tail, new Promise((r) => setTimeout(r, STATE_TIMEOUT_MS).unref?.())])
        const out = await hook("permission.evaluate", { type: "permission.evaluate", data, clawd: note(sid, {}) }, PERMISSION_TIMEOUT_MS)
        let answer
        try {
          answer = JSON.parse(out.trim() || "{}")
        } catch {
          return
        }
        switch (answer?.decision) {
          case "always":
            if (action) s.always.add(action)
          // falls through
          case "allow":
            event.effect = "allow"
            return
          case "deny":
            event.effect = "deny"
            if (str(answer.message)) event.message = answer.message
            return
        }
      } catch {}
    }

    const controller = new AbortController()
    const handles = []
    try {
      if (typeof ctx?.permission?.hook === "function") handles.push(await ctx.permission.hook("evaluate", evaluate))
    } catch {}
    if (typeof ctx?.event?.subscribe === "function") {
      // Not awaited: setup must return for opencode to finish loading.
      ;(async () => {
        try {
          for await (const ev of ctx.event.subscribe({ signal: controller.signal })) {
            try {
              onEvent(ev)
            } catch {}
          }
        } catch {}
      })()
    }
    return async () => {
      controller.abort()
      for (const h of handles.reverse()) {
        try {
          await h?.dispose?.()
        } catch {}
      }
    }
  },
}
