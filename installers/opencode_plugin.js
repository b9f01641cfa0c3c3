// clawd's plugin for opencode, written by `clawd install opencode`: clawd rewrites and deletes this file, do not edit it.
//
// It lets clawd show what opencode does. opencode hands a plugin every bus
// event; this one sends those clawd uses, slimmed, to `clawd hook opencode
// <event>` (the event as JSON on stdin), one process at a time and in
// order; the hook passes them on to `clawd serve` over its socket and exits
// at once when clawd is not running. For a permission request it waits for
// the person's answer in clawd and sends it to opencode (once, always or
// reject) through the client opencode hands its plugins; for a question of
// opencode's question tool, the person's answers (or a rejection). With no
// answer it does nothing, and opencode's own prompt decides. Nothing here holds
// opencode up: hooks run in the background, their errors are ignored, and
// none lives longer than its timeout.
import { spawn } from "node:child_process"

// CLAWD_COMMAND is the hook command in clawd's own shape, by which clawd
// knows this file for its own; CLAWD is the executable it runs.
const CLAWD_COMMAND = __CLAWD_COMMAND__
const CLAWD = __CLAWD__
const STATE_TIMEOUT_MS = __STATE_TIMEOUT_MS__
const PERMISSION_TIMEOUT_MS = __PERMISSION_TIMEOUT_MS__
// At most this many events wait for their hook; past it events are dropped.
const MAX_QUEUE = 256
// How long opencode's exit waits for the last events to reach clawd.
const DISPOSE_WAIT_MS = 1500
// How much of a prompt goes to clawd: its title is the first line's start.
const MAX_PROMPT = 4096
// How many ids of tool calls and permission requests are remembered.
const MAX_IDS = 1024
// How much of a hook's answer is read: an answer to a question carries
// the person's own text (clawd's client.MaxAnswerBody).
const MAX_ANSWER = 1 << 20

// opencode's placeholder titles (its own isDefaultTitle).
const DEFAULT_TITLE = /^(New session - |Child session - )\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

// command is opencode's subcommand in its arguments: the first that is
// not an option (nor --log-level's value).
const command = (args) => {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--log-level") i++
    else if (!String(args[i]).startsWith("-")) return args[i]
  }
  return ""
}

