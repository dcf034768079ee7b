// The tablebase panel: the endgame tables' verdict on the shown position
// (TablebaseService.ProbePosition, docs/api.md) and every move grouped by
// what it leads to, for the side to move. Hidden when the position is not
// in the tables; a quiet note while the server is still building them.

import { api, ApiError } from "./api.js";

// What each category means for the side it is given for.
const CATEGORY_TEXT = {
  TABLEBASE_CATEGORY_WIN: "win",
  TABLEBASE_CATEGORY_CURSED_WIN: "cursed win (a win, but drawn by the no-progress rule)",
  TABLEBASE_CATEGORY_DRAW: "draw",
  TABLEBASE_CATEGORY_BLESSED_LOSS: "blessed loss (a loss, but drawn by the no-progress rule)",
  TABLEBASE_CATEGORY_LOSS: "loss",
  TABLEBASE_CATEGORY_UNKNOWN: "unknown at this no-progress limit",
};

// A move's category is the position's after it, for the opponent: this is
// what it is for the side that plays it, and its group.
const FOR_MOVER = {
  TABLEBASE_CATEGORY_LOSS: ["winning", "win"],
  TABLEBASE_CATEGORY_BLESSED_LOSS: ["drawing", "cursed win"],
  TABLEBASE_CATEGORY_DRAW: ["drawing", "draw"],
  TABLEBASE_CATEGORY_UNKNOWN: ["drawing", "unknown"],
  TABLEBASE_CATEGORY_CURSED_WIN: ["drawing", "blessed loss"],
  TABLEBASE_CATEGORY_WIN: ["losing", "loss"],
};

const GROUPS = [["winning", "Winning"], ["drawing", "Drawing"], ["losing", "Losing"]];

// verdictText: "win, capture or promotion in 13; no-progress 23/80".
export function verdictText(answer, counter, limit) {
  const cat = answer.category || "TABLEBASE_CATEGORY_UNKNOWN";
  let text = CATEGORY_TEXT[cat] || cat;
  if (answer.dtc !== undefined && answer.dtc !== null) {
    const d = Number(answer.dtc);
    text += d === 0 ? ", the game is over" : `, capture or promotion in ${d}`;
  }
  text += limit ? `; no-progress ${counter}/${limit}` : "; no-progress rule off";
  return text;
}

// moveBadge: what a move's row says after its notation.
function moveBadge(m) {
  const hasDtc = m.dtc !== undefined && m.dtc !== null;
  if (hasDtc && Number(m.dtc) === 0) return "ends the game";
  const parts = [];
  if (m.conversion) parts.push("capture or promotion");
  if (hasDtc) parts.push(`DTC ${Number(m.dtc)}`);
  return parts.join(", ");
}

export class TablebasePanel {
  // play(notation) plays a move; canPlay() tells whether the page may.
  constructor(root, play, canPlay) {
    this.root = root;
    this.play = play;
    this.canPlay = canPlay;
    this.text = null; // the position the panel shows or is fetching
    this.retry = null;
    // Most pieces the server's tables hold, as far as known: at most 5 in
    // any set, then what a refusal's max_pieces says. Positions with more
    // are not asked about.
    this.maxPieces = 5;
  }

  // show fetches the verdict on position (a Position message) under the
  // game's variant, unless it is already shown.
  async show(position, variant) {
    if (this.text === position.text && !this.stale) return;
    this.text = position.text;
    this.stale = false;
    clearTimeout(this.retry);
    if ((position.pieces || []).length > this.maxPieces) {
      this.hide();
      return;
    }
    const v = variant || {};
    const limit = v.no_progress_limit === undefined ? 80 : Number(v.no_progress_limit);
    const counter = Number(position.text.split(":").pop()) || 0;
    let answer;
    try {
      answer = await api.probe(position.text, v);
    } catch (e) {
      if (this.text !== position.text) return;
      if (e instanceof ApiError && e.reason === "TABLEBASE_LOADING") {
        this.note("The endgame tables are still being built on the server; they answer here once ready.");
        this.stale = true;
        this.retry = setTimeout(() => this.show(position, variant), 5000);
        return;
      }
      // Not in the tables (too many pieces, no tables served, or none for
      // this game's win condition), or the server could not answer:
      // nothing to show. A page holds one game, so one variant.
      if (e instanceof ApiError && e.reason === "NOT_IN_TABLEBASE" && e.metadata.max_pieces !== undefined) {
        this.maxPieces = Math.min(this.maxPieces, Number(e.metadata.max_pieces));
      }
      this.hide();
      return;
    }
    if (this.text !== position.text) return;
    this.render(answer, counter, limit);
  }

  // close hides the panel for good (the game is over): an answer still on
  // its way for the last position shown is dropped, not rendered.
  close() {
    this.text = null;
    this.stale = false;
    clearTimeout(this.retry);
    this.hide();
  }

  hide() {
    this.root.hidden = true;
    this.root.querySelector(".tb-verdict").textContent = "";
    this.root.querySelector(".tb-moves").replaceChildren();
  }

  note(text) {
    this.root.hidden = false;
    const p = this.root.querySelector(".tb-verdict");
    p.textContent = text;
    p.className = "tb-verdict tb-note";
    this.root.querySelector(".tb-moves").replaceChildren();
  }

  render(answer, counter, limit) {
    this.root.hidden = false;
    const p = this.root.querySelector(".tb-verdict");
    p.className = "tb-verdict";
    p.dataset.category = answer.category || "";
    p.textContent = verdictText(answer, counter, limit);
    const byGroup = { winning: [], drawing: [], losing: [] };
    for (const m of answer.moves || []) {
      const [group, forMover] = FOR_MOVER[m.category] || ["drawing", "unknown"];
      byGroup[group].push({ m, forMover });
    }
    const playable = this.canPlay();
    const out = [];
    for (const [key, title] of GROUPS) {
      const rows = byGroup[key];
      if (!rows.length) continue;
      const h = document.createElement("h3");
      h.textContent = title;
      const ul = document.createElement("ul");
      ul.className = `tb-group tb-${key}`;
      ul.setAttribute("aria-label", `${title} moves`);
      for (const { m, forMover } of rows) {
        const li = document.createElement("li");
        li.dataset.move = m.notation;
        const badge = moveBadge(m);
        const label = `${m.notation}: ${forMover}${badge ? ", " + badge : ""}`;
        let el;
        if (playable) {
          el = document.createElement("button");
          el.type = "button";
          el.addEventListener("click", () => this.play(m.notation));
          el.setAttribute("aria-label", `Play ${label}`);
        } else {
          el = document.createElement("span");
        }
        el.className = "tb-move";
        el.textContent = m.notation;
        li.appendChild(el);
        if (badge) {
          const b = document.createElement("span");
          b.className = "tb-badge";
          b.textContent = badge;
          li.appendChild(b);
        }
        ul.appendChild(li);
      }
      out.push(h, ul);
    }
    this.root.querySelector(".tb-moves").replaceChildren(...out);
  }
}
