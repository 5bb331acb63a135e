"use strict";
// A job page's history (GET /api/v1/jobs/{id}/events): its events oldest first, a page at a time,
// of every puzzle or of one; a finished puzzle's predicted seconds against the seconds it took.

(() => {
  const {el} = PQ;
  const job = document.getElementById("job");
  const jobId = job.dataset.jobId;
  const PAGE = 100;
  const LEFT = {lost: "its chunk's worker was lost", solved_alone: "to be solved alone"};
  let nextCursor = null;
  // The puzzle whose events are shown (null: every puzzle's): at first the one a link names
  // (/jobs/{id}#puzzle-N, as the fleet view's failures give).
  const linked = /^#puzzle-(\d+)$/.exec(location.hash);
  let shownIndex = linked ? Number(linked[1]) : null;
  if (linked) document.getElementById("history-index").value = linked[1];
  let loading = 0;  // the newest load; an older answer arriving late is dropped

  // Seconds to three figures; under a second in milliseconds, so that a cheap puzzle's reads as more than 0.
  const seconds = value => (value >= 1 || value === 0 ? `${PQ.number(Number(value.toPrecision(3)))} s`
    : `${PQ.number(Number((value * 1000).toPrecision(3)))} ms`);

  // A finished event's predicted and actual seconds, and their ratio when both are known.
  function timing(detail) {
    const parts = [];
    if (detail.estimated_seconds != null) parts.push(`predicted ${seconds(detail.estimated_seconds)}`);
    if (detail.seconds != null) parts.push(`took ${seconds(detail.seconds)}`);
    if (detail.estimated_seconds > 0 && detail.seconds != null) {
      parts.push(`${PQ.number(Number((detail.seconds / detail.estimated_seconds).toPrecision(2)))}×`);
    }
    return parts.join(" · ");
  }

  function finished(detail) {
    const what = detail.statuses
      ? Object.entries(detail.statuses).map(([status, n]) => `${status} ${PQ.number(n)}`).join(", ")
      : detail.status;
    const errors = detail.errors ? Object.entries(detail.errors).map(([i, e]) => `#${i}: ${e}`)
      : (detail.error ? [detail.error] : []);
    return [what, timing(detail), ...errors].filter(Boolean).join(" · ");
  }

  // What an event says beyond its type, puzzles and worker.
  function said(e) {
    const d = e.detail || {};
    switch (e.type) {
      case "submitted": return `${PQ.number(d.total)} ${d.total === 1 ? "puzzle" : "puzzles"}`;
      case "finished": return finished(d);
      case "ended": return d.status;
      case "moved": return `to the ${d.lane} lane` + (d.cap_seconds != null ? `, past ${seconds(d.cap_seconds)}` : "");
      case "split": return `into ${PQ.number(d.parts)} parts`;
      case "left": return LEFT[d.reason] || d.reason;
      case "retried": return `was ${d.was}` + (d.error ? `: ${d.error}` : "") + ` · options ${JSON.stringify(d.options)}`;
      case "handed_on": return e.worker ? "published again" : "published again (its message was lost)";
      default: return "";
    }
  }

  function puzzles(e) {
    if (e.index === null) return "job";
    const where = e.last_index === null || e.last_index === e.index ? `#${e.index}` : `#${e.index}–#${e.last_index}`;
    return e.part === null || e.part === undefined ? where : `${where} part ${e.part}`;
  }

  // A finished puzzle that took more than twice its prediction is marked.
  const slow = e => e.type === "finished" && e.detail.estimated_seconds > 0 && e.detail.seconds > 2 * e.detail.estimated_seconds;

  function item(e) {
    const status = e.detail && (e.detail.status || "");
    return el("li", {className: `event ${e.type}` + (slow(e) ? " slow" : ""), "data-type": e.type},
      el("time", {datetime: e.at, text: new Date(e.at).toLocaleString()}),
      el("span", {className: `kind status ${status}`, text: e.type.replace("_", " ")}),
      el("span", {className: "where", text: puzzles(e)}),
      e.worker ? el("span", {className: "worker hint", text: `${e.worker}` + (e.attempt ? ` · attempt ${e.attempt}` : "")})
        : null,
      el("span", {className: "said", text: said(e)}));
  }

  async function load(more) {
    const mine = ++loading;
    const query = new URLSearchParams({limit: PAGE});
    if (shownIndex !== null) query.set("index", shownIndex);
    if (more && nextCursor) query.set("cursor", nextCursor);
    const error = document.getElementById("history-error");
    try {
      const page = await PQ.get(`/api/v1/jobs/${jobId}/events?${query}`);
      if (mine !== loading) return;
      error.hidden = true;
      const list = document.getElementById("timeline");
      const items = page.items.map(item);
      if (more) list.append(...items);
      else list.replaceChildren(...items);
      if (!list.children.length) list.append(el("li", {className: "hint", text: "no events"}));
      nextCursor = page.next_cursor;
      document.getElementById("history-more").hidden = !nextCursor;
    } catch (err) {
      if (mine !== loading) return;
      error.hidden = false;
      error.textContent = `Could not read the history: ${err.message}`;
    }
  }

  // The panel follows the job's: shown with it, gone when the job is missing or deleted; its
  // first page is read again whenever the job's status changes.
  let lastStatus = null;
  new MutationObserver(() => {
    const status = job.dataset.status;
    const gone = status === "missing" || status === "deleted";
    document.getElementById("history-panel").hidden = gone;
    if (!gone && status !== lastStatus) load(false);
    lastStatus = status;
  }).observe(job, {attributes: true, attributeFilter: ["data-status"]});

  document.getElementById("history-form").addEventListener("submit", event => {
    event.preventDefault();
    const value = document.getElementById("history-index").value.trim();
    shownIndex = value === "" ? null : Math.max(0, Math.floor(Number(value)));
    load(false);
  });
  document.getElementById("history-all").addEventListener("click", () => {
    document.getElementById("history-index").value = "";
    shownIndex = null;
    load(false);
  });
  document.getElementById("history-refresh").addEventListener("click", () => load(false));
  document.getElementById("history-more").addEventListener("click", () => load(true));
})();
