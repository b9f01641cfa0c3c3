// app.js is the clawd dashboard: it follows the runtime's stream of views
// and events and sends the person's answers back. Every request carries
// the login's secret (kept in the runtime origin's localStorage by
// login.js, so a bookmark or a new tab opens signed in) besides the
// cookie; the runtime refuses any without it. Its words are
// the runtime's language: the page carries the catalogs' messages it uses
// (see t and n); the data it shows stays as the runtime sends it.
"use strict";

const secret = localStorage.getItem("clawd-secret") || sessionStorage.getItem("clawd-secret") || "";
const $ = (id) => document.getElementById(id);
const maxEvents = 300;

// messages are the catalogs' messages by key (a string, or [one, other]
// for a plural), from the page's JSON data block (the CSP runs no inline
// script; a data block runs nothing).
const messages = (() => {
  try {
    return JSON.parse($("clawd-messages").textContent);
  } catch (e) {
    return {};
  }
})();

// format fills a message's Go verbs (%s, %d, %02d, %[2]s; %% is %) with
// args.
function format(msg, args) {
  let next = 0;
  return msg.replace(/%(?:\[(\d+)\])?(0\d+)?([sd%])/g, (m, idx, pad, verb) => {
    if (verb === "%") return "%";
    const i = idx ? Number(idx) - 1 : next;
    next = i + 1;
    return pad ? String(args[i]).padStart(Number(pad), "0") : String(args[i]);
  });
}

// t is the message of key with args, as i18n.Printer.T; a key the page
// was not given shows as itself.
function t(key, ...args) {
  const m = messages[key];
  if (m === undefined) return key;
  return format(typeof m === "string" ? m : m[1], args);
}

// n is the message of key for the count (its first argument), as
// i18n.Printer.N.
function n(key, count, ...args) {
  const m = messages[key];
  if (m === undefined) return key;
  return format(typeof m === "string" ? m : count === 1 ? m[0] : m[1], [count, ...args]);
}

// el builds an element: el("li", {class: "x"}, "text", child, ...).
function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) {
    if (k === "class") e.className = attrs[k];
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), attrs[k]);
    else if (attrs[k] !== undefined && attrs[k] !== false) e.setAttribute(k, attrs[k] === true ? "" : attrs[k]);
  }
  for (const c of kids) if (c !== null && c !== undefined && c !== "") e.append(c);
  return e;
}

function setText(e, t) {
  if (e.textContent !== t) e.textContent = t;
}

// hide sets e.hidden, writing only a change: a view of 500 sessions
// comes several times a second.
function hide(e, on) {
  if (e.hidden !== on) e.hidden = on;
}

// forget drops this page's secret once the runtime no longer knows it
// (it restarted): unless another tab stored a newer login meanwhile.
function forget() {
  if (localStorage.getItem("clawd-secret") === secret) localStorage.removeItem("clawd-secret");
}

let signedOutShown = false;
function signedOut() {
  if (signedOutShown) return;
  signedOutShown = true;
  $("main").hidden = true;
  $("signedout").hidden = false;
  setText($("summary"), t("dashboard.signed_out_status"));
  setText($("conn"), t("dashboard.offline"));
  $("conn").classList.remove("live");
}

// api sends one request to the dashboard's API and returns its JSON.
async function api(method, path, body) {
  const init = {method, headers: {"X-Clawd-Dashboard": secret}, cache: "no-store", credentials: "same-origin"};
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const r = await fetch("/ui/api/v1/" + path, init);
  if (r.status === 401) {
    forget();
    signedOut();
    throw new Error("signed out");
  }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!r.ok) {
    const err = new Error((data && data.error) || t("dashboard.runtime_answered", r.status));
    err.status = r.status;
    throw err;
  }
  return data;
}

let toastTimer = 0;
// toast says msg for a few seconds; ok marks a confirmation, not an error.
function toast(msg, ok) {
  const t = $("toast");
  t.textContent = msg;
  t.classList.toggle("ok", !!ok);
  t.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { t.hidden = true; }, 6000);
}

// reconcile makes list's children show items in order, reusing the
// element of each key, so a re-render keeps keyboard focus where it is.
function reconcile(list, items, keyOf, make, update) {
  // The elements that go leave first: then the ones that stay are not
  // moved past them, and a move would take the focus from the element.
  const keep = new Set(items.map(keyOf));
  for (const c of [...list.children]) if (!keep.has(c.dataset.key)) c.remove();
  const old = new Map();
  for (const c of list.children) old.set(c.dataset.key, c);
  let prev = null;
  for (const it of items) {
    const k = keyOf(it);
    let e = old.get(k);
    if (e) old.delete(k);
    else {
      e = make(it);
      e.dataset.key = k;
    }
    update(e, it);
    const want = prev ? prev.nextSibling : list.firstChild;
    if (want !== e) list.insertBefore(e, want);
    prev = e;
  }
  for (const e of old.values()) e.remove();
}

// ---- time

let skew = 0; // the runtime's clock minus ours

function seconds(iso) {
  return Math.max(0, Math.floor((Date.now() + skew - Date.parse(iso)) / 1000));
}

// age says how long since iso, as the tray does: "now", "5m", "2h".
function age(iso) {
  const s = seconds(iso);
  if (s < 5) return t("age.now");
  if (s < 60) return t("age.seconds", s);
  if (s < 3600) return t("age.minutes", Math.floor(s / 60));
  if (s < 48 * 3600) return t("age.hours", Math.floor(s / 3600));
  return t("age.days", Math.floor(s / 86400));
}

function clock(iso) {
  const d = new Date(iso);
  return isNaN(d) ? "" : d.toLocaleTimeString([], {hour: "2-digit", minute: "2-digit", second: "2-digit"});
}

function place(title, cwd) {
  if (title) return title;
  if (cwd) return cwd.replace(/\/+$/, "").split(/[\\/]/).pop() || cwd;
  return "";
}

// ---- the view

let view = null;
const seenRequests = new Set();
let unseen = 0;
const baseTitle = "clawd";

function render(v) {
  view = v;
  skew = Date.parse(v.now) - Date.now();
  const icon = "/ui/icons/" + v.icon + ".png";
  if ($("state-icon").getAttribute("src") !== icon) {
    $("state-icon").src = icon;
    $("favicon").href = icon;
  }
  renderSettings(v);
  showFirstRun();
  renderNeeds(v);
  renderSessions(v);
  renderSummary(v);
  showSections(v.features);
}

// ---- navigation

// routes are the page's views, each a hash (#inbox, #sessions, ...): a
// bookmark or a reload opens the same one.
const routes = ["inbox", "sessions", "activity", "history", "setup"];

function route() {
  const r = location.hash.slice(1);
  return routes.includes(r) ? r : "inbox";
}

