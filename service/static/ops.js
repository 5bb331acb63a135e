"use strict";
// The fleet view: each lane's queue and each worker process, asked of /api/v1/queues and
// /api/v1/workers every few seconds (with an operator's token when the service wants one).

(() => {
  const {el} = PQ;
  const EVERY = 3000;

  const seconds = s => s === null || s === undefined ? "–" : `${PQ.number(Math.round(s * 10) / 10)} s`;

  function queueRow(q) {
    return el("tr", {"data-queue": q.name, "data-depth": q.depth},
      el("td", {}, el("code", {text: q.name})), el("td", {text: q.lane}),
      el("td", {className: "depth", text: PQ.number(q.depth)}),
      el("td", {text: q.depth ? seconds(q.oldest_age_seconds) : "–"}),
      el("td", {text: PQ.number(q.workers)}));
  }

  const count = (n, what) => n ? `${PQ.number(n)} ${what}${n === 1 ? "" : "s"}` : "";

  function holding(w) {
    if (!w.holding.length) return el("span", {className: "hint", text: "nothing"});
    const parts = w.holding.map(h => el("span", {className: "held"},
      el("a", {href: `/jobs/${encodeURIComponent(h.job_id)}`, text: h.job_id}),
      ` ${[count(h.puzzles, "puzzle"), count(h.parts, "part")].filter(Boolean).join(", ")} `));
    return el("span", {}, ...parts);
  }

  function workerRow(w) {
    const beat = el("span", {className: `status ${w.alive ? "running" : "failed"}`,
                             text: w.alive ? "alive" : "silent"});
    return el("tr", {"data-worker": w.name, "data-lane": w.lane || "", "data-alive": String(w.alive)},
      el("td", {title: w.name}, el("code", {text: w.celery_node || w.host}), w.pid === null ? null : ` pid ${w.pid}`),
      el("td", {text: w.lane || "not known yet"}),
      el("td", {}, beat, ` ${seconds(w.heartbeat_age_seconds)} ago`),
      el("td", {className: "holding"}, holding(w)),
      el("td", {className: "done", text: PQ.number(w.done_last_minute)}));
  }

  function show(queues, workers) {
    document.querySelector("#queues tbody").replaceChildren(...queues.items.map(queueRow));
    document.getElementById("flow").textContent =
      `puzzles in ${PQ.number(queues.puzzles_in)} · out ${PQ.number(queues.puzzles_out)} ` +
      `in the last ${PQ.number(queues.window_seconds)} s`;
    document.querySelector("#workers tbody").replaceChildren(...workers.items.map(workerRow));
    document.getElementById("no-workers").hidden = workers.items.length > 0;
    document.getElementById("updated").textContent = `Updated ${new Date().toLocaleTimeString()}.`;
  }

  function failureRow(f) {
    const at = new Date(f.finished_at);
    return el("tr", {"data-job-id": f.job_id, "data-index": f.index},
      el("td", {text: at.toLocaleTimeString()}),
      el("td", {}, el("a", {href: `/jobs/${encodeURIComponent(f.job_id)}`, text: `${f.job_id.slice(0, 8)}…`}),
         ` #${f.index}`),
      el("td", {text: f.kind}), el("td", {text: f.owner || "anonymous"}),
      el("td", {className: "error", text: f.error}));
  }

  function failureQuery() {
    const query = new URLSearchParams({minutes: 60, limit: 50});
    for (const name of ["kind", "error"]) {
      const value = document.getElementById(`failure-${name}`).value.trim();
      if (value) query.set(name, value);
    }
    return query;
  }

  function showFailures(failures) {
    document.querySelector("#failures tbody").replaceChildren(...failures.items.map(failureRow));
    document.getElementById("no-failures").hidden = failures.items.length > 0;
  }

  document.getElementById("failure-filter").addEventListener("submit", event => {
    event.preventDefault();
    PQ.get(`/api/v1/failures?${failureQuery()}`).then(showFailures).catch(err => console.warn("failures", err));
  });

  async function refresh() {
    const error = document.getElementById("ops-error");
    try {
      // One after the other: a first visit may ask for the token, and should ask once.
      const queues = await PQ.get("/api/v1/queues");
      const workers = await PQ.get("/api/v1/workers");
      show(queues, workers);
      showFailures(await PQ.get(`/api/v1/failures?${failureQuery()}`));
      error.hidden = true;
    } catch (err) {
      error.textContent = err.status === 403 ? `${err.message} (use Forget token to give another)` : err.message;
      error.hidden = false;
    }
    setTimeout(refresh, EVERY);
  }

  refresh();
})();