export const ClawdPlugin = async ({ client, directory }) => {
  // `opencode run` rejects permission requests by itself: nobody watches.
  const headless = command(process.argv.slice(2)) === "run"
  const sessions = new Map() // id → { parent, agent, busy, errored, title, sent }
  const started = new Set() // tool parts sent as running
  const finished = new Set() // tool parts sent as ended
  const calls = new Map() // permission request id → tool call id
  const waiting = new Map() // permission or question request id → { child, replied }

  const session = (id) => {
    let s = sessions.get(id)
    if (!s) {
      s = { parent: "", agent: "", busy: false, errored: false, title: "", sent: false }
      sessions.set(id, s)
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
  const remember = (set, key) => {
    set.add(key)
    if (set.size > MAX_IDS) set.delete(set.values().next().value)
  }
  const note = (map, key, value) => {
    map.set(key, value)
    if (map.size > MAX_IDS) map.delete(map.keys().next().value)
  }
  // context is what the plugin adds to an event: clawd reads it first.
  const context = (sid, extra) => {
    const c = { directory, pid: process.pid }
    if (headless) c.headless = true
    const root = rootOf(sid)
    if (root !== sid) {
      c.root = root
      const agent = sessions.get(sid)?.agent
      if (agent) c.agent = agent
    } else {
      session(sid).sent = true
    }
    return Object.assign(c, extra)
  }

  // hook runs `clawd hook opencode <name>` with payload on stdin and
  // resolves to what it printed (when read) once it exits, "" on any
  // failure. It never rejects.
  const hook = (name, payload, timeoutMs, read, onSpawn) =>
    new Promise((resolve) => {
      let child
      try {
        child = spawn(CLAWD, ["hook", "opencode", name], {
          stdio: ["pipe", read ? "pipe" : "ignore", "ignore"],
          windowsHide: true,
        })
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
      }, timeoutMs)
      timer.unref?.()
      const finish = () => {
        if (done) return
        done = true
        clearTimeout(timer)
        resolve(out)
      }
      try {
        child.on("error", finish)
        child.on("close", finish)
        if (read) {
          child.stdout.setEncoding("utf8")
          child.stdout.on("data", (d) => {
            if (out.length < MAX_ANSWER) out += d
          })
        }
        child.stdin.on("error", () => {})
        child.stdin.end(JSON.stringify(payload))
        onSpawn?.(child)
      } catch {
        finish()
      }
    })

  // send queues a non-blocking event behind the others.
  let tail = Promise.resolve()
  let queued = 0
  const send = (name, payload) => {
    if (queued >= MAX_QUEUE) return
    queued++
    tail = tail
      .then(() => hook(name, payload, STATE_TIMEOUT_MS, false))
      .catch(() => {})
      .then(() => {
        queued--
      })
  }

  // block runs the blocking hook of request p (a permission request or a
  // question, id p.id) with payload once the events before it went out,
  // and hands what it printed to answer, unless opencode had its answer
  // meanwhile (settled).
  const block = (type, p, payload, answer) => {
    const w = { child: null, replied: false }
    note(waiting, p.id, w)
    tail
      .then(async () => {
        if (w.replied) return
        const out = await hook(type, payload, PERMISSION_TIMEOUT_MS, true, (child) => {
          w.child = child
          if (w.replied) child.kill()
        })
        if (waiting.get(p.id) === w) waiting.delete(p.id)
        if (w.replied) return
        await answer(out)
      })
      .catch(() => {})
  }

  // ask runs the blocking hook of a permission request and sends opencode
  // the person's answer.
  const ask = (event) => {
    const p = event.properties || {}
    if (!p.id || !p.sessionID) return
    const callID = p.tool?.callID
    if (callID) note(calls, p.id, callID)
    const payload = { clawd: context(p.sessionID, callID ? { callID } : {}), ...event }
    block(event.type, p, payload, async (out) => {
      const answer = decision(out)
      if (answer) await reply(p, answer)
    })
  }
  const decision = (out) => {
    try {
      const d = JSON.parse(out.trim() || "{}")
      if (d && ["once", "always", "reject"].includes(d.reply)) {
        return { reply: d.reply, message: typeof d.message === "string" ? d.message : "" }
      }
    } catch {}
    return null
  }
  // reply answers a permission request. A rejection with a message goes
  // through the newer route, which passes the message to the model as
  // feedback; everything else through the one the client names.
  const reply = async (p, answer) => {
    try {
      if (answer.reply === "reject" && answer.message && client?._client?.post) {
        const r = await client._client.post({
          url: "/permission/{requestID}/reply",
          path: { requestID: p.id },
          body: { reply: "reject", message: answer.message },
          headers: { "Content-Type": "application/json" },
        })
        if (r?.response?.ok) return
      }
      await client.postSessionIdPermissionsPermissionId({
        path: { id: p.sessionID, permissionID: p.id },
        body: { response: answer.reply },
      })
    } catch {}
  }
  // question runs the blocking hook of a question of opencode's question
  // tool, as ask does a permission's, and sends opencode the person's
  // answers: one list of labels (and text of their own) per question, or a
  // rejection, which ends the turn.
  const question = (event) => {
    const p = event.properties || {}
    if (!p.id || !p.sessionID) return
    const callID = p.tool?.callID
    const payload = {
      clawd: context(p.sessionID, callID ? { callID } : {}),
      id: event.id,
      type: event.type,
      properties: { id: p.id, sessionID: p.sessionID, questions: p.questions, tool: p.tool },
    }
    block(event.type, p, payload, async (out) => {
      const answer = answers(out)
      if (answer) await answerQuestion(p, answer)
    })
  }
  const answers = (out) => {
    try {
      const d = JSON.parse(out.trim() || "{}")
      if (d && Array.isArray(d.answers) && d.answers.every((a) => Array.isArray(a) && a.every((x) => typeof x === "string"))) {
        return { answers: d.answers }
      }
      if (d && d.reply === "reject") return { reject: true }
    } catch {}
    return null
  }
  const answerQuestion = async (p, answer) => {
    try {
      const post = client?._client?.post
      if (!post) return
      if (answer.reject) {
        await post({ url: "/question/{requestID}/reject", path: { requestID: p.id } })
        return
      }
      await post({
        url: "/question/{requestID}/reply",
        path: { requestID: p.id },
        body: { answers: answer.answers },
        headers: { "Content-Type": "application/json" },
      })
    } catch {}
  }
  // settled: the question was answered or rejected in opencode (or by
  // clawd); a hook still waiting has nothing left to wait for. What the
  // person answered is theirs: it is not passed on.
  const settled = (id) => {
    const w = waiting.get(id)
    if (w) {
      waiting.delete(id)
      w.replied = true
      try {
        w.child?.kill()
      } catch {}
    }
  }

  // replied: opencode's prompt (or clawd) answered; a hook still waiting
  // for clawd has nothing left to wait for.
  const replied = (event) => {
    const p = event.properties || {}
    settled(p.requestID)
    if (!p.sessionID) return
    const callID = calls.get(p.requestID)
    calls.delete(p.requestID)
    send(event.type, { clawd: context(p.sessionID, callID ? { callID } : {}), ...event })
  }

  // idle ends a turn once: opencode says so twice (session.status idle,
  // then session.idle), and not again after the error that ended it.
  const idle = (event, sid) => {
    if (!sid) return
    const s = session(sid)
    if (!s.busy) return
    s.busy = false
    if (s.errored) {
      s.errored = false
      return
    }
    send(event.type, {
      clawd: context(sid),
      id: event.id,
      type: event.type,
      properties: { sessionID: sid, status: { type: "idle" } },
    })
  }

  const sessionEvent = (event) => {
    const info = event.properties?.info || {}
    const id = info.id || event.properties?.sessionID
    if (!id) return
    const s = session(id)
    if (info.parentID) s.parent = info.parentID
    if (s.parent && info.agent) s.agent = info.agent
    const title = typeof info.title === "string" ? info.title : ""
    if (event.type === "session.updated") {
      // Only a root session's new name is news.
      if (s.parent || !title || DEFAULT_TITLE.test(title) || title === s.title) return
    }
    s.title = title
    send(event.type, {
      clawd: context(id),
      id: event.id,
      type: event.type,
      properties: {
        sessionID: id,
        info: { id, parentID: info.parentID, directory: info.directory, title, agent: info.agent },
      },
    })
  }

  const toolPart = (event) => {
    const part = event.properties?.part
    if (!part || part.type !== "tool" || !part.callID || !part.sessionID) return
    const status = part.state?.status
    const key = part.id || part.sessionID + "/" + part.callID
    if (status === "running") {
      if (started.has(key) || finished.has(key)) return
      remember(started, key)
    } else if (status === "completed" || status === "error") {
      if (finished.has(key)) return
      started.delete(key)
      remember(finished, key)
    } else {
      return
    }
    const state = { status }
    if (status === "error" && typeof part.state.error === "string") state.error = part.state.error.slice(0, 512)
    send(event.type, {
      clawd: context(part.sessionID),
      id: event.id,
      type: event.type,
      properties: {
        sessionID: part.sessionID,
        part: {
          id: part.id,
          sessionID: part.sessionID,
          messageID: part.messageID,
          type: part.type,
          tool: part.tool,
          callID: part.callID,
          state,
        },
      },
    })
  }

  const handle = (event) => {
    const p = event?.properties || {}
    switch (event?.type) {
      case "session.created":
      case "session.updated":
        sessionEvent(event)
        return
      case "session.deleted": {
        const id = p.info?.id || p.sessionID
        if (!id) return
        sessionEvent(event)
        sessions.delete(id)
        return
      }
      case "session.status": {
        const type = p.status?.type
        if (!p.sessionID) return
        if (type === "busy") session(p.sessionID).busy = true
        else if (type === "idle") idle(event, p.sessionID)
        else if (type === "retry" && !sessions.get(p.sessionID)?.parent) {
          send(event.type, { clawd: context(p.sessionID), id: event.id, type: event.type, properties: { sessionID: p.sessionID, status: { type } } })
        }
        return
      }
      case "session.idle":
        idle(event, p.sessionID)
        return
      case "session.error": {
        if (!p.sessionID) return
        const s = session(p.sessionID)
        if (s.parent) return // a subagent's: its task tool reports it
        if (s.busy) s.errored = true
        send(event.type, {
          clawd: context(p.sessionID),
          id: event.id,
          type: event.type,
          properties: { sessionID: p.sessionID, error: { name: p.error?.name } },
        })
        return
      }
      case "message.part.updated":
        toolPart(event)
        return
      case "permission.asked":
        ask(event)
        return
      case "permission.replied":
        replied(event)
        return
      case "question.asked":
        question(event)
        return
      case "question.replied":
      case "question.rejected":
        settled(p.requestID)
        return
    }
  }

  return {
    event: async ({ event }) => {
      try {
        handle(event)
      } catch {}
    },
    "chat.message": async (input, output) => {
      try {
        const id = input?.sessionID || output?.message?.sessionID
        if (!id) return
        session(id).busy = true
        const text = (output?.parts || []).find((x) => x && x.type === "text" && !x.synthetic && typeof x.text === "string")
        send("chat.message", {
          clawd: context(id),
          type: "chat.message",
          input: { sessionID: id, agent: input?.agent },
          output: {
            message: { id: output?.message?.id, sessionID: id, role: "user", agent: output?.message?.agent },
            parts: text ? [{ type: "text", text: text.text.slice(0, MAX_PROMPT) }] : [],
          },
        })
      } catch {}
    },
    dispose: async () => {
      try {
        for (const w of waiting.values()) {
          w.replied = true
          try {
            w.child?.kill()
          } catch {}
        }
        waiting.clear()
        for (const [id, s] of sessions) {
          if (!s.parent && s.sent) send("dispose", { clawd: context(id), type: "dispose", properties: { sessionID: id } })
        }
        let timer
        await Promise.race([tail, new Promise((r) => (timer = setTimeout(r, DISPOSE_WAIT_MS)))])
        clearTimeout(timer)
      } catch {}
    },
  }
}