// showRoute shows the view the hash names and loads what it lists.
function showRoute() {
  const r = route();
  for (const v of document.querySelectorAll(".view")) v.hidden = v.dataset.route !== r;
  for (const a of document.querySelectorAll("#nav a")) {
    if (a.dataset.route === r) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (!view || signedOutShown) return;
  if (r === "history" && view.features.history) {
    loadHistory();
    loadRecap();
  }
  if ((r === "setup" || r === "activity") && view.features.automations) loadAutomations();
  if (r === "setup" && view.features.agents) loadAgents();
}
window.addEventListener("hashchange", showRoute);
showRoute();

// status names the runtime's session urgencies (present.Status): most
// urgent first, the order the rows come in.
const status = {needsYou: 0, asks: 1, failed: 2, working: 3, thinking: 4, done: 5, idle: 6};

// renderSummary counts the sessions as the tray's tooltip does, most
// urgent first.
function renderSummary(v) {
  const asks = new Set(v.permissions.filter((p) => p.kind === "question").map((p) => p.agent + "/" + p.session_id));
  const c = {needs: 0, questions: 0, failed: 0, working: 0, done: 0, idle: 0};
  for (const s of v.sessions) {
    if (s.headless && !s.pending) continue;
    if (s.urgency === status.asks || (s.urgency === status.needsYou && asks.has(s.agent + "/" + s.session_id))) c.questions++;
    else if (s.urgency === status.needsYou) c.needs++;
    else if (s.urgency === status.failed) c.failed++;
    else if (s.urgency === status.working || s.urgency === status.thinking) c.working++;
    else if (s.urgency === status.done) c.done++;
    else if (s.urgency === status.idle) c.idle++;
  }
  const parts = [];
  if (c.needs) parts.push(t("tooltip.needs_you", c.needs));
  if (c.questions) parts.push(n("tooltip.questions", c.questions));
  if (c.failed) parts.push(t("tooltip.failed", c.failed));
  if (c.working) parts.push(t("tooltip.working", c.working));
  if (c.done) parts.push(t("tooltip.done", c.done));
  if (c.idle) parts.push(t("tooltip.idle", c.idle));
  let s = parts.join(t("tooltip.sep")) || t("tooltip.none");
  if (v.dnd) s += t("tooltip.dnd");
  else if (v.notifications_paused_until) s += t("tooltip.paused");
  setText($("summary"), s);
}

function renderSettings(v) {
  $("dnd").checked = v.dnd;
  const p = $("pause");
  if (v.notifications_paused_until) {
    setText(p, t("dashboard.resume", new Date(v.notifications_paused_until).toLocaleTimeString([], {hour: "2-digit", minute: "2-digit"})));
    p.dataset.on = "false";
  } else {
    setText(p, t("dashboard.pause"));
    p.dataset.on = "true";
  }
}

// ---- needs you

function renderNeeds(v) {
  const list = $("needs-list");
  let fresh = 0;
  for (const p of v.permissions) {
    if (!seenRequests.has(p.id)) {
      seenRequests.add(p.id);
      fresh++;
    }
  }
  if (fresh && document.hidden) {
    unseen += fresh;
    document.title = t("dashboard.needs_badge", unseen);
    chime();
  }
  const shown = v.permissions.filter(matchesRequest);
  // The card that has the focus keeps it; one that goes (answered
  // elsewhere) hands it to the card that takes its place.
  const had = document.activeElement && document.activeElement.closest && document.activeElement.closest("#needs-list > li");
  const at = had ? [...list.children].indexOf(had) : -1;
  reconcile(list, shown, (p) => p.id, makeRequest, updateRequest);
  if (had && !had.isConnected) focusCard(list.children[Math.min(at, list.children.length - 1)]);
  else if (had && document.activeElement === document.body) focusCard(had); // moved in the list
  const count = v.permissions.length;
  setText($("needs-count"), count ? String(count) : "");
  $("needs-count").setAttribute("aria-label", count ? t("dashboard.needs_badge", count) : "");
  // The filter keeps its place when there is nothing to filter: a
  // request arriving moves nothing on the page.
  $("f-inbox").classList.toggle("invisible", count === 0);
  hide($("needs-empty"), shown.length > 0);
  // A first run shows what to do, not empty sections.
  hide($("needs"), firstRun);
  setText($("needs-empty"), count ? t("dashboard.filter_none") : t("dashboard.needs_empty"));
}

// matchesRequest is the inbox's filter (/): every word of it somewhere in
// the card's agent, folder, title or request.
function matchesRequest(p) {
  const f = $("f-inbox").value.trim().toLowerCase();
  if (!f) return true;
  const hay = [p.agent_name, p.folder, p.cwd, p.title, p.line, p.summary].join(" ").toLowerCase();
  return f.split(/\s+/).every((w) => hay.includes(w));
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) {
    unseen = 0;
    document.title = baseTitle;
  }
});

function chime() {
  try {
    const ctx = new AudioContext();
    const o = ctx.createOscillator();
    const g = ctx.createGain();
    o.frequency.value = 880;
    g.gain.value = 0.05;
    o.connect(g).connect(ctx.destination);
    o.onended = () => ctx.close();
    o.start();
    o.stop(ctx.currentTime + 0.15);
  } catch (e) { /* no sound: the title says it */ }
}

function makeRequest(p) {
  const li = el("li", {class: "card request k-" + p.kind, tabindex: "-1", "data-kind": p.kind});
  const what = p.kind === "question" ? t("dashboard.asks") : p.kind === "plan" ? t("dashboard.asks_plan") : t("dashboard.asks_run");
  li.append(
    el("div", {class: "who"}, el("strong", {}, p.agent_name), p.subagent ? el("span", {class: "subagent"}, " (" + p.subagent + ")") : null, " " + what, el("span", {class: "where"}),
      el("span", {class: "waited", "data-since": p.created_at})),
    el("p", {class: "line"}),
    ...[requestFacts(p)].filter(Boolean),
    el("ul", {class: "options"}),
  );
  const details = el("details", {class: "input"}, el("summary", {}, t("dashboard.full_request")), el("pre", {}));
  details.addEventListener("toggle", () => {
    if (!details.open) return;
    api("GET", "permissions/" + encodeURIComponent(p.id)).then((d) => {
      let input = d.tool_input === undefined ? "" : JSON.stringify(d.tool_input, null, 2);
      if (d.input_truncated) input += "\n" + t("dashboard.input_cut");
      details.querySelector("pre").textContent = [d.message, input].filter(Boolean).join("\n\n") || t("dashboard.nothing_more");
    }, (e) => { details.querySelector("pre").textContent = e.message; });
  });
  const buttons = el("div", {class: "buttons"});
  const button = (label, body, cls) => el("button", {type: "button", class: cls || "", onclick: (ev) => decide(p, typeof body === "function" ? body() : body, ev.currentTarget)}, label);
  if (p.kind === "permission") {
    buttons.append(button(t("dashboard.allow"), {behavior: "allow"}, "allow"), button(t("dashboard.deny"), {behavior: "deny"}, "deny"));
    // An offer reads as the agent's own label ("Always allow Bash(npm
    // test:*)"), which says what it does.
    (p.suggestions || []).forEach((s, i) => buttons.append(button(s, {behavior: "allow", suggestion: i + 1})));
  } else if (p.kind === "plan") {
    li.append(makePlan(p, buttons, button));
  } else if (p.kind === "question" && p.answerable && p.asks) {
    li.querySelector(".options").hidden = true;
    li.append(makeAsks(p, buttons, button));
  }
  buttons.append(button(t("dashboard.terminal"), {behavior: "terminal"}, "terminal"));
  li.append(...[buttons, requestChange(p), details].filter(Boolean));
  return li;
}

