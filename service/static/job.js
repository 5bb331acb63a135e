"use strict";
// A job's page: counts and progress while it runs, then its puzzles a page at a time, each
// drawn as a board with its search statistics beside it.

(() => {
  const {el, duration} = PQ;
  const jobId = document.getElementById("job").dataset.jobId;
  const PAGE = 12;
  let cursors = [null];  // the cursor of each page seen; the last is the current one
  let nextCursor = null;
  let lastSeen = "";
  let lastJob = null;
  let timer = null;
  let deleted = false;

  // The API's puzzle cursor is the next batch index, encoded as the service encodes it
  // (service/cursors.py): base64url of a JSON list, without padding.
  const cursorAt = index => index ? btoa(JSON.stringify([index])).replace(/\+/g, "-").replace(/\//g, "_")
    .replace(/=+$/, "") : null;
  const filter = () => document.getElementById("status-filter").value;
  const pageCount = () => Math.max(1, Math.ceil((lastJob ? lastJob.total : 0) / PAGE));
  // A link to one puzzle (/jobs/{id}#puzzle-N, as the fleet view's failures give) opens the page
  // that holds it, marked, and scrolls to it once.
  const linked = /^#puzzle-(\d+)$/.exec(location.hash);
  const target = linked ? Number(linked[1]) : null;
  let scrolled = false;
  if (target !== null) cursors = Array.from({length: Math.floor(target / PAGE) + 1}, (_, i) => cursorAt(i * PAGE));

  const DRAWN = ["solution", "queens", "spokes", "explanation"];  // result fields the board shows
  const isObject = value => value !== null && typeof value === "object";
  const isEmpty = value => value === null || value === undefined ||
    (isObject(value) && !Object.keys(value).length);
  const percentOf = (done, total) => (total ? (100 * done / total) : 100).toFixed(1);

  // A value on one line: numbers with separators, a list's items by commas, an object as
  // "name value" pairs (a nested list or object in brackets).
  function inline(value) {
    if (Array.isArray(value)) return value.map(inner).join(", ");
    if (isObject(value)) return Object.entries(value).map(([k, v]) => `${k} ${inner(v)}`).join(" · ");
    return PQ.number(value);
  }
  const inner = value => (isObject(value) ? `[${inline(value)}]` : inline(value));

  // A table cell's content: a list of objects (stats.abandoned, say) one item a line.
  function cell(value) {
    if (Array.isArray(value) && value.some(isObject)) {
      return el("ul", {className: "nested"}, ...value.map(v => el("li", {text: inline(v)})));
    }
    return inline(value);
  }

  // A field's name: a long one may break after its underscores (estimated_tree_nodes), a short one
  // stays whole (elapsed_ms), since a break in it reads as two words.
  const LONG_NAME = 16;
  const fieldName = name => el("th", {}, ...(name.length <= LONG_NAME ? [name]
    : name.split(/(?<=_)/).flatMap(part => [part, el("wbr")]).slice(0, -1)));

  // An explained solve's summary (its board steps through the steps themselves).
  function explained(result) {
    const e = result && result.explanation;
    if (!e) return [];
    return [["rating", e.rating], ["hardest", e.hardest], ["band", e.band], ["guess steps", e.guesses.length]];
  }

  function statsTable(p) {
    const fields = [...Object.entries(p.result || {}).filter(([name]) => !DRAWN.includes(name)),
                    ...explained(p.result), ...Object.entries(p.stats || {})];
    const rows = fields.filter(([, value]) => !isEmpty(value))
      .map(([name, value]) => el("tr", {}, fieldName(name), el("td", {}, cell(value))));
    return el("table", {className: "stats"}, ...rows);
  }

  // What a puzzle without a result shows instead, as text; null when its error says it all.
  function pendingText(p) {
    if (p.subtasks) {
      const {done, total} = p.subtasks;
      return `split into ${PQ.number(total)} parts: ${PQ.number(done)} done (${percentOf(done, total)}%)`;
    }
    if (p.status === "running" && p.progress != null) {
      return `being solved: ${percentOf(p.progress, 1)}% of its search done, as its solver reports`;
    }
    const waiting = {queued: "queued: not started yet", running: "being solved",
                     cancelled: "cancelled before it finished"};
    return waiting[p.status] || null;
  }

  function pending(p) {
    const text = p.result ? null : pendingText(p);
    return text ? el("p", {className: p.subtasks ? "pending parts" : "pending", text}) : null;
  }

  function card(p) {
    const drawn = Boards.draw(p);
    const fallback = drawn || !p.result ? null
      : el("pre", {className: "result", text: JSON.stringify(p.result, null, 1)});
    return el("article", {className: p.index === target ? "puzzle target" : "puzzle", id: `puzzle-${p.index}`,
                          "data-index": p.index, "data-status": p.status},
      el("h3", {}, `#${p.index} ${p.kind} `, el("span", {className: `status ${p.status}`, text: p.status}),
         p.attempts > 1 ? el("span", {className: "attempts hint", text: ` · attempt ${p.attempts}`}) : null),
      el("div", {className: "puzzle-body"}, drawn || fallback,
         el("div", {className: "puzzle-facts"}, pending(p), statsTable(p),
            p.error ? el("p", {className: "error", text: p.error}) : null)));
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
    const marked = document.querySelector("#puzzles .puzzle.target");
    if (marked && !scrolled) { scrolled = true; marked.scrollIntoView({block: "start"}); }
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

  const show = (id, visible) => { document.getElementById(id).hidden = !visible; };

  // The job's progress is its work done as predicted (each puzzle weighted by its estimate), a
  // cancelled job's the share of its puzzles that ended before the cancel; a running job's eta
  // comes from the rate that work has gone at, with its band.
  function showProgress(job) {
    const percent = (100 * job.progress).toFixed(1);
    const eta = job.status === "running" && job.eta_seconds != null && job.eta_range
      ? ` · about ${duration(job.eta_seconds)} left (${duration(job.eta_range[0])}–${duration(job.eta_range[1])})`
      : "";
    document.getElementById("job-bar").style.width = `${percent}%`;
    document.getElementById("job-progress").textContent = `${percent}% of ${PQ.number(job.total)} ${job.total === 1 ? "puzzle" : "puzzles"}` +
      (job.status === "cancelled" ? " done before the cancel" : "") + eta;
  }

  function showTimes(job) {
    const times = [`created ${new Date(job.created_at).toLocaleString()}`];
    if (job.finished_at) {
      times.push(`finished ${new Date(job.finished_at).toLocaleString()} ` +
                 `(${((new Date(job.finished_at) - new Date(job.created_at)) / 1000).toFixed(1)} s)`);
    }
    document.getElementById("job-times").textContent = times.join(", ");
  }

  function showJob(job) {
    if (deleted) return;  // an answer that was on its way when the job was deleted
    document.getElementById("job-label").textContent = job.label ? `· ${job.label}` : "";
    const status = document.getElementById("job-status");
    status.textContent = job.status;
    status.className = `status ${job.status}`;
    document.getElementById("job").dataset.status = job.status;
    showProgress(job);
    document.getElementById("job-counts").textContent = PQ.counts(job);
    showTimes(job);
    const final = PQ.FINAL.includes(job.status);
    show("cancel-button", !final);
    for (const id of ["retry-button", "retry-options", "retry-accept"]) show(id, job.counts.failed || job.counts.cancelled);
    show("delete-button", final && document.getElementById("delete-confirm").hidden);
    show("job-details", true);
    show("puzzle-panel", true);
    lastJob = job;
  }

  // No job to show (unknown, another token's, or deleted): the message and the way back, no actions.
  function hideJob() {
    clearTimeout(timer);
    show("job-details", false);
    show("puzzle-panel", false);
    show("back-link", true);
  }

  function showMissing(err) {
    const missing = document.getElementById("job-missing");
    missing.hidden = false;
    if (err.status !== 404) {
      missing.textContent = `Could not read the job (${err.message}); trying again.`;
      return;
    }
    missing.textContent = `Job ${jobId} not found (or it belongs to another token).`;
    document.getElementById("job").dataset.status = "missing";
    hideJob();
  }

  // What the page has seen of the job: the puzzles shown are drawn again when it changes, progress
  // included, so that a split puzzle's parts on its card move with the job's bar.
  const seenKey = job => JSON.stringify([job.counts, job.progress]);

  // Every second until the job is final; a failed look (the service restarting, say) is retried.
  async function poll() {
    let job = null;
    try {
      job = await PQ.get(`/api/v1/jobs/${jobId}`);
      if (deleted) return;
      show("job-missing", false);
      showJob(job);
      if (seenKey(job) !== lastSeen) {
        await loadPage();
        lastSeen = seenKey(job);
      }
    } catch (err) {
      if (deleted) return;
      showMissing(err);
      if (err.status === 404) return;
    }
    if (!job || !PQ.FINAL.includes(job.status) || seenKey(job) !== lastSeen) {
      clearTimeout(timer);  // one chain of polls, however often poll() is started
      timer = setTimeout(poll, job ? 1000 : 3000);
    }
  }

  function askDelete(asking) {
    show("delete-confirm", asking);
    show("delete-button", !asking);
    if (asking) document.getElementById("delete-no").focus();
  }

  async function deleteJob() {
    show("action-error", false);
    try {
      await PQ.del(`/api/v1/jobs/${jobId}`);
    } catch (err) {
      askDelete(false);
      show("action-error", true);
      document.getElementById("action-error").textContent = `Could not delete the job: ${err.message}`;
      return;
    }
    deleted = true;
    document.getElementById("job").dataset.status = "deleted";
    document.getElementById("job-deleted").textContent = `Job ${jobId} is deleted, with its puzzles and results.`;
    show("job-deleted", true);
    hideJob();
  }

  document.getElementById("next-page").addEventListener("click", () => {
    if (nextCursor) { cursors.push(nextCursor); loadPage(); }
  });
  document.getElementById("prev-page").addEventListener("click", () => {
    if (cursors.length > 1) { cursors.pop(); loadPage(); }
  });
  // A retry's options to change, from the field beside its button (a JSON object, or nothing),
  // and whether it accepts puzzles predicted above the service's cap.
  function retryBody() {
    const body = {};
    const text = document.getElementById("retry-options").value.trim();
    if (text) {
      let options;
      try { options = JSON.parse(text); } catch (err) { options = null; }
      if (options === null || typeof options !== "object" || Array.isArray(options)) {
        throw new Error('the options to change must be a JSON object, such as {"strategy": "sat"}');
      }
      body.options = options;
    }
    if (document.getElementById("retry-accept-cost").checked) body.accept_cost = true;
    return Object.keys(body).length ? body : undefined;
  }

  async function act(action) {
    const error = document.getElementById("action-error");
    error.hidden = true;
    try {
      showJob(await PQ.post(`/api/v1/jobs/${jobId}/${action}`, action === "retry" ? retryBody() : undefined));
    } catch (err) {
      error.hidden = false;
      error.textContent = `Could not ${action} the job: ${err.message}` +
        PQ.capHint(err, "retry-accept-cost", "retry them");
    }
    lastSeen = "";
    poll();
  }

  document.getElementById("cancel-button").addEventListener("click", () => act("cancel"));
  document.getElementById("retry-button").addEventListener("click", () => act("retry"));
  document.getElementById("delete-button").addEventListener("click", () => askDelete(true));
  document.getElementById("delete-no").addEventListener("click", () => askDelete(false));
  document.getElementById("delete-yes").addEventListener("click", deleteJob);
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
