// The board as SVG, drawn as internal/boardsvg draws it: Italian
// orientation (RULES.md, Board: h1 a dark square, Red at the bottom),
// 50-unit squares in a 20-unit margin, ranks told apart by a mark (a Dama
// carries D, a Damone M in a ring, a Pedine nothing), so no colour is
// needed. It draws and reports clicks; it knows no rules.

const NS = "http://www.w3.org/2000/svg";
const MARGIN = 20, CELL = 50, EXTENT = 2 * MARGIN + 8 * CELL;
const FILES = "abcdefgh";
export const SIDE_NAME = { SIDE_RED: "Red", SIDE_BLACK: "Black" };
export const RANK_NAME = { RANK_PEDINE: "Pedine", RANK_DAMA: "Dama", RANK_DAMONE: "Damone" };

function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

// A square's name from its file (0..7) and row (0..7): "a1".."h8".
export const squareName = (file, row) => FILES[file] + (row + 1);
const fileOf = (sq) => FILES.indexOf(sq[0]);
const rowOf = (sq) => Number(sq.slice(1)) - 1;
// Dark squares are the playable ones: h1 (file 7, row 0) is dark.
const isDark = (file, row) => (file + row) % 2 === 1;

export class Board {
  // onPick(square) is called for a click, or Enter/Space on the cursor.
  constructor(parent, onPick) {
    this.onPick = onPick;
    this.flipped = false;
    this.pieces = new Map();
    this.marks = { last: null, selected: null, targets: [] };
    this.cursor = "h1";
    this.svg = el("svg", {
      class: "board", viewBox: `0 0 ${EXTENT} ${EXTENT}`, role: "grid", tabindex: "0",
      "aria-label": "Board", "aria-describedby": "board-hint",
    });
    parent.replaceChildren(this.svg);
    // A square is picked on the press, not the click: the board may be
    // redrawn between press and release (an event arrives), and a click
    // then belongs to no square. A click without a press (detail 0) is an
    // assistive technology's activation.
    const pickAt = (e) => {
      const g = e.target.closest("[data-square]");
      if (g) { this.cursor = g.dataset.square; this.onPick(g.dataset.square); }
    };
    this.svg.addEventListener("pointerdown", (e) => { if (e.button === 0) pickAt(e); });
    this.svg.addEventListener("click", (e) => { if (e.detail === 0) pickAt(e); });
    this.svg.addEventListener("keydown", (e) => this.key(e));
  }

  // set takes the pieces as the API gives them: [{square, side, rank}].
  set(pieces) {
    this.pieces = new Map(pieces.map((p) => [p.square, p]));
    this.draw();
  }

  // mark: last = the last move ({origin, landing_squares, captured_pieces})
  // or null; selected = a square or null; targets = squares to offer.
  mark(marks) {
    Object.assign(this.marks, marks);
    this.draw();
  }

  flip(on) { this.flipped = on; this.draw(); }

  corner(sq) {
    let col = fileOf(sq), line = 7 - rowOf(sq);
    if (this.flipped) { col = 7 - col; line = 7 - line; }
    return [MARGIN + col * CELL, MARGIN + line * CELL];
  }

  label(sq) {
    const p = this.pieces.get(sq);
    let s = sq + (p ? `, ${SIDE_NAME[p.side]} ${RANK_NAME[p.rank]}` : ", empty");
    const m = this.marks;
    if (m.selected === sq) s += ", selected";
    if (m.targets.includes(sq)) s += ", legal destination";
    if (m.last) {
      if (m.last.origin === sq) s += ", last move from here";
      if ((m.last.landing_squares || []).includes(sq)) s += ", last move landed here";
      if ((m.last.captured_pieces || []).some((c) => c.square === sq)) s += ", captured by the last move";
    }
    return s;
  }