// makeAsks is a question's form: each question with its options, as
// buttons that answer at once when one click says it all (one question,
// one option to pick), else as radio buttons or checkboxes; a field for
// an answer of one's own where the question takes one; and Send, which
// answers every question at once. Labels go back exactly as the agent
// wrote them; what the card shows of them is the runtime's inert text.
function makeAsks(p, buttons, button) {
  const form = el("div", {class: "asks"});
  const fields = p.asks.map((q, i) => {
    const set = el("fieldset", {class: "ask"}, el("legend", {}, q.title + (q.multi ? t("dashboard.several") : "")));
    const inputs = [];
    q.options.forEach((o, j) => {
      const desc = o.description ? el("span", {class: "desc"}, o.description) : null;
      // An option carries its number: its key (see pick).
      const num = j < 9 ? el("span", {class: "num", "aria-hidden": "true"}, String(j + 1)) : null;
      if (p.one_at_a_time) {
        const b = button(o.text, {behavior: "answer", answers: [{labels: [o.label]}]}, "option");
        if (num) b.prepend(num);
        if (desc) b.append(" ", desc);
        set.append(b);
        return;
      }
      const input = el("input", {type: q.multi ? "checkbox" : "radio", name: "ask-" + p.id + "-" + i, value: String(j)});
      inputs.push([input, o.label]);
      set.append(el("label", {class: "option"}, num, input, " " + o.text, desc ? " " : null, desc));
    });
    let other = null;
    if (q.custom) {
      other = el("input", {type: "text", class: "other", maxlength: "8192", placeholder: t("dashboard.other"), "aria-label": t("dashboard.other")});
      set.append(other);
    }
    form.append(set);
    return {inputs, other};
  });
  const answers = () => fields.map(({inputs, other}) => {
    const a = {labels: inputs.filter(([input]) => input.checked).map(([, label]) => label)};
    if (other && other.value.trim()) a.text = other.value;
    return a;
  });
  if (!p.one_at_a_time || fields.some((f) => f.other)) {
    const send = button(t("dashboard.send"), () => ({behavior: "answer", answers: answers()}), "allow send");
    const ready = () => { send.disabled = !answers().some((a) => a.labels.length || a.text); };
    form.addEventListener("input", ready);
    form.addEventListener("change", ready);
    ready();
    buttons.append(send);
  }
  return form;
}

// makePlan is a plan's review: the plan as text (its lines as the
// runtime sent them), a field for what to plan further, Approve and Keep
// planning.
function makePlan(p, buttons, button) {
  const box = el("div", {class: "plan"}, el("pre", {class: "plan-text"}));
  box.querySelector("pre").textContent = (p.plan_lines || []).join("\n");
  if (p.plan_truncated) box.append(el("p", {class: "plan-more"}, t("dashboard.plan_more")));
  const message = el("textarea", {class: "keep-message", rows: "2", maxlength: "8192", placeholder: t("dashboard.keep_message"), "aria-label": t("dashboard.keep_message")});
  box.append(message);
  buttons.append(button(t("dashboard.approve_plan"), {behavior: "allow"}, "allow"),
    button(t("dashboard.keep_planning"), () => ({behavior: "deny", message: message.value.trim()}), "deny keep"));
  return box;
}

function updateRequest(li, p) {
  updateWhere(li, p);
  setText(li.querySelector(".line"), p.kind === "question" ? p.summary : p.line);
  const opts = li.querySelector(".options");
  const want = (p.options || []).join("\n");
  if (opts.dataset.opts !== want) {
    opts.dataset.opts = want;
    opts.replaceChildren(...(p.options || []).map((o) => el("li", {}, o)));
  }
}

// requestFacts is what the agent says of the call beside its one line:
// Bash's description, what a fetch asks of the page. They never change for
// a request, so its card is made with them.
function requestFacts(p) {
  const facts = el("div", {class: "facts"},
    p.description ? el("p", {class: "description"}, p.description) : null,
    p.prompt ? el("p", {class: "prompt"}, t("dashboard.card.prompt", p.prompt)) : null);
  return facts.childElementCount ? facts : null;
}

// requestChange is the change an edit would make, as the runtime worked
// it out when the request came (bounded, every line safe): the file, then
// the diff, line by line by its kind, then what is not shown. It comes
// after the buttons, so Allow stays the card's first Tab stop.
function requestChange(p) {
  const d = p.diff;
  if (!d) return null;
  const kind = {"+": "add", "-": "del", "@": "hunk"};
  const pre = el("pre", {class: "diff-lines"},
    ...(d.lines || []).map((l) => el("span", {class: kind[l[0]] || "ctx"}, (l[0] === "@" ? l.slice(1) || "⋯" : l) + "\n")));
  const notes = [d.whole ? t("dashboard.card.whole_file") : "", d.all ? t("dashboard.card.every_occurrence") : ""].filter(Boolean);
  return el("div", {class: "change"},
    el("div", {class: "change-head"}, el("code", {}, d.path), notes.length ? el("span", {class: "muted"}, " (" + notes.join(", ") + ")") : null),
    d.lines && d.lines.length ? pre : null,
    d.more ? el("p", {class: "more muted"}, n("dashboard.card.more_lines", d.more)) : null,
    d.cut ? el("p", {class: "more muted"}, t("dashboard.card.cut")) : null);
}

// updateWhere says where the request runs and how long it has waited: its
// folder by its repository (the whole path on hover), the session's title,
// "waiting 3m" (counted on in the page, see tickWaited).
function updateWhere(li, p) {
  const where = li.querySelector(".where");
  const name = [p.folder || place("", p.cwd), p.title].filter(Boolean).join(" · ") || p.session_id;
  setText(where, " — " + name + (p.headless ? t("dashboard.headless") : ""));
  if (where.title !== (p.cwd || "")) where.title = p.cwd || "";
  const w = li.querySelector(".waited");
  w.dataset.since = p.created_at;
  setText(w, waited(p.created_at));
}

// waited is " · waiting 12s", " · waiting 3m": seconds from the first.
function waited(iso) {
  const s = seconds(iso);
  return " · " + t("dashboard.card.waited", s < 60 ? t("age.seconds", s) : age(iso));
}

function tickWaited() {
  for (const w of document.querySelectorAll("#needs-list .waited")) setText(w, waited(w.dataset.since));
}
setInterval(tickWaited, 1000);

// decide answers request p (as its card was made): the broker takes the
// first answer, so a request answered elsewhere meanwhile is refused
// here, by its own id.
async function decide(p, body, button) {
  const card = button.closest("li.request"); // the card may be gone from the list already
  for (const b of card.querySelectorAll("button")) b.disabled = true;
  try {
    await api("POST", "permissions/" + encodeURIComponent(p.id) + "/decision", Object.assign({via: "dashboard"}, body));
    card.classList.add("answered");
    const focused = card.contains(document.activeElement) || document.activeElement === document.body;
    noteAnswer(answerText(p, body));
    if (focused) focusCard(nextCard(card));
    if (body.behavior === "terminal") {
      // The view may already have dropped the request: its session is
      // named by the card.
      const s = view && view.sessions.find((x) => x.agent === p.agent && x.session_id === p.session_id);
      if (!(s && s.host)) focusSession(p.agent, p.session_id);
    }
  } catch (e) {
    toast(e.status === 409 || e.status === 404 ? t("dashboard.answered_elsewhere", e.message) : e.message);
    for (const b of card.querySelectorAll("button")) b.disabled = false;
  }
}

