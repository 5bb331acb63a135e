"use strict";
// Each kind's board as an inline SVG (class "board"; n-Queens' figures past a drawable board are
// text), drawn from a puzzle as the API returns it: {kind, puzzle, options, status, result}.
// Presentation only, keyed by kind name; a kind with no drawing here shows its result as text.

const Boards = (() => {
  const NS = "http://www.w3.org/2000/svg";
  const SYMBOLS = "123456789ABCDEFGHIJKLMNOP";

  function svg(tag, attrs, text) {
    const node = document.createElementNS(NS, tag);
    for (const [name, value] of Object.entries(attrs || {})) node.setAttribute(name, value);
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function board(kind, width, height, label) {
    const root = svg("svg", {class: "board", "data-kind": kind, viewBox: `0 0 ${width} ${height}`,
                             role: "img", "aria-label": label});
    return root;
  }

  // A board with buttons under it to step through `count` steps: show(step) redraws the board for
  // that step and returns the line of text between the buttons.
  function stepper(root, count, show) {
    const wrap = PQ.el("div", {className: "stepper"}, root);
    let step = 0;
    const info = PQ.el("span", {className: "step"});
    const draw = () => { info.textContent = show(step); };
    if (count) {
      const button = (label, title, go) => {
        const b = PQ.el("button", {type: "button", className: "step-button", text: label, title});
        b.addEventListener("click", () => { step = Math.max(0, Math.min(count, go(step))); draw(); });
        return b;
      };
      wrap.append(PQ.el("div", {className: "row"}, button("«", "first", () => 0),
                        button("‹", "previous", i => i - 1), info, button("›", "next", i => i + 1),
                        button("»", "last", () => count)));
    }
    draw();
    return wrap;
  }

  // -- Sudoku: givens in black, the digits found in blue; with an explanation, a stepper through the grader's steps with the candidates left at each one (and a chain's links)

  function sudokuCells(puzzle) {
    if (Array.isArray(puzzle)) return puzzle.flat().map(v => (v ? SYMBOLS[v - 1] : "."));
    return String(puzzle).replace(/\s+/g, "").toUpperCase().split("").map(c => (c === "0" ? "." : c));
  }

  function sudokuGrid(root, n, s) {
    const box = Math.round(Math.sqrt(n));
    for (let i = 0; i <= n; i++) {
      const cls = i % box === 0 ? "grid thick" : "grid";
      root.append(svg("line", {x1: 0, y1: i * s, x2: n * s, y2: i * s, class: cls}));
      root.append(svg("line", {x1: i * s, y1: 0, x2: i * s, y2: n * s, class: cls}));
    }
  }

  function sudoku(p) {
    const givens = sudokuCells(p.puzzle);
    const n = Math.round(Math.sqrt(givens.length));
    const solution = p.result && p.result.solution ? p.result.solution.split("") : null;
    const told = p.result && p.result.explanation;
    if (told && told.steps && n === 9) return sudokuSteps(givens, told);
    const s = 30;
    const root = board("sudoku", n * s, n * s, `${n}x${n} Sudoku`);
    root.append(svg("rect", {x: 0, y: 0, width: n * s, height: n * s, class: "paper"}));
    for (let i = 0; i < n * n; i++) {
      const r = Math.floor(i / n), c = i % n;
      const given = givens[i] !== ".";
      const symbol = given ? givens[i] : (solution ? solution[i] : "");
      if (symbol) {
        root.append(svg("text", {x: c * s + s / 2, y: r * s + s / 2, class: given ? "cell given" : "cell found",
                                 "data-row": r, "data-col": c}, symbol));
      }
    }
    sudokuGrid(root, n, s);
    return root;
  }

  // The position after `count` steps: values (0 blank) and each cell's candidates (a Set), the
  // peers' values and the steps' eliminations removed, as the grader keeps them.
  function position(givens, steps, count) {
    const values = givens.map(c => (c === "." ? 0 : Number(c)));
    const removed = Array.from({length: 81}, () => new Set());
    for (const step of steps.slice(0, count)) {
      for (const [cell, value] of step.placements) values[cell] = value;
      for (const [cell, value] of step.eliminations) removed[cell].add(value);
    }
    const peer = (a, b) => a !== b && (Math.floor(a / 9) === Math.floor(b / 9) || a % 9 === b % 9 ||
      (Math.floor(a / 27) === Math.floor(b / 27) && Math.floor(a % 9 / 3) === Math.floor(b % 9 / 3)));
    const cands = values.map((v, i) => {
      if (v) return new Set();
      const left = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9].filter(d => !removed[i].has(d)));
      values.forEach((w, j) => { if (w && peer(i, j)) left.delete(w); });
      return left;
    });
    return {values, cands};
  }

  function stepText(step, k, total) {
    if (!step) return `step 0 of ${total}`;
    const guess = step.guesses !== undefined ? `, ${step.guesses} guesses, depth ${step.depth}` : "";
    return `step ${k} of ${total}: ${step.technique} (${Number(step.rating).toFixed(1)}${guess})`;
  }

  // A chain's links (a step's [cell, digit, on] nodes in order) over its candidates: a line from
  // each node to the next, solid into a node made true (a strong link), dashed into one made
  // false; each node ringed, shaded when true.
  function chainLinks(root, links, s) {
    const at = ([cell, d]) => [(cell % 9) * s + ((d - 1) % 3 + 0.5) * s / 3,
                               Math.floor(cell / 9) * s + (Math.floor((d - 1) / 3) + 0.5) * s / 3];
    const r = s / 7;
    links.forEach((node, i) => {
      const [x, y] = at(node);
      const next = links[i + 1];
      if (next) {
        const [x2, y2] = at(next);
        const len = Math.hypot(x2 - x, y2 - y) || 1, dx = (x2 - x) / len * r, dy = (y2 - y) / len * r;
        root.append(svg("line", {x1: x + dx, y1: y + dy, x2: x2 - dx, y2: y2 - dy,
                                 class: next[2] ? "link strong" : "link weak"}));
      }
      root.append(svg("circle", {cx: x, cy: y, r, class: node[2] ? "link-node on" : "link-node off",
                                 "data-cell": node[0]}));
    });
  }

  function sudokuSteps(givens, told) {
    const s = 36, steps = told.steps;
    const root = board("sudoku", 9 * s, 9 * s, `9x9 Sudoku, rated ${told.rating} (${told.hardest})`);
    root.classList.add("explained");
    return stepper(root, steps.length, k => {
      // Step k shown on the position before it: its cells marked, what it places and removes.
      const step = k ? steps[k - 1] : null;
      const {values, cands} = position(givens, steps, k ? k - 1 : 0);
      const placed = new Map((step ? step.placements : []).map(([c, v]) => [c, v]));
      const gone = new Set((step ? step.eliminations : []).map(([c, v]) => c * 10 + v));
      const marked = new Set(step ? step.cells : []);
      root.replaceChildren(svg("rect", {x: 0, y: 0, width: 9 * s, height: 9 * s, class: "paper"}));
      for (let i = 0; i < 81; i++) {
        const x = (i % 9) * s, y = Math.floor(i / 9) * s;
        if (marked.has(i)) root.append(svg("rect", {x, y, width: s, height: s, class: "marked", "data-cell": i}));
        if (values[i]) {
          root.append(svg("text", {x: x + s / 2, y: y + s / 2, class: givens[i] !== "." ? "cell given" : "cell found",
                                   "data-cell": i}, String(values[i])));
        } else if (placed.has(i)) {
          root.append(svg("text", {x: x + s / 2, y: y + s / 2, class: "cell placed", "data-cell": i},
                          String(placed.get(i))));
        } else {
          for (const d of cands[i]) {
            const cx = x + ((d - 1) % 3 + 0.5) * s / 3, cy = y + (Math.floor((d - 1) / 3) + 0.5) * s / 3;
            root.append(svg("text", {x: cx, y: cy, class: gone.has(i * 10 + d) ? "cand removed" : "cand",
                                     "data-cell": i}, String(d)));
          }
        }
      }
      sudokuGrid(root, 9, s);
      if (step && step.links) chainLinks(root, step.links, s);
      return stepText(step, k, steps.length);
    });
  }

  // -- n-Queens: the board and its queens (solve, n <= 64), else the figures

  function queensN(puzzle) {
    if (puzzle && typeof puzzle === "object") return Number(puzzle.n);
    return Number(puzzle);
  }

  // Figures as lines of text (not a picture), so that a long line wraps inside its card.
  function figures(kind, lines) {
    return PQ.el("div", {className: "board figures", "data-kind": kind}, ...lines.map(line => PQ.el("p", {text: line})));
  }

  function nqueens(p) {
    const n = queensN(p.puzzle);
    const mode = (p.options && p.options.mode) || "solve";
    const r = p.result || {};
    if (mode === "solve" && n <= 64) {
      const s = Math.max(6, Math.floor(320 / n));
      const root = board("nqueens", n * s, n * s, `${n} queens`);
      for (let row = 0; row < n; row++) {
        for (let col = 0; col < n; col++) {
          root.append(svg("rect", {x: col * s, y: row * s, width: s, height: s,
                                   class: (row + col) % 2 ? "square dark" : "square light"}));
        }
      }
      (r.queens || []).forEach((col, row) => {
        root.append(svg("circle", {cx: col * s + s / 2, cy: row * s + s / 2, r: s * 0.36, class: "queen",
                                   "data-row": row, "data-col": col}));
      });
      return root;
    }
    const lines = [`n = ${n}, ${mode}`];
    if (mode === "count" && r.solutions !== undefined) {
      lines.push(`${PQ.number(r.solutions)} solutions`, `${PQ.number(r.fundamental)} fundamental`);
    } else if (mode === "estimate" && r.estimated_tree_nodes !== undefined) {
      const e = x => Number(x).toPrecision(4);
      lines.push(`tree ≈ ${e(r.estimated_tree_nodes)} nodes`, `  ± ${e(r.tree_std_error)} (std. error)`,
                 `solutions ≈ ${e(r.estimated_solutions)}`, `${PQ.number(r.probes)} probes`);
    } else if (r.queens) {
      lines.push(`${PQ.number(r.queens.length)} queens placed (too many to draw)`,
                 `first rows: ${r.queens.slice(0, 8).join(" ")} …`);
    }
    return figures("nqueens", lines);
  }

  // -- Sliding tiles: the start board, then step through the blank's moves

  function tiles(puzzle) {
    if (Array.isArray(puzzle)) return puzzle.flat().map(Number);
    return String(puzzle).split(/[\s,]+/).filter(Boolean).map(Number);
  }

  const STEP = {U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1]};

  function after(start, k, moves) {
    const b = start.slice();
    let blank = b.indexOf(0);
    for (const m of moves) {
      const [dr, dc] = STEP[m];
      const next = (Math.floor(blank / k) + dr) * k + (blank % k) + dc;
      [b[blank], b[next]] = [b[next], b[blank]];
      blank = next;
    }
    return b;
  }

  function sliding(p) {
    const start = tiles(p.puzzle);
    const k = Math.round(Math.sqrt(start.length));
    const moves = (p.result && p.result.moves) || "";
    const s = 50;
    const root = board("sliding", k * s, k * s, `${k}x${k} sliding tiles`);
    return stepper(root, moves.length, step => {
      root.replaceChildren();
      after(start, k, moves.slice(0, step)).forEach((t, i) => {
        const x = (i % k) * s, y = Math.floor(i / k) * s;
        if (t === 0) return;
        root.append(svg("rect", {x: x + 2, y: y + 2, width: s - 4, height: s - 4, rx: 6, class: "tile"}));
        root.append(svg("text", {x: x + s / 2, y: y + s / 2, class: "tile-number"}, String(t)));
      });
      return moves ? `move ${step} of ${moves.length}` + (step ? ` (${moves[step - 1]})` : "") +
        (p.result.optimal === false ? ", not proved the fewest" : "") : "";
    });
  }

  // -- Spokes: hubs with their clues, and the spokes found

  function spokesGrid(puzzle) {
    const lines = String(puzzle).split("\n").map(l => l.trim()).filter(l => l && !l.startsWith("#"));
    const id = lines.length === 1 && lines[0].match(/^(\d+)x(\d+):(\S*)$/);
    if (id) {
      const w = Number(id[1]);
      const digits = id[3].split("").map(Number);
      return {w, h: Number(id[2]), clues: digits};
    }
    if (lines.length && /^spokes\s+\d+x\d+$/i.test(lines[0])) lines.shift();
    const rows = lines.map(l => l.split(/\s+/).map(t => (t === "." ? 0 : Number(t))));
    return {w: rows.length ? rows[0].length : 0, h: rows.length, clues: rows.flat()};
  }

  function spokes(p) {
    const {w, h, clues} = spokesGrid(p.puzzle);
    const s = 56, m = 24;
    const root = board("spokes", (w - 1) * s + 2 * m, (h - 1) * s + 2 * m, `${w}x${h} Spokes`);
    const at = (r, c) => [m + c * s, m + r * s];
    for (const [r1, c1, r2, c2] of (p.result && p.result.spokes) || []) {
      const [x1, y1] = at(r1, c1), [x2, y2] = at(r2, c2);
      root.append(svg("line", {x1, y1, x2, y2, class: "spoke"}));
    }
    clues.forEach((clue, i) => {
      const [x, y] = at(Math.floor(i / w), i % w);
      if (!clue) {
        root.append(svg("circle", {cx: x, cy: y, r: 2, class: "point"}));
        return;
      }
      root.append(svg("circle", {cx: x, cy: y, r: 14, class: "hub"}));
      root.append(svg("text", {x, y, class: "clue"}, String(clue)));
    });
    return root;
  }

  const DRAW = {sudoku, nqueens, sliding, spokes};

  // A generate job's puzzle as if posted: the puzzle made, its solution in the result field the
  // kind's drawing reads; null while it is not made yet (nothing to draw).
  const POSTED = {
    spokes: r => ({...r, spokes: r.solution}),
    sliding: r => ({...r, moves: r.solution}),
  };

  function asPosted(p) {
    if (!(p.options && p.options.generate)) return p;
    if (!p.result) return null;
    return {...p, puzzle: p.result.puzzle, options: {}, result: (POSTED[p.kind] || (r => r))(p.result)};
  }

  // The board of a puzzle, or null for a kind without a drawing (or an input it cannot read).
  function draw(p) {
    const fn = DRAW[p.kind];
    const posted = asPosted(p);
    if (!fn || !posted) return null;
    try {
      return fn(posted);
    } catch (err) {
      console.warn("cannot draw", p, err);
      return null;
    }
  }

  // -- the printed sheet: a puzzle's board as given (a generate job's made puzzle, else the one
  // posted) and, solved, its solution as the job page draws it; a sliding solution's moves as a
  // line of text under the start board, since paper cannot step through them

  const SOLVED = {
    sudoku: r => ({result: {solution: r.solution}}),  // without an explanation's stepper
    sliding: r => ({result: null, line: r.moves}),
  };

  // {board, line} for the sheet, or null for a puzzle not made yet or a kind without a drawing.
  function printed(p, solved) {
    const posted = asPosted(p);
    if (!posted) return null;
    const shown = solved && posted.result ? (SOLVED[p.kind] || (r => ({result: r})))(posted.result) : {result: null};
    const board = draw({...posted, result: shown.result});
    return board && {board, line: shown.line || ""};
  }

  return {draw, printed};
})();
