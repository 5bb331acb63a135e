"use strict";
// A job's page: counts and progress while it runs, then its puzzles a page at a time, each
// drawn as a board with its search statistics beside it.

(() => {
  const {el} = PQ;
  const jobId = document.getElementById("job").dataset.jobId;
  const PAGE = 12;
  let cursors = [null];  // the cursor of each page seen; the last is the current one
  let nextCursor = null;
  let lastSeen = "";
  let lastJob = null;
  let timer = null;

  // The API's puzzle cursor is the next batch index, encoded as the service encodes it
  // (service/cursors.py): base64url of a JSON list, without padding.
  const cursorAt = index => index ? btoa(JSON.stringify([index])).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "") : null;
  const filter = () => document.getElementById("status-filter").value;
  const pageCount = () => Math.max(1, Math.ceil((lastJob ? lastJob.total : 0) / PAGE));

  function statsTable(p) {
    const rows = [];
    const add = (name, value) => rows.push(el("tr", {}, el("th", {text: name}), el("td", {text: value})));
    for (const [name, value] of Object.entries(p.result || {})) {
      if (["solution", "queens", "spokes"].includes(name)) continue;  // drawn on the board
      if (typeof value !== "object" || value === null) add(name, PQ.number(value));
    }
    for (const [name, value] of Object.entries(p.stats || {})) {
      if (value === null || value === undefined) continue;
      if (typeof value === "object") {
        if (!Object.keys(value).length) continue;
        add(name, Object.entries(value).map(([k, v]) => `${k} ${PQ.number(v)}`).join(", "));
      } else {
        add(name, PQ.number(value));
      }
    }
    if (p.subtasks) add("parts done", `${p.subtasks.done} of ${p.subtasks.total}`);
    return el("table", {className: "stats"}, ...rows);
  }

  function card(p) {
    const drawn = Boards.draw(p);
    const fallback = drawn ? null : el("pre", {className: "result", text: JSON.stringify(p.result, null, 1)});
    return el("article", {className: "puzzle", "data-index": p.index, "data-status": p.status},
      el("h3", {}, `#${p.index} ${p.kind} `, el("span", {className: `status ${p.status}`, text: p.status}),
         p.attempts > 1 ? el("span", {className: "attempts hint", text: ` · attempt ${p.attempts}`}) : null),
      el("div", {className: "puzzle-body"}, drawn || fallback,
         el("div", {}, statsTable(p), p.error ? el("p", {className: "error", text: p.error}) : null)));
  }

  async function loadPage() {
    const cursor = cursors[cursors.length - 1];
    const status = filter();
    const query = `limit=${PAGE}` + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : "") +
      (status ? `&status=${status}` : "");
    const page = await PQ.get(`/api/v1/jobs/${jobId}/puzzles?${query}`);
    if (status !== filter() || cursor !== cursors[cursors.length - 1]) return;  // a newer choice wins
    nextCursor = page.next_cursor;
    document.getElementById("puzzles").replaceChildren(...page.items.map(card));
    const shown = page.items.length;
    const number = status ? `page ${cursors.length}` : `page ${cursors.length} of ${pageCount()}`;
    const range = shown ? `#${page.items[0].index}` + (shown > 1 ? `–#${page.items[shown - 1].index}` : "") : "";
    document.getElementById("page-info").textContent =
      shown ? `${number} · puzzles ${range}` : (status ? `no ${status.replace(",", " or ")} puzzles here` : "no puzzles");
    document.getElementById("prev-page").disabled = cursors.length === 1;
    document.getElementById("next-page").disabled = !nextCursor;
    // A page number gives a cursor only over the whole list; under a filter the pages are stepped through.
    document.getElementById("goto-page").disabled = Boolean(status);
    document.getElementById("goto-button").disabled = Boolean(status);
    document.getElementById("goto-hint").hidden = !status;
  }

  function showJob(job) {
    const percent = (100 * job.progress).toFixed(1);
    document.getElementById("job-label").textContent = job.label ? `· ${job.label}` : "";
    const status = document.getElementById("job-status");
    status.textContent = job.status;
    status.className = `status ${job.status}`;
    document.getElementById("job").dataset.status = job.status;
    document.getElementById("job-bar").style.width = `${percent}%`;
    document.getElementById("job-progress").textContent = `${percent}% of ${PQ.number(job.total)} puzzles`;
    document.getElementById("job-counts").textContent = PQ.counts(job);
    const times = [`created ${new Date(job.created_at).toLocaleString()}`];
    if (job.finished_at) {
      times.push(`finished ${new Date(job.finished_at).toLocaleString()} ` +
                 `(${((new Date(job.finished_at) - new Date(job.created_at)) / 1000).toFixed(1)} s)`);
    }
    document.getElementById("job-times").textContent = times.join(", ");
    document.getElementById("cancel-button").hidden = PQ.FINAL.includes(job.status);
    document.getElementById("retry-button").hidden = !(job.counts.failed || job.counts.cancelled);
    lastJob = job;
  }

  function showMissing(err) {
    const missing = document.getElementById("job-missing");
    missing.hidden = false;
    missing.textContent = err.status === 404 ? `No job ${jobId} here (or it belongs to another token).`
      : `Could not read the job (${err.message}); trying again.`;
  }

  // Every second until the job is final; a failed look (the service restarting, say) is retried.
  async function poll() {
    let job = null;
    try {
      job = await PQ.get(`/api/v1/jobs/${jobId}`);
      document.getElementById("job-missing").hidden = true;
      showJob(job);
      const seen = JSON.stringify(job.counts);
      if (seen !== lastSeen) {  // something finished: redraw the puzzles shown
        await loadPage();
        lastSeen = seen;
      }
    } catch (err) {
      showMissing(err);
      if (err.status === 404) return;
    }
    if (!job || !PQ.FINAL.includes(job.status) || JSON.stringify(job.counts) !== lastSeen) {
      clearTimeout(timer);  // one chain of polls, however often poll() is started
      timer = setTimeout(poll, job ? 1000 : 3000);
    }
  }

  document.getElementById("next-page").addEventListener("click", () => {
    if (nextCursor) { cursors.push(nextCursor); loadPage(); }
  });
  document.getElementById("prev-page").addEventListener("click", () => {
    if (cursors.length > 1) { cursors.pop(); loadPage(); }
  });
  async function act(action) {
    const error = document.getElementById("action-error");
    error.hidden = true;
    try {
      showJob(await PQ.post(`/api/v1/jobs/${jobId}/${action}`));
    } catch (err) {
      error.hidden = false;
      error.textContent = `Could not ${action} the job: ${err.message}`;
    }
    lastSeen = "";
    poll();
  }

  document.getElementById("cancel-button").addEventListener("click", () => act("cancel"));
  document.getElementById("retry-button").addEventListener("click", () => act("retry"));
  document.getElementById("status-filter").addEventListener("change", () => { cursors = [null]; loadPage(); });
  document.getElementById("goto-form").addEventListener("submit", event => {
    event.preventDefault();
    if (filter()) return;
    const n = Math.min(Math.max(1, Math.floor(Number(document.getElementById("goto-page").value) || 1)), pageCount());
    document.getElementById("goto-page").value = n;
    cursors = Array.from({length: n}, (_, i) => cursorAt(i * PAGE));
    loadPage();
  });
  for (const button of document.querySelectorAll(".download")) {
    button.addEventListener("click", () => PQ.download(`/api/v1/jobs/${jobId}/results?format=${button.dataset.format}`,
                                                       `${jobId}.${button.dataset.format}`));
  }
  poll();
})();