// answerText says what an answer did where, in a few words: "Allowed
// Bash: npm test in web-frontend".
function answerText(p, body) {
  const where = p.folder || place("", p.cwd) || p.title || p.session_id;
  const what = p.kind === "question" ? p.summary : p.line;
  if (body.behavior === "terminal") return t("dashboard.did_terminal", what, where);
  if (p.kind === "plan") return body.behavior === "allow" ? t("dashboard.did_approve", where) : t("dashboard.did_keep", where);
  if (body.behavior === "answer") {
    const said = (body.answers || []).flatMap((a) => [...a.labels, a.text || ""]).filter(Boolean).join(", ");
    return t("dashboard.did_answer", said, where);
  }
  if (body.behavior === "deny") return t("dashboard.did_deny", what, where);
  return body.suggestion ? t("dashboard.did_always", what, where) : t("dashboard.did_allow", what, where);
}

// answered are the last answers given from this page, newest first, shown
// under the inbox for answeredFor.
const answered = [];
const answeredFor = 5 * 60 * 1000;

function noteAnswer(text) {
  answered.unshift({text, at: Date.now()});
  toast(text, true);
  showAnswered();
}

function showAnswered() {
  const now = Date.now();
  while (answered.length && now - answered[answered.length - 1].at > answeredFor) answered.pop();
  $("answered").hidden = answered.length === 0;
  $("answered-list").replaceChildren(...answered.map((a) =>
    el("li", {}, el("time", {datetime: new Date(a.at).toISOString()}, clock(new Date(a.at).toISOString())), " ", a.text)));
}
setInterval(() => { if (answered.length) showAnswered(); }, 15000);

// ---- the inbox by keyboard

// cards are the inbox's requests still open, in order.
function cards() {
  return [...document.querySelectorAll("#needs-list > li:not(.answered)")];
}

function focusCard(c) {
  if (c) c.focus({preventScroll: false});
}

// nextCard is the open card after c, or the one before when c was the
// last.
function nextCard(c) {
  for (let e = c.nextElementSibling; e; e = e.nextElementSibling) if (!e.classList.contains("answered")) return e;
  for (let e = c.previousElementSibling; e; e = e.previousElementSibling) if (!e.classList.contains("answered")) return e;
  return null;
}

function currentCard() {
  const a = document.activeElement;
  return a && a.closest ? a.closest("#needs-list > li:not(.answered)") : null;
}

// press clicks the card's button of cls, if it has one that is enabled.
function press(card, sel) {
  const b = card && card.querySelector(".buttons " + sel);
  if (!b || b.disabled) return false;
  b.click();
  return true;
}

// primary is a card's main answer (Enter): Allow, Approve plan, Send
// answers; a question only the terminal can answer goes there.
function primary(card) {
  return press(card, "button.allow") || (card.dataset.kind === "question" && !card.querySelector(".asks") && press(card, "button.terminal"));
}

// pick answers a question by its option's number: a click on the option
// where one click answers, else the option checked in the question that
// holds the focus (or the first unanswered one), for Enter to send.
function pick(card, i) {
  const opts = card.querySelectorAll(".asks button.option");
  if (opts.length) {
    if (i < opts.length && !opts[i].disabled) opts[i].click();
    return;
  }
  const sets = [...card.querySelectorAll(".asks fieldset")];
  if (!sets.length) return;
  const set = sets.find((f) => f.contains(document.activeElement)) ||
    sets.find((f) => !f.querySelector("input:checked")) || sets[0];
  const inputs = set.querySelectorAll("input[type=radio], input[type=checkbox]");
  if (i < inputs.length) {
    inputs[i].click();
    inputs[i].focus();
  }
}

let gPending = 0;

document.addEventListener("keydown", (ev) => {
  if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.isComposing) return;
  const tgt = ev.target;
  const typing = tgt.closest && tgt.closest("input[type=text], input[type=search], textarea, select");
  if (ev.key === "Escape" && typing) {
    tgt.blur();
    return;
  }
  if (typing || $("keys").open || signedOutShown) return;
  if (gPending) {
    clearTimeout(gPending);
    gPending = 0;
    const to = {i: "inbox", s: "sessions", e: "activity", h: "history", c: "setup"}[ev.key];
    if (to) {
      location.hash = "#" + to;
      ev.preventDefault();
    }
    return;
  }
  const key = ev.key;
  if (key === "?") {
    $("keys").showModal();
    ev.preventDefault();
    return;
  }
  if (key === "/") {
    const f = {inbox: "f-inbox", sessions: "f-folder", activity: "e-session"}[route()];
    if (f && !$(f).hidden && !$(f).classList.contains("invisible")) {
      $(f).focus();
      ev.preventDefault();
    }
    return;
  }
  if (key === "g") {
    gPending = setTimeout(() => { gPending = 0; }, 1500);
    return;
  }
  if (route() !== "inbox") return;
  const card = currentCard();
  const list = cards();
  if (key === "j" || key === "k") {
    const i = card ? list.indexOf(card) : -1;
    const next = key === "j" ? list[Math.min(list.length - 1, i + 1)] : list[Math.max(0, i - 1)];
    focusCard(i < 0 ? list[0] : next);
    ev.preventDefault();
    return;
  }
  if (!card) return;
  if (key === "Enter" && tgt === card) {
    primary(card);
    ev.preventDefault();
  } else if (key === "a") {
    press(card, "button.allow:not(.send)");
  } else if (key === "d") {
    press(card, "button.deny");
  } else if (key === "t") {
    press(card, "button.terminal");
  } else if (/^[1-9]$/.test(key)) {
    pick(card, Number(key) - 1);
    ev.preventDefault();
  }
});

$("keys-open").addEventListener("click", () => $("keys").showModal());
$("keys-close").addEventListener("click", () => $("keys").close());
$("f-inbox").addEventListener("input", () => view && renderNeeds(view));

// ---- sessions

// sessionSort is the table's order: a column and a direction; "" is the
// runtime's own, most urgent first.
let sessionSort = {key: "", dir: 1};

// groupOver is how many rows the table shows before it groups them by
// repository.
const groupOver = 20;

// repoOf names a session's folder as the request cards do: its project's
// name with the folder inside it, else the folder's own name; a remote
// machine's is prefixed with the machine.
const repoNames = new Map();
function repoOf(s) {
  const k = s.host + "\u0000" + s.cwd + "\u0000" + s.project_dir;
  let name = repoNames.get(k);
  if (name === undefined) {
    if (repoNames.size > 2000) repoNames.clear();
    repoNames.set(k, name = repoName(s));
  }
  return name;
}

function repoName(s) {
  const cwd = (s.cwd || "").replace(/[\\/]+$/, "");
  const pd = (s.project_dir || "").replace(/[\\/]+$/, "");
  const base = (d) => d.split(/[\\/]/).pop() || d;
  let name = base(cwd);
  if (pd && (cwd === pd || cwd.startsWith(pd + "/"))) name = base(pd) + cwd.slice(pd.length);
  return (s.host ? s.host + ":" : "") + name;
}

