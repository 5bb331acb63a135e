"use strict";
// The page's access to the JSON API: fetch with the bearer token when the service wants one
// (asked once, kept in sessionStorage for this tab), problem documents as thrown errors, and
// small helpers to build DOM nodes. No framework, no build step.

const PQ = (() => {
  // The fleet view (/ops) keeps an operator's token apart from a client's (base.html).
  const KEY = document.body.dataset.tokenKey || "puzzle-queue-token";
  const tokensRequired = document.body.dataset.tokensRequired === "true";
  let asking = null;

  const token = () => sessionStorage.getItem(KEY);

  function showForget() {
    const button = document.getElementById("forget-token");
    button.hidden = !token();
    button.onclick = () => { sessionStorage.removeItem(KEY); location.reload(); };
  }

  // Show the token form; resolves once the user has given one.
  function askToken(message) {
    const form = document.getElementById("token-form");
    const error = document.getElementById("token-error");
    form.hidden = false;
    error.hidden = !message;
    error.textContent = message || "";
    if (!asking) {
      asking = new Promise(resolve => {
        form.addEventListener("submit", event => {
          event.preventDefault();
          sessionStorage.setItem(KEY, document.getElementById("token").value.trim());
          form.hidden = true;
          asking = null;
          showForget();
          resolve();
        }, {once: true});
      });
    }
    return asking;
  }

  class ApiError extends Error {
    constructor(status, problem) {
      super((problem && (problem.detail || problem.title)) || `HTTP ${status}`);
      this.status = status;
      this.problem = problem || {};
    }
  }

  // ``open``: a public view (the kinds), asked without waiting for a token; one is sent if kept.
  async function request(method, path, body, open = false) {
    if (tokensRequired && !token() && !open) await askToken();
    for (;;) {
      const headers = {};
      if (token()) headers.Authorization = "Bearer " + token();
      if (body !== undefined) headers["Content-Type"] = "application/json";
      const resp = await fetch(path, {method, headers, body: body === undefined ? undefined : JSON.stringify(body)});
      if (resp.status !== 401) return resp;
      const had = token();
      sessionStorage.removeItem(KEY);
      await askToken(had ? "That token was not accepted; try another." : "");
    }
  }

  async function call(method, path, body, open = false) {
    const resp = await request(method, path, body, open);
    const data = await resp.json().catch(() => null);
    if (!resp.ok) throw new ApiError(resp.status, data);
    return data;
  }

  // A download that carries the token: fetched, then handed to the browser as a file.
  async function download(path, filename) {
    const resp = await request("GET", path);
    if (!resp.ok) throw new ApiError(resp.status, await resp.json().catch(() => null));
    const url = URL.createObjectURL(await resp.blob());
    const link = el("a", {href: url, download: filename});
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "text") node.textContent = value;
      else if (name === "className") node.className = value;
      else if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value);
    }
    node.append(...children.filter(c => c !== null && c !== undefined));
    return node;
  }

  const number = value => typeof value === "number"
    ? (Math.abs(value) >= 1e15 ? value.toExponential(4)
      : value.toLocaleString("en-US", {maximumFractionDigits: Math.abs(value) >= 1000 ? 0 : 3}))
    : String(value);

  // Seconds as a wait reads: 45s, 3m05s, 2h10m.
  function duration(seconds) {
    const s = Math.round(seconds), pad = n => String(n).padStart(2, "0");
    if (s >= 3600) return `${Math.floor(s / 3600)}h${pad(Math.floor(s % 3600 / 60))}m`;
    return s >= 60 ? `${Math.floor(s / 60)}m${pad(s % 60)}s` : `${s}s`;
  }

  function counts(job) {
    return Object.entries(job.counts).filter(([, n]) => n).map(([s, n]) => `${s} ${number(n)}`).join(" · ");
  }

  const FINAL = ["completed", "cancelled"];

  // What a refusal past MAX_PUZZLE_CPU_SECONDS adds while the form's "Accept the cost" box
  // (``box``, sent as accept_cost) is not ticked: how to ``act`` anyway.
  const capHint = (err, box, act) => (err.problem && err.problem.max_puzzle_cpu_seconds !== undefined &&
    !document.getElementById(box).checked ? `. Tick "Accept the cost" to ${act} anyway.` : "");

  showForget();
  return {get: path => call("GET", path), getPublic: path => call("GET", path, undefined, true), post: (path, body) => call("POST", path, body),
          del: path => call("DELETE", path), download, el, number, duration, counts, capHint, FINAL, ApiError};
})();
