"use strict";
// The front page: the submit form (kinds and options from /api/v1/kinds, 422 errors shown
// against their lines), the generate form (a kind's generate options, the same way), and the
// client's jobs with live progress bars.

(() => {
  const {el} = PQ;
  const form = document.getElementById("submit-form");
  const kindSelect = document.getElementById("kind");
  const optionsBox = document.getElementById("options");
  const textarea = document.getElementById("puzzles");
  let kinds = {};

  // A line of text -> the kind's puzzle, as the command line reads it (`puzzle-queue submit --kind`).
  const LINE_FORMS = {
    spokes: text => (text.includes("/")
      ? text.split("/").map(r => (r.trim().includes(" ") ? r.trim() : r.trim().split("").join(" "))).join("\n")
      : text),
    nqueens: text => (/^\d+$/.test(text) ? {n: Number(text)} : text),
  };
  // ... and back, for the example.
  function asLine(kind, puzzle) {
    if (kind === "spokes" && typeof puzzle === "string") return puzzle.split("\n").join("/");
    if (kind === "nqueens" && puzzle && typeof puzzle === "object") return String(puzzle.n);
    return typeof puzzle === "string" ? puzzle : JSON.stringify(puzzle);
  }

  // An option's control: a select for choices (and, in the submit form, a boolean, so that blank
  // keeps the default), a checkbox for a generate form's boolean, a number input with its bounds.
  function optionField(name, spec, prefix = "option") {
    const id = `${prefix}-${name}`;
    let input;
    if (spec.type === "bool" && prefix === "generate") {
      input = el("input", {id, name, type: "checkbox", checked: spec.default === true});
    } else if (spec.choices || spec.type === "bool") {
      const choices = spec.choices || [true, false];
      input = el("select", {id, name}, el("option", {value: "", text: spec.default === null ? "default (automatic)"
                                                           : `default (${JSON.stringify(spec.default)})`}),
                 ...choices.map(c => el("option", {value: JSON.stringify(c), text: String(c)})));
    } else {
      const numeric = spec.type === "int" || spec.type === "float";
      input = el("input", {id, name, type: numeric ? "number" : "text", step: spec.type === "float" ? "any" : "1",
                           min: spec.minimum, max: spec.maximum,
                           placeholder: spec.default === null ? "automatic" : String(spec.default)});
    }
    input.dataset.type = spec.type;
    return el("label", {title: spec.doc}, `${name} `, input);
  }

  function showKind() {
    const kind = kinds[kindSelect.value];
    document.getElementById("kind-input").textContent = kind ? `Input: ${kind.input}` : "";
    optionsBox.replaceChildren(el("legend", {text: "Options (blank = the default)"}),
                               ...Object.entries(kind ? kind.options : {}).map(([n, s]) => optionField(n, s)));
  }

  function options(box) {
    const out = {};
    for (const input of box.querySelectorAll("input, select")) {
      if (input.type === "checkbox") out[input.name] = input.checked;
      else if (input.value === "") continue;
      else if (input.tagName === "SELECT") out[input.name] = JSON.parse(input.value);
      else out[input.name] = input.dataset.type === "int" || input.dataset.type === "float"
        ? Number(input.value) : input.value;
    }
    return out;
  }

  // A refusal's title; a cap on predicted cost that the form's box would lift says so.
  const refusal = (err, box) => `Refused (${err.status}): ${err.message}${PQ.capHint(err, box, "send them")}`;

  function showErrors(title, errors, lineOf) {
    const box = document.getElementById("submit-errors");
    box.hidden = false;
    document.getElementById("submit-error-title").textContent = title;
    document.getElementById("line-errors").replaceChildren(...errors.map(e => {
      const line = e.index === null || e.index === undefined ? null : lineOf[e.index];
      const where = line ? `line ${line}: ` : "";
      return el("li", {className: "line-error", "data-line": line, text: `${where}${e.field}: ${e.message}`});
    }));
  }

  form.addEventListener("submit", async event => {
    event.preventDefault();
    document.getElementById("submit-errors").hidden = true;
    const kind = kindSelect.value, opts = options(optionsBox), lineOf = [], puzzles = [];
    textarea.value.split("\n").forEach((raw, i) => {
      const text = raw.trim();
      if (!text || text.startsWith("#")) return;
      lineOf.push(i + 1);
      const item = {kind, puzzle: (LINE_FORMS[kind] || (t => t))(text)};
      if (Object.keys(opts).length) item.options = opts;
      puzzles.push(item);
    });
    if (!puzzles.length) {
      showErrors("Paste at least one puzzle, one per line.", [], lineOf);
      return;
    }
    const body = {puzzles};
    const label = document.getElementById("label").value.trim();
    if (label) body.label = label;
    if (document.getElementById("accept-cost").checked) body.accept_cost = true;
    try {
      const job = await PQ.post("/api/v1/jobs", body);
      location.href = `/jobs/${job.id}`;
    } catch (err) {
      showErrors(refusal(err, "accept-cost"), err.problem.errors || [], lineOf);
    }
  });

  document.getElementById("example-button").addEventListener("click", () => {
    const kind = kinds[kindSelect.value];
    if (kind) textarea.value = asLine(kind.kind, kind.example.puzzle) + "\n";
  });

  // -- the generate form: a kind with `generate`, its options, a count; one generate item

  const generateForm = document.getElementById("generate-form");
  const generateKind = document.getElementById("generate-kind");
  const generateBox = document.getElementById("generate-options");

  function showGenerateKind() {
    const kind = kinds[generateKind.value];
    generateBox.replaceChildren(el("legend", {text: "Generate options (blank = the default)"}),
      ...Object.entries(kind ? kind.generate.options : {}).map(([n, s]) => optionField(n, s, "generate")));
  }

  generateForm.addEventListener("submit", async event => {
    event.preventDefault();
    const box = document.getElementById("generate-errors");
    box.hidden = true;
    const generate = {count: Number(document.getElementById("generate-count").value), ...options(generateBox)};
    const body = {puzzles: [{kind: generateKind.value, generate}]};
    const label = document.getElementById("generate-label").value.trim();
    if (label) body.label = label;
    if (document.getElementById("generate-accept-cost").checked) body.accept_cost = true;
    try {
      const job = await PQ.post("/api/v1/jobs", body);
      location.href = `/jobs/${job.id}`;
    } catch (err) {
      box.hidden = false;
      document.getElementById("generate-error-title").textContent = refusal(err, "generate-accept-cost");
      document.getElementById("generate-messages").replaceChildren(...(err.problem.errors || []).map(
        e => el("li", {className: "line-error", text: `${e.field}: ${e.message}`})));
    }
  });

  function jobRow(job) {
    const percent = (100 * job.progress).toFixed(1);
    const done = el("div");
    done.style.width = `${percent}%`;  // a style property, which the page's CSP allows (an attribute it does not)
    return el("tr", {"data-job-id": job.id, "data-status": job.status},
      el("td", {}, el("a", {href: `/jobs/${job.id}`}, el("code", {text: job.id.slice(0, 12)}))),
      el("td", {text: job.label || ""}),
      el("td", {className: `status ${job.status}`, text: job.status}),
      el("td", {}, el("div", {className: "bar"}, done),
         el("span", {className: "percent", text: `${percent}% of ${PQ.number(job.total)}`})),
      el("td", {className: "counts", text: PQ.counts(job)}),
      el("td", {text: new Date(job.created_at).toLocaleString()}));
  }

  // -- the list, its filter, and one action on every job the filter matches (POST /api/v1/bulk)

  const statusFilter = document.getElementById("filter-status");
  const labelFilter = document.getElementById("filter-label");
  const bulkAction = document.getElementById("bulk-action");
  const bulkConfirm = document.getElementById("bulk-confirm");
  const bulkResult = document.getElementById("bulk-result");
  const PAST = {cancel: "cancelled", retry: "retried", delete: "deleted"};
  let refreshTimer = null;

  function filter() {
    const query = {};
    if (statusFilter.value) query.status = statusFilter.value;
    if (labelFilter.value.trim()) query.label = labelFilter.value.trim();
    return query;
  }

  function describeFilter(query) {
    const parts = [query.status && `in status ${query.status}`, query.label && `labelled "…${query.label}…"`];
    return parts.filter(Boolean).join(", ") || "of yours, whatever their status or label";
  }

  document.getElementById("bulk-button").addEventListener("click", () => {
    document.getElementById("bulk-question").textContent =
      `${bulkAction.value} every job ${describeFilter(filter())}?`;
    bulkConfirm.hidden = false;
  });
  document.getElementById("bulk-no").addEventListener("click", () => { bulkConfirm.hidden = true; });
  document.getElementById("bulk-yes").addEventListener("click", async () => {
    bulkConfirm.hidden = true;
    try {
      const out = await PQ.post("/api/v1/bulk", {action: bulkAction.value, limit: 1000, ...filter()});
      const left = out.skipped.map(s => `${s.id.slice(0, 12)}: ${s.reason}`);
      bulkResult.textContent = `${PQ.number(out.done.length)} job(s) ${PAST[out.action]}` +
        (left.length ? `; left: ${left.join("; ")}` : "") + (out.more ? "; more match: apply again" : "");
    } catch (err) {
      bulkResult.textContent = `not done: ${err.message}`;
    }
    bulkResult.hidden = false;
    refreshJobs();
  });
  statusFilter.addEventListener("change", () => refreshJobs());
  labelFilter.addEventListener("input", () => refreshJobs());

  async function refreshJobs() {
    clearTimeout(refreshTimer);
    let busy = false;
    try {
      const page = await PQ.get(`/api/v1/jobs?${new URLSearchParams({limit: 50, ...filter()})}`);
      document.querySelector("#jobs tbody").replaceChildren(...page.items.map(jobRow));
      document.getElementById("no-jobs").hidden = page.items.length > 0;
      busy = page.items.some(j => !PQ.FINAL.includes(j.status));
    } catch (err) {
      console.warn("jobs", err);
    }
    refreshTimer = setTimeout(refreshJobs, busy ? 1000 : 5000);
  }

  (async () => {
    const list = (await PQ.getPublic("/api/v1/kinds")).items;
    kinds = Object.fromEntries(list.map(k => [k.kind, k]));
    kindSelect.replaceChildren(...list.map(k => el("option", {value: k.kind, text: k.kind, title: k.summary})));
    kindSelect.addEventListener("change", showKind);
    showKind();
    generateKind.replaceChildren(...list.filter(k => k.generate).map(
      k => el("option", {value: k.kind, text: k.kind, title: k.summary})));
    generateKind.addEventListener("change", showGenerateKind);
    showGenerateKind();
  })();
  refreshJobs();
})();