// stateGroups are the state filter's choices, by the runtime's urgencies.
const stateGroups = [[status.needsYou, "state.waiting"], [status.asks, "state.question"], [status.failed, "state.error"],
  [status.working, "state.working"], [status.thinking, "state.thinking"], [status.done, "state.attention"], [status.idle, "state.idle"]];

const sortBy = {
  repo: (a, b) => a._repo.localeCompare(b._repo),
  title: (a, b) => a._title.localeCompare(b._title),
  agent: (a, b) => a.agent_name.localeCompare(b.agent_name),
  state: (a, b) => a.urgency - b.urgency,
  age: (a, b) => Date.parse(b.updated_at) - Date.parse(a.updated_at),
};

function renderSessions(v) {
  fillSelect($("f-agent"), v.sessions.map((s) => [s.agent, s.agent_name]));
  if (!$("f-state").dataset.opts) {
    $("f-state").dataset.opts = "1";
    $("f-state").append(...stateGroups.map(([u, k]) => el("option", {value: String(u)}, t(k))));
  }
  const agent = $("f-agent").value;
  const st = $("f-state").value;
  const folder = $("f-folder").value.trim().toLowerCase();
  let shown = [];
  for (const s of v.sessions) {
    if (agent && s.agent !== agent) continue;
    if (st && String(s.urgency) !== st) continue;
    if (folder && !(s.cwd || "").toLowerCase().includes(folder) && !(s.project_dir || "").toLowerCase().includes(folder)) continue;
    s._repo = repoOf(s);
    s._title = s.title || "";
    shown.push(s);
  }
  if (sessionSort.key) {
    const by = sortBy[sessionSort.key];
    shown.sort((a, b) => sessionSort.dir * by(a, b));
  }
  let items = shown;
  const grouped = shown.length > groupOver;
  if (grouped) {
    // Groups in the order of their first row; rows keep the order within.
    const groups = new Map();
    for (const s of shown) {
      if (!groups.has(s._repo)) groups.set(s._repo, []);
      groups.get(s._repo).push(s);
    }
    items = [];
    for (const [repo, rows] of groups) items.push({group: repo, count: rows.length}, ...rows);
  }
  $("session-list").classList.toggle("grouped", grouped);
  reconcile($("session-list"), items, (s) => s.group !== undefined ? "group:" + s.group : s.agent + "/" + s.session_id,
    (s) => s.group !== undefined ? el("li", {class: "group", role: "row"}) : makeSession(s),
    (li, s) => s.group !== undefined ? setText(li, s.group + " · " + s.count) : updateSession(li, s));
  renderRemotes(v.remotes || []);
  setText($("sessions-count"), v.sessions.length ? (shown.length === v.sessions.length ? String(v.sessions.length) : t("dashboard.sessions_of", shown.length, v.sessions.length)) : "");
  hide($("sessions-empty"), shown.length > 0);
  hide($("s-filters"), v.sessions.length === 0);
  hide($("s-head"), shown.length === 0);
}

for (const b of document.querySelectorAll("#s-head button")) {
  b.addEventListener("click", () => {
    const k = b.dataset.sort;
    // A click sorts by the column, a second reverses, a third goes back to
    // the runtime's order.
    if (sessionSort.key !== k) sessionSort = {key: k, dir: 1};
    else if (sessionSort.dir === 1) sessionSort.dir = -1;
    else sessionSort = {key: "", dir: 1};
    for (const h of document.querySelectorAll("#s-head button")) {
      h.setAttribute("aria-sort", h.dataset.sort !== sessionSort.key ? "none" : sessionSort.dir === 1 ? "ascending" : "descending");
    }
    if (view) renderSessions(view);
  });
}

// renderRemotes lists the links to remote machines, as the tray does.
function renderRemotes(links) {
  reconcile($("remote-list"), links, (l) => l.profile, () => el("li", {}), (li, l) => {
    li.className = "link-" + l.state;
    setText(li, l.error ? t("dashboard.remote_error", l.label, l.state, l.error) : t("dashboard.remote", l.label, l.state));
  });
}

// fillSelect keeps select's options the set of [value, label] pairs
// given (plus all), and its choice.
function fillSelect(select, pairs) {
  const m = new Map(pairs);
  const want = [...m.keys()].sort().join("\n");
  if (select.dataset.opts === want) return;
  select.dataset.opts = want;
  const cur = select.value;
  select.replaceChildren(el("option", {value: ""}, t("dashboard.all")), ...[...m.keys()].sort().map((k) => el("option", {value: k}, m.get(k))));
  select.value = m.has(cur) ? cur : "";
}

function makeSession(s) {
  const b = el("button", {type: "button", class: "session", role: "row"},
    el("img", {width: 16, height: 16, alt: "", class: "dot"}),
    el("span", {class: "repo"}), el("span", {class: "title"}), el("span", {class: "agent"}), el("span", {class: "state"}),
    el("span", {class: "age"}));
  b.addEventListener("click", () => focusSession(b.dataset.agent, b.dataset.id));
  return el("li", {}, b);
}

// updateSession fills a row; a row whose session did not change since
// is left alone, so an update of 500 rows touches only the ones that
// moved on.
function updateSession(li, s) {
  const b = li.firstChild;
  const key = [s.updated_at, s.label, s.urgency, s.icon, s._repo, s._title, s.host, s.headless, s.subagents, s.state, s.outcome_at, s.cwd].join("\u0000");
  if (b._key === key) return;
  b._key = key;
  b.dataset.agent = s.agent;
  b.dataset.id = s.session_id;
  b.dataset.updated = s.updated_at;
  // A finished turn's row says how long ago (see stateText).
  b.dataset.label = s.label;
  b.dataset.done = s.urgency === status.done && s.outcome_at ? s.outcome_at : "";
  b.dataset.sub = s.subagents && s.state !== "juggling" ? n("dashboard.subagents", s.subagents) : "";
  b.className = "session u" + s.urgency;
  const img = b.querySelector("img");
  const src = "/ui/icons/" + s.icon + ".png";
  if (img.getAttribute("src") !== src) img.src = src;
  img.alt = s.label;
  // A remote machine's session: its terminal is there, nothing to bring
  // to the front here (the runtime refuses it too).
  b.disabled = !!s.host;
  b.title = (s.host ? t("dashboard.runs_on", s.host) : t("dashboard.bring_front")) + "\n" + (s.cwd || "");
  const repo = b.querySelector(".repo");
  setText(repo, s._repo);
  repo.title = s.cwd || "";
  // No title yet: the session's id, quietly, not its folder again.
  const title = b.querySelector(".title");
  setText(title, s._title || "…" + s.session_id.slice(-8));
  title.title = s._title || s.session_id;
  title.classList.toggle("muted", !s._title);
  setText(b.querySelector(".agent"), s.agent_name + (s.headless ? t("dashboard.headless") : "") + (s.host ? " @" + s.host : ""));
  const state = b.querySelector(".state");
  setText(state, stateText(b) + b.dataset.sub);
  state.title = state.textContent;
  setText(b.querySelector(".age"), age(s.updated_at));
}

async function focusSession(agent, id) {
  try {
    await api("POST", "focus", {agent, session_id: id});
  } catch (e) {
    toast(e.message);
  }
}

