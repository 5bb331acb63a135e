"use strict";
// The fleet view: each lane's queue and each worker process, asked of /api/v1/queues and
// /api/v1/workers every few seconds (with an operator's token when the service wants one).
// A worker's Drain button asks its `celery worker` to finish what it holds and take nothing new
// (POST /api/v1/workers/{name}/drain); Take work again undoes it.

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

  async function drain(w, button) {
    button.disabled = true;
    const error = document.getElementById("ops-error");
    try {
      await PQ.post(`/api/v1/workers/${encodeURIComponent(w.name)}/${w.draining ? "undrain" : "drain"}`);
      error.hidden = true;
    } catch (err) {
      error.textContent = err.message;
      error.hidden = false;
    }
    clearTimeout(timer);
    refresh();
  }

  function control(w) {
    const button = el("button", {type: "button", className: "drain",
                                 text: w.draining ? "Take work again" : "Drain",
                                 title: w.draining ? "let this worker take tasks from its queues again"
                                   : "finish what it holds and take nothing new (every process of its celery worker)"});
    button.onclick = () => drain(w, button);
    return button;
  }

  function workerRow(w) {
    const beat = el("span", {className: `status ${w.alive ? "running" : "failed"}`,
                             text: w.alive ? "alive" : "silent"});
    const draining = w.draining ? el("span", {className: "status no_solution draining", text: "draining"}) : null;
    return el("tr", {"data-worker": w.name, "data-lane": w.lane || "", "data-alive": String(w.alive),
                     "data-preparing": (w.preparing || []).join(" "),
                     "data-draining": String(Boolean(w.draining))},
      el("td", {title: w.name}, el("code", {text: w.celery_node || w.host}), w.pid === null ? null : ` pid ${w.pid}`),
      el("td", {text: w.lane || "not known yet"}),
      el("td", {}, beat, ` ${seconds(w.heartbeat_age_seconds)} ago `, draining),
      el("td", {className: "holding"}, holding(w)),
      el("td", {className: "done", text: PQ.number(w.done_last_minute)}),
      el("td", {}, control(w)));
  }

  function show(queues, workers) {
    document.querySelector("#queues tbody").replaceChildren(...queues.items.map(queueRow));
    document.getElementById("flow").textContent =
      `puzzles in ${PQ.number(queues.puzzles_in)} · out ${PQ.number(queues.puzzles_out)} ` +
      `in the last ${PQ.number(queues.window_seconds)} s`;
    document.querySelector("#workers tbody").replaceChildren(...workers.items.map(workerRow));
    document.getElementById("no-workers").hidden = workers.items.length > 0;
    const preparing = workers.preparing || [];
    document.getElementById("preparing").hidden = preparing.length === 0;
    document.getElementById("preparing-kinds").textContent = preparing.join(", ");
    document.getElementById("updated").textContent = `Updated ${new Date().toLocaleTimeString()}.`;
  }

  function failureRow(f) {
    const at = new Date(f.finished_at);
    // Each cell names its column: on a phone the row is a block without the header row.
    return el("tr", {"data-job-id": f.job_id, "data-index": f.index},
      el("td", {"data-label": "When", text: at.toLocaleTimeString()}),
      el("td", {"data-label": "Puzzle"},
         el("a", {href: `/jobs/${encodeURIComponent(f.job_id)}#puzzle-${f.index}`, text: `${f.job_id.slice(0, 8)}… #${f.index}`})),
      el("td", {"data-label": "Kind", text: f.kind}), el("td", {"data-label": "Client", text: f.owner || "anonymous"}),
      el("td", {className: "error", "data-label": "Error", text: f.error}));
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

  // The last hour's charts: bars of puzzles finished per minute (the failed ones on top, red),
  // and the latency's median and 95th percentile as lines; each scaled to its own highest value.
  const SVG = "http://www.w3.org/2000/svg";
  const W = 600, H = 140, TOP = 14, BOTTOM = 126;

  function svg(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function drawThroughput(minutes) {
    const most = Math.max(1, ...minutes.map(m => m.finished));
    const width = W / minutes.length;
    const y = n => BOTTOM - (BOTTOM - TOP) * n / most;
    const bars = minutes.flatMap((m, i) => m.finished ? [
      svg("rect", {class: "done", x: i * width + 1, y: y(m.finished), width: width - 2,
                   height: BOTTOM - y(m.finished), "data-minute": m.start}),
      svg("rect", {class: "failed", x: i * width + 1, y: y(m.failed), width: width - 2,
                   height: BOTTOM - y(m.failed)})] : []);
    document.getElementById("throughput-chart").replaceChildren(
      svg("text", {x: 4, y: 11}, `${PQ.number(most)} a minute`), ...bars,
      svg("text", {x: 4, y: H - 2}, "60 min ago"), svg("text", {x: W - 30, y: H - 2}, "now"));
  }

  function drawLatency(minutes) {
    const most = Math.max(0.001, ...minutes.map(m => m.latency_p95 || 0));
    const width = W / minutes.length;
    const line = key => svg("polyline", {class: key, points: minutes.flatMap((m, i) => m[`latency_${key}`] === null
      ? [] : [`${(i + 0.5) * width},${BOTTOM - (BOTTOM - TOP) * m[`latency_${key}`] / most}`]).join(" ")});
    document.getElementById("latency-chart").replaceChildren(
      svg("text", {x: 4, y: 11}, `${PQ.number(Math.round(most * 1000) / 1000)} s`), line("p95"), line("p50"),
      svg("text", {x: 4, y: H - 2}, "60 min ago"), svg("text", {x: W - 30, y: H - 2}, "now"));
  }

  function showActivity(activity) {
    const minutes = activity.items;
    drawThroughput(minutes);
    drawLatency(minutes);
    const finished = minutes.reduce((n, m) => n + m.finished, 0);
    const failed = minutes.reduce((n, m) => n + m.failed, 0);
    document.getElementById("activity-summary").textContent =
      `${PQ.number(finished)} puzzles finished, ${PQ.number(failed)} failed in the last ${minutes.length} minutes.`;
  }

  let activityAt = 0;
  let timer = 0;

  async function refresh() {
    const error = document.getElementById("ops-error");
    try {
      // One after the other: a first visit may ask for the token, and should ask once.
      const queues = await PQ.get("/api/v1/queues");
      const workers = await PQ.get("/api/v1/workers");
      show(queues, workers);
      showFailures(await PQ.get(`/api/v1/failures?${failureQuery()}`));
      if (Date.now() - activityAt > 30000) {  // minutes change slowly: asked every 30 s
        showActivity(await PQ.get("/api/v1/activity?minutes=60"));
        activityAt = Date.now();
      }
      error.hidden = true;
    } catch (err) {
      error.textContent = err.status === 403 ? `${err.message} (use Forget token to give another)` : err.message;
      error.hidden = false;
    }
    clearTimeout(timer);
    timer = setTimeout(refresh, EVERY);
  }

  refresh();
})();