  draw() {
    const svg = this.svg;
    svg.replaceChildren();
    el("rect", { class: "frame", x: 0, y: 0, width: EXTENT, height: EXTENT }, svg);
    // One row per rank line, top to bottom as seen, for the grid role.
    for (let line = 0; line < 8; line++) {
      const rowG = el("g", { role: "row" }, svg);
      for (let col = 0; col < 8; col++) {
        const file = this.flipped ? 7 - col : col;
        const row = this.flipped ? line : 7 - line;
        this.drawSquare(rowG, squareName(file, row));
      }
    }
    const coords = el("g", { "aria-hidden": "true" }, svg);
    for (let col = 0; col < 8; col++) {
      const t = el("text", { class: "coord", x: MARGIN + col * CELL + CELL / 2, y: EXTENT - 5 }, coords);
      t.textContent = FILES[this.flipped ? 7 - col : col];
    }
    for (let line = 0; line < 8; line++) {
      const t = el("text", { class: "coord", x: MARGIN / 2, y: MARGIN + line * CELL + CELL / 2 + 5 }, coords);
      t.textContent = String(this.flipped ? line + 1 : 8 - line);
    }
    svg.setAttribute("aria-activedescendant", "sq-" + this.cursor);
  }

  drawSquare(parent, sq) {
    const [x, y] = this.corner(sq);
    const file = fileOf(sq), row = rowOf(sq);
    const g = el("g", {
      class: "sq", id: "sq-" + sq, "data-square": sq, role: "gridcell", "aria-label": this.label(sq),
      "aria-selected": String(this.marks.selected === sq),
    }, parent);
    el("rect", { class: isDark(file, row) ? "dark" : "light", x, y, width: CELL, height: CELL }, g);
    const m = this.marks;
    if (m.last && (m.last.origin === sq || (m.last.landing_squares || []).includes(sq))) {
      el("rect", { class: "last", x, y, width: CELL, height: CELL }, g);
    }
    const p = this.pieces.get(sq);
    if (p) {
      const side = p.side === "SIDE_RED" ? "red" : "black";
      const pg = el("g", { class: `piece ${side}`, "data-side": p.side, "data-rank": p.rank, "aria-hidden": "true" }, g);
      const cx = x + CELL / 2, cy = y + CELL / 2;
      el("circle", { class: "disc", cx, cy, r: 20 }, pg);
      if (p.rank === "RANK_DAMA") {
        const t = el("text", { x: cx, y: cy + 8, "font-size": 22 }, pg);
        t.textContent = "D";
      } else if (p.rank === "RANK_DAMONE") {
        el("circle", { class: "ring", cx, cy, r: 15 }, pg);
        const t = el("text", { x: cx, y: cy + 6, "font-size": 18 }, pg);
        t.textContent = "M";
      }
    }
    if (m.last && (m.last.captured_pieces || []).some((c) => c.square === sq)) {
      const cg = el("g", { class: "captured" }, g);
      el("line", { x1: x + 10, y1: y + 10, x2: x + CELL - 10, y2: y + CELL - 10 }, cg);
      el("line", { x1: x + CELL - 10, y1: y + 10, x2: x + 10, y2: y + CELL - 10 }, cg);
    }
    if (m.selected === sq) el("rect", { class: "selected", x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4 }, g);
    if (m.targets.includes(sq)) el("circle", { class: "target", cx: x + CELL / 2, cy: y + CELL / 2, r: 8 }, g);
    // Shown only while the board has the keyboard's focus (style.css).
    if (this.cursor === sq) el("rect", { class: "cursor", x: x + 4, y: y + 4, width: CELL - 8, height: CELL - 8 }, g);
  }

  key(e) {
    const moves = { ArrowUp: [0, 1], ArrowDown: [0, -1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    if (e.key in moves) {
      let [df, dr] = moves[e.key];
      if (this.flipped) { df = -df; dr = -dr; }
      const f = Math.min(7, Math.max(0, fileOf(this.cursor) + df));
      const r = Math.min(7, Math.max(0, rowOf(this.cursor) + dr));
      this.cursor = squareName(f, r);
      this.draw();
    } else if (e.key === "Enter" || e.key === " ") {
      this.onPick(this.cursor);
    } else if (e.key === "Escape") {
      this.onPick(null);
    } else {
      return;
    }
    e.preventDefault();
  }
}