// stateText is a row's status in words: the runtime's label ("failed:
// API Error: 429 …", "working (Bash)"), and for a finished turn "done 3m
// ago", counted here so it moves on between views.
function stateText(b) {
  if (!b.dataset.done) return b.dataset.label;
  return seconds(b.dataset.done) < 5 ? t("state.done_now") : t("state.done_ago", age(b.dataset.done));
}

setInterval(() => {
  for (const b of document.querySelectorAll("#session-list .session")) {
    setText(b.querySelector(".age"), age(b.dataset.updated));
    if (b.dataset.done) setText(b.querySelector(".state"), stateText(b) + b.dataset.sub);
  }
}, 5000);

// ---- events

// events are the records shown, newest first; lastSeq is the seq of the
// newest, which the stream resumes after when it reconnects.
const events = [];
let lastSeq = 0;

// addEvent shows an event record; text is its sentence (a permission
// request's answer) when the runtime gave one.
function addEvent(r, text) {
  if (r.seq && r.seq <= lastSeq) return; // never twice
  if (r.seq) lastSeq = r.seq;
  if (text) r = Object.assign({}, r, {text});
  events.unshift(r);
  if (events.length > maxEvents) events.pop();
  const list = $("event-list");
  if (matchesEvent(r)) {
    list.prepend(eventRow(r));
    while (list.children.length > maxEvents) list.lastChild.remove();
  }
  noteEventChoices();
  $("events-empty").hidden = list.children.length > 0;
  hide($("e-filters"), false);
}

let eventChoices = "";
function noteEventChoices() {
  const agents = new Map(), kinds = new Map();
  for (const r of events) {
    if (r.gap) continue;
    agents.set(r.agent, r.agent);
    kinds.set(r.kind, r.kind);
  }
  const key = [...agents.keys()].join() + "|" + [...kinds.keys()].join();
  if (key === eventChoices) return;
  eventChoices = key;
  fillSelect($("e-agent"), [...agents]);
  fillSelect($("e-kind"), [...kinds]);
}

function matchesEvent(r) {
  if (r.gap) return true;
  const a = $("e-agent").value, k = $("e-kind").value, s = $("e-session").value.trim();
  return (!a || r.agent === a) && (!k || r.kind === k) && (!s || (r.session_id || "").includes(s));
}

// addGap notes, in the list, the events the runtime no longer held when
// the stream resumed: an entry of its own, among the events.
function addGap(m) {
  if (m.missed) addEvent({gap: m.missed});
}

function eventRow(r) {
  if (r.gap) return el("li", {class: "gap"}, n("dashboard.events_missed", r.gap));
  const sid = r.session_id || "";
  const answer = r.answer && r.text;
  return el("li", answer ? {class: "answer", "data-decision": r.answer.decision, "data-source": r.answer.source} : {},
    el("time", {datetime: r.time}, clock(r.time)), " ",
    el("span", {class: "agent"}, r.agent), " ",
    el("span", {class: "sid", title: sid}, sid.length > 8 ? "…" + sid.slice(-6) : sid), " ",
    el("span", {class: "kind"}, r.kind), " ",
    el("span", {class: "state"}, r.state || ""),
    answer ? el("span", {class: "text"}, " " + r.text) : null,
    r.tool_name && !answer ? el("span", {class: "tool"}, " " + r.tool_name) : null,
    r.notification_type ? el("span", {}, " " + r.notification_type) : null,
    r.title ? el("span", {class: "title"}, " “" + r.title + "”") : null,
    r.headless ? el("span", {}, t("dashboard.headless")) : null);
}

function refilterEvents() {
  $("event-list").replaceChildren(...events.filter(matchesEvent).map(eventRow));
  $("events-empty").hidden = $("event-list").children.length > 0;
}

// ---- automations and agents

let shownFeatures = "";
function showSections(f) {
  const key = JSON.stringify(f);

  if (key === shownFeatures) return;
  shownFeatures = key;
  $("automations").hidden = !f.automations;
  $("agents").hidden = !f.agents;
  $("history").hidden = $("recap").hidden = !f.history;
  $("history-off").hidden = !!f.history;
  if (f.history) {
    loadHistory();
    loadRecap();
  }
  if (f.automations) loadAutomations();
  if (f.agents) loadAgents();
}

let autoPaused = false;
let autoShown = "";
const openReviews = new Set();
async function loadAutomations() {
  let st, runs;
  try {
    [st, runs] = await Promise.all([api("GET", "automations"), api("GET", "automations/runs?limit=30")]);
  } catch (e) {
    if (e.status === 503) $("automations").hidden = true;
    return;
  }
  // Rebuilt only when something changed: an open review or a focused
  // button stays as it is.
  const key = JSON.stringify([st, runs]);
  if (key === autoShown) return;
  autoShown = key;
  autoPaused = st.paused;
  setText($("auto-switch"), st.paused ? t("dashboard.resume_all") : t("dashboard.pause_all"));
  setText($("auto-state"), st.paused ? t("dashboard.auto_paused") : t("dashboard.auto_on"));
  $("auto-error").hidden = !st.error;
  setText($("auto-error"), st.error || "");
  $("auto-list").replaceChildren(...st.definitions.map(definitionCard));
  if (!st.definitions.length) $("auto-list").append(el("li", {class: "empty"}, t("dashboard.auto_none")));
  // Nothing to pause without a definition, no table without a run.
  $("auto-bar").hidden = !st.definitions.length && !st.paused;
  $("runs").tBodies[0].replaceChildren(...runs.map(runRow));
  $("runs-section").hidden = runs.length === 0;
}

function definitionCard(d) {
  const review = d.binding_states.some((b) => b.state === "needs_review");
  const action = d.action.type + (d.action.url ? " " + d.action.url : "") + (d.action.argv ? " " + d.action.argv.join(" ") : "");
  const li = el("li", {class: "card"},
    el("div", {class: "who"}, el("strong", {}, d.name || d.id), t("dashboard.on_event"), el("code", {}, d.event), " → ", action),
    el("ul", {class: "bindings"}, ...d.binding_states.map((b) => el("li", {class: "b-" + b.state}, b.key + ": " + runState(b.state)))));
  if (review) {
    const panel = el("div", {class: "review", hidden: !openReviews.has(d.id)},
      el("p", {}, t("dashboard.leaves")),
      el("ul", {}, ...d.leaves.map((x) => el("li", {}, el("code", {}, x)))),
      el("p", {}, t("dashboard.def_hash"), el("code", {}, d.hash)),
      el("button", {type: "button", class: "allow", onclick: () => trust(d.id, d.hash)}, t("dashboard.trust")));
    li.append(el("button", {type: "button", "aria-expanded": String(!panel.hidden), onclick: (ev) => {
      panel.hidden = !panel.hidden;
      ev.currentTarget.setAttribute("aria-expanded", String(!panel.hidden));
      if (panel.hidden) openReviews.delete(d.id); else openReviews.add(d.id);
    }}, t("dashboard.review")), panel);
  }
  return li;
}

async function trust(id, hash) {
  try {
    await api("POST", "automations/" + encodeURIComponent(id) + "/trust", {hash});
  } catch (e) {
    toast(e.message);
  }
  loadAutomations();
}

