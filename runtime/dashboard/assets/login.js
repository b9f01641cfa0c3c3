// login.js keeps the login's secret in this tab's sessionStorage, which
// no other origin (no other port) can read, and goes on to the dashboard.
"use strict";
const meta = document.querySelector('meta[name="clawd-secret"]');
if (meta && meta.content) {
  sessionStorage.setItem("clawd-secret", meta.content);
  meta.remove();
}
location.replace("/");
