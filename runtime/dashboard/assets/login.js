// login.js keeps the login's secret in the runtime origin's localStorage,
// which no other origin (no other port) can read, and goes on to the
// dashboard. localStorage, not sessionStorage: a bookmark, a reload or a
// new tab of this browser opens the dashboard again while the runtime
// runs (see dashboardLogin in runtime/dashboard.go for why this lets no
// other page in).
"use strict";
const meta = document.querySelector('meta[name="clawd-secret"]');
if (meta && meta.content) {
  localStorage.setItem("clawd-secret", meta.content);
  sessionStorage.removeItem("clawd-secret");
  meta.remove();
}
location.replace("/");