function runRow(r) {
  const took = r.started_at && r.finished_at ? ((Date.parse(r.finished_at) - Date.parse(r.started_at)) / 1000).toFixed(2) + " s" : "";
  const act = el("td", {});
  const change = (what) => api("POST", "automations/runs/" + encodeURIComponent(r.id) + "/" + what, {}).catch((e) => toast(e.message)).then(loadAutomations);
  if (["failed", "cancelled", "outcome_unknown", "blocked", "skipped"].includes(r.state)) act.append(el("button", {type: "button", onclick: () => change("retry")}, t("dashboard.retry")));
  if (r.state === "queued") act.append(el("button", {type: "button", onclick: () => change("cancel")}, t("dashboard.cancel")));
  return el("tr", {class: "r-" + r.state},
    el("td", {}, r.automation_id + (r.test ? t("dashboard.test_run") : "")), el("td", {}, r.event_name), el("td", {}, runState(r.state)),
    el("td", {}, [r.error_code, r.error_message].filter(Boolean).join(": ")), el("td", {}, took), el("td", {}, clock(r.created_at)), act);
}

// runState names a run's or a binding's state in words; a state the
// catalogs do not know shows as the engine writes it.
function runState(s) {
  return messages["dashboard.run." + s] ? t("dashboard.run." + s) : s;
}

$("auto-switch").addEventListener("click", () => {
  api("POST", "automations/" + (autoPaused ? "resume" : "pause"), {}).catch((e) => toast(e.message)).then(loadAutomations);
});

setInterval(() => {
  if (!document.hidden && view && view.features.automations && !signedOutShown) loadAutomations();
}, 5000);

// ---- history and recap

// shq quotes a word for a POSIX shell when it needs it.
function shq(s) {
  return /^[A-Za-z0-9@%+=:,./_-]+$/.test(s) ? s : "'" + s.replace(/'/g, "'\\''") + "'";
}

// resumeCommand is what resumes a history entry, in a terminal of the
// machine it ran on ("" when its agent has no resume by id).
function resumeCommand(h) {
  if (!h.resume || !h.resume.length || !h.cwd) return "";
  return "cd " + shq(h.cwd) + " && " + h.resume.map(shq).join(" ");
}

async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t("dashboard.copied", text));
  } catch (e) {
    toast(t("dashboard.copy_by_hand", text));
  }
}

let historyShown = "";
async function loadHistory() {
  let h;
  try {
    h = await api("GET", "history?limit=50");
  } catch (e) {
    if (e.status === 503) $("history").hidden = true;
    return;
  }
  const key = JSON.stringify(h);
  if (key === historyShown) return;
  historyShown = key;
  $("history-list").replaceChildren(...h.sessions.map(historyCard));
  $("history-empty").hidden = h.sessions.length > 0;
}

function historyCard(h) {
  const cmd = resumeCommand(h);
  const state = h.live ? t("dashboard.live_now") : h.ended ? t("dashboard.ended") : t("dashboard.stale");
  const li = el("li", {class: "card", "data-session": h.agent + ":" + h.session_id},
    el("div", {class: "who"}, el("strong", {}, h.title || h.session_id), " ",
      el("span", {class: "muted"}, h.agent + (h.host ? " @" + h.host : "") + (h.headless ? t("dashboard.headless") : ""))),
    el("p", {class: "where"}, (h.host ? h.host + ":" : "") + h.cwd + " · " + state + " " + ago(h.last_active) + " · " +
      n("dashboard.turns", h.turns)));
  if (cmd) {
    li.append(el("div", {class: "buttons"},
      el("button", {type: "button", class: "copy", "data-command": cmd, onclick: () => copyText(cmd)}, t("dashboard.copy_resume")),
      el("code", {class: "resume"}, (h.host ? t("dashboard.on_host", h.host) : "") + cmd)));
  } else {
    li.append(el("p", {class: "muted"}, t("dashboard.no_resume", h.agent)));
  }
  return li;
}

// ago says how long ago iso was: "just now", "5m ago".
function ago(iso) {
  return seconds(iso) < 5 ? t("dashboard.just_now") : t("dashboard.ago", age(iso));
}

// dur says a number of seconds in the person's words (2h05m, 4m10s, 12s;
// 2小时05分), as `clawd recap` does (cmd/recap.go's span).
function dur(s) {
  s = Math.max(0, Math.round(s));
  if (s < 60) return t("recap.span.seconds", s);
  if (s < 600) return t("recap.span.minutes_seconds", Math.floor(s / 60), s % 60);
  if (s < 3600) return t("recap.span.minutes", Math.floor(s / 60));
  if (s < 48 * 3600) return t("recap.span.hours_minutes", Math.floor(s / 3600), Math.floor(s / 60) % 60);
  return t("recap.span.days_hours", Math.floor(s / 86400), Math.floor(s / 3600) % 24);
}

function pct(part, whole) {
  if (!whole || !part) return "0%";
  const p = 100 * part / whole;
  return p < 1 ? "<1%" : Math.round(p) + "%";
}

// barRow is one row of a bar chart: its label, a bar as long as value is
// of max, and what it stands for in words.
function barRow(label, value, max, detail) {
  const fill = el("span", {class: "fill"});
  fill.style.width = (max > 0 ? 100 * value / max : 0).toFixed(1) + "%";
  return el("li", {class: "bar-row"}, el("span", {class: "bar-label"}, label),
    el("span", {class: "bar", role: "img", "aria-label": detail}, fill), el("span", {class: "bar-detail"}, detail));
}

let recapShown = "";
async function loadRecap() {
  let r;
  try {
    // The folders by name: this page is on this machine (what leaves it,
    // clawd recap --json and the automations, keeps the hashes).
    r = await api("GET", "recap?days=7&folders=1");
  } catch (e) {
    if (e.status === 503) $("recap").hidden = true;
    return;
  }
  const key = JSON.stringify(r);
  if (key === recapShown) return;
  recapShown = key;
  setText($("recap-coverage"), t("dashboard.coverage", pct(r.covered_seconds, r.seconds), dur(r.covered_seconds), dur(r.seconds), r.zone));
  const most = (list) => Math.max(0, ...list.map((x) => x.busy_seconds));
  const days = most(r.days);
  $("recap-days").replaceChildren(...r.days.map((d) => barRow(d.day, d.busy_seconds, days,
    t("dashboard.day_detail", dur(d.busy_seconds), n("dashboard.n_sessions", d.sessions), n("dashboard.turns", d.turns),
      n("dashboard.n_tool_calls", d.tool_calls), dur(d.waiting_seconds), n("dashboard.n_failed", d.failed_turns),
      d.covered_seconds ? pct(d.covered_seconds, d.seconds) : t("dashboard.not_running")))));
  const agents = most(r.agents);
  $("recap-agents").replaceChildren(...r.agents.map((a) => barRow(a.agent, a.busy_seconds, agents,
    t("dashboard.agent_detail", dur(a.busy_seconds), n("dashboard.turns", a.turns), dur(a.waiting_seconds),
      n("dashboard.n_requests", a.permission_requests), n("dashboard.n_questions", a.questions), n("dashboard.n_failed", a.failed_turns)))));
  const folders = most(r.folders);
  $("recap-folders").replaceChildren(...r.folders.map((f) => {
    const row = barRow(f.name ? f.name.replace(/[\\/]+$/, "").split(/[\\/]/).pop() || f.name : f.folder.slice(0, 12), f.busy_seconds, folders,
      t("dashboard.folder_detail", dur(f.busy_seconds), n("dashboard.turns", f.turns)));
    row.title = f.name || f.folder;
    return row;
  }));
  // A week of zeros says nothing: the charts show once an agent was busy.
  $("recap-charts").hidden = r.agents.length === 0;
  $("recap-empty").hidden = r.agents.length > 0;
}

