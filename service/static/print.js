"use strict";
// A job's printable sheet: its first puzzles (data-printed) as boards, six to a .sheet, each
// sheet an A4 page in print (style.css); with ?solutions=1 their solutions on the sheets after.

(() => {
  const {el} = PQ;
  const root = document.getElementById("print");
  const jobId = root.dataset.jobId;
  const most = Number(root.dataset.printed);
  const PER_SHEET = 6;

  // The rating and band of a graded puzzle ("rating 9.3 · extreme"): a made puzzle's own, or an
  // explained solve's; null when the puzzle has none (another kind, another size, not made yet).
  function grading(p) {
    const r = p.result || {};
    const g = typeof r.rating === "number" ? r : r.explanation || {};
    return typeof g.rating === "number" && g.band ? `rating ${g.rating.toFixed(1)} · ${g.band}` : null;
  }

  // One figure: its number (the puzzle's index) with its rating and band when graded, the board,
  // and a line under it: a solution the board cannot show, or why there is no board or no solution.
  function figure(p, solved) {
    const drawn = Boards.printed(p, solved);
    const made = Boolean(p.options && p.options.generate);
    const note = made && !p.result ? `not made yet (${p.status})`
      : solved && !p.result ? `no solution (${p.status})`
        : drawn ? drawn.line : "no drawing for this kind";
    const graded = grading(p);
    const caption = el("figcaption", {text: `#${p.index}`},
                       graded ? el("span", {className: "grading", text: ` · ${graded}`}) : null);
    return el("figure", {className: "printed", "data-index": p.index}, caption,
              drawn ? drawn.board : null, note ? el("p", {className: "solution-line", text: note}) : null);
  }

  // The figures cut into sheets of PER_SHEET; each sheet a printed page.
  function sheets(items, part, title) {
    const out = [];
    for (let i = 0; i < items.length; i += PER_SHEET) {
      out.push(el("div", {className: "sheet", "data-part": part},
                  el("h3", {className: "sheet-title", text: title}),
                  el("div", {className: "sheet-boards"}, ...items.slice(i, i + PER_SHEET))));
    }
    return out;
  }

  async function load() {
    try {
      const job = await PQ.get(`/api/v1/jobs/${jobId}`);
      const page = await PQ.get(`/api/v1/jobs/${jobId}/puzzles?limit=${most}`);
      const label = job.label ? `${job.label} · ` : "";
      const out = sheets(page.items.map(p => figure(p, false)), "puzzles", `${label}puzzles`);
      if (root.dataset.solutions === "true") {
        out.push(...sheets(page.items.map(p => figure(p, true)), "solutions", `${label}solutions`));
      }
      document.getElementById("sheets").replaceChildren(...out);
      const more = document.getElementById("print-more");
      more.hidden = job.total <= most;
      more.textContent = `The first ${PQ.number(most)} of the job's ${PQ.number(job.total)} puzzles.`;
      root.dataset.status = "ready";
    } catch (err) {
      const error = document.getElementById("print-error");
      error.hidden = false;
      error.textContent = err.status === 404 ? `Job ${jobId} not found (or it belongs to another token).`
        : `Could not read the job: ${err.message}`;
      root.dataset.status = "missing";
    }
  }

  load();
})();