setInterval(() => {
  if (!document.hidden && view && view.features.history && !signedOutShown) {
    loadHistory();
    loadRecap();
  }
}, 15000);

// fixDiffs are the diffs the Fix buttons applied, by agent, shown on
// its card after the checks ran again.
const fixDiffs = new Map();

// noHooks: no agent found here has clawd's hooks. With no session either
// (firstRun), nothing can reach the inbox: it says what to do instead.
let noHooks = false;
let firstRun = false;

function showFirstRun() {
  firstRun = noHooks && !!view && view.sessions.length === 0 && view.permissions.length === 0;
  hide($("firstrun"), !firstRun);
}

// agentsGen counts loadAgents calls: only the latest one renders, so
// checks read before a Fix never replace those read after it.
let agentsGen = 0;

async function loadAgents() {
  const gen = ++agentsGen;
  let list, doctor = [];
  try {
    list = await api("GET", "agents");
    if (view && view.features.doctor) doctor = await api("GET", "doctor");
  } catch (e) {
    if (gen === agentsGen) toast(e.message);
    return;
  }
  if (gen !== agentsGen) return;
  const byID = new Map(doctor.map((d) => [d.agent, d]));
  // The agents found here, each with its checks; the others folded into
  // one line.
  const here = list.filter((a) => a.detected || a.installed);
  const elsewhere = list.filter((a) => !(a.detected || a.installed));
  $("agent-list").replaceChildren(...here.map((a) => agentCard(a, byID.get(a.id))));
  if (!here.length) $("agent-list").append(el("li", {class: "empty"}, t("dashboard.none_found")));
  $("agents-more").hidden = elsewhere.length === 0;
  setText($("agents-more-sum"), n("dashboard.more_agents", elsewhere.length));
  $("agent-more-list").replaceChildren(...elsewhere.map((a) => el("li", {"data-agent": a.id}, a.name)));
  noHooks = !list.some((a) => a.installed);
  showFirstRun();
  setText($("firstrun-found"), here.length ? t("dashboard.first_found", here.map((a) => a.name).join(", ")) : t("dashboard.none_found"));
  if (view) renderNeeds(view);
}

// level names a doctor finding's level as clawd doctor prints it.
function level(l) {
  switch (l) {
    case "ok": return t("doctor.status.ok");
    case "skipped": return t("doctor.status.skipped");
    case "warn": return t("doctor.status.warn");
    case "error": return t("doctor.status.fail");
  }
  return l;
}

function agentCard(a, d) {
  const li = el("li", {class: "card", "data-agent": a.id},
    el("div", {class: "who"}, el("strong", {}, a.name), " ", el("span", {class: a.installed ? "ok" : "muted"},
      a.detected ? (a.installed ? t("dashboard.hooks_installed") : t("dashboard.hooks_missing")) : t("dashboard.not_found"))),
    el("p", {}, [a.version ? t("dashboard.version", a.version) : "", a.config_path].filter(Boolean).join(" · ")),
    el("ul", {class: "notes"}, ...(a.notes || []).map((n) => el("li", {}, n))));
  if (d) {
    li.append(el("ul", {class: "findings"}, ...(d.findings || []).map((f) => el("li", {class: "f-" + f.level}, level(f.level) + ": " + f.message))));
    if (d.fixable) {
      li.append(el("button", {type: "button", onclick: async (ev) => {
        const b = ev.currentTarget;
        b.disabled = true;
        try {
          const fix = await api("POST", "doctor/" + encodeURIComponent(a.id) + "/fix", {});
          fixDiffs.set(a.id, fix.changed ? fix.diff || t("dashboard.fixed") : t("dashboard.nothing_to_fix"));
          await loadAgents(); // the checks again, with the diff
        } catch (e) {
          toast(e.message);
          b.disabled = false;
        }
      }}, t("dashboard.fix")));
    }
  }
  if (fixDiffs.has(a.id)) li.append(el("pre", {class: "diff"}, fixDiffs.get(a.id)));
  return li;
}

// ---- settings

$("dnd").addEventListener("change", (ev) => {
  api("POST", "dnd", {on: ev.target.checked}).catch((e) => toast(e.message));
});
$("pause").addEventListener("click", (ev) => {
  api("POST", "pause", {on: ev.currentTarget.dataset.on === "true"}).catch((e) => toast(e.message));
});
$("f-agent").addEventListener("change", () => view && renderSessions(view));
$("f-folder").addEventListener("input", () => view && renderSessions(view));
$("f-state").addEventListener("change", () => view && renderSessions(view));
for (const id of ["e-agent", "e-kind", "e-session"]) $(id).addEventListener("input", refilterEvents);

// ---- the stream

function setConn(live) {
  setText($("conn"), live ? t("dashboard.live") : t("dashboard.offline"));
  $("conn").classList.toggle("live", live);
}

// resync ends the current stream so that follow reconnects at once: the
// stream starts again with a View and the events after lastSeq.
let resync = null;

function onLine(m) {
  if (m.type === "view") render(m);
  else if (m.type === "event") addEvent(m.event, m.text);
  else if (m.type === "stream.missed") addGap(m);
  else if (m.type === "stream.lagged" && resync) resync();
}

// follow reads the dashboard stream (newline-delimited JSON) for as long
// as the tab is open, reconnecting after a break with the seq of the last
// event it showed: the runtime sends exactly the events in between, or
// says how many it no longer holds.
async function follow() {
  let delay = 500;
  while (!signedOutShown) {
    const ctl = new AbortController();
    let again = false;
    resync = () => {
      again = true;
      ctl.abort();
    };
    try {
      const since = lastSeq ? "?since=" + lastSeq : "";
      const r = await fetch("/ui/api/v1/stream" + since, {headers: {"X-Clawd-Dashboard": secret}, cache: "no-store",
        credentials: "same-origin", signal: ctl.signal});
      if (r.status === 401) {
        forget();
        signedOut();
        return;
      }
      if (!r.ok) throw new Error("stream: " + r.status);
      setConn(true);
      delay = 500;
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      read: for (;;) {
        const {value, done} = await reader.read();
        if (done) break;
        buf += dec.decode(value, {stream: true});
        let i;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i).trim();
          buf = buf.slice(i + 1);
          if (line) onLine(JSON.parse(line));
          // Past a lag, lines lost come before the next: none is shown
          // until the new stream brings them.
          if (again) break read;
        }
      }
    } catch (e) { /* reconnect below */ }
    resync = null;
    if (again) continue; // fell behind: catch up at once
    setConn(false);
    await new Promise((res) => setTimeout(res, delay));
    delay = Math.min(delay * 2, 10000);
  }
}

if (!secret) signedOut();
else follow();
