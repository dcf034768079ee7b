// The page: a new game and watching by name at "/", a game at
// "/games/{id}". Every rule comes from the server (docs/web.md): legal
// moves from ListLegalMoves, the judging of a move from MakeMove, the
// game's course from WatchGame's events.

import { api, stream, requestId, ApiError, NetworkError } from "./api.js";
import { Board, SIDE_NAME, RANK_NAME } from "./board.js";
import { TablebasePanel } from "./tablebase.js";

const $ = (id) => document.getElementById(id);

const REASONS = {
  OUTCOME_REASON_ALL_PIECES_CAPTURED: "all pieces captured",
  OUTCOME_REASON_STALEMATE: "no legal move (the blocked side loses)",
  OUTCOME_REASON_ALL_DAMONES_CAPTURED: "all Damones captured",
  OUTCOME_REASON_REPETITION: "third repetition",
  OUTCOME_REASON_NO_PROGRESS: "no progress",
  OUTCOME_REASON_RESIGNATION: "resignation",
  OUTCOME_REASON_AGREED_DRAW: "agreed draw",
  OUTCOME_REASON_TIMEOUT: "timeout",
  OUTCOME_REASON_ABORTED: "abort (a first move never came in time)",
};
const RESULTS = {
  OUTCOME_RESULT_RED_WINS: "Red wins",
  OUTCOME_RESULT_BLACK_WINS: "Black wins",
  OUTCOME_RESULT_DRAW: "Draw",
  OUTCOME_RESULT_NO_RESULT: "No result",
};
const other = (side) => (side === "SIDE_RED" ? "SIDE_BLACK" : "SIDE_RED");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function announce(text) {
  // Cleared first so that the same words twice are read twice.
  const live = $("announce");
  live.textContent = "";
  setTimeout(() => { live.textContent = text; }, 50);
}

function describeError(e) {
  if (e instanceof ApiError) return e.message + (e.reason ? ` (${e.reason})` : "");
  if (e instanceof NetworkError) return "The server cannot be reached: " + e.message;
  return String(e && e.message ? e.message : e);
}

// ---- "/": a new game, or watch one by name.

function home() {
  $("home").hidden = false;
  document.title = "damone: new game";
  const engineOpts = $("engine-options");
  const syncOpponent = () => {
    engineOpts.disabled = document.querySelector("input[name=opponent]:checked").value !== "engine";
  };
  for (const r of document.querySelectorAll("input[name=opponent]")) r.addEventListener("change", syncOpponent);
  syncOpponent();

  $("new-game").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    $("home-error").textContent = "";
    const game = {};
    const start = $("start-position").value.trim();
    if (start) game.variant = { start_position: { text: start } };
    const vsEngine = document.querySelector("input[name=opponent]:checked").value === "engine";
    const clock = $("time-control").value;
    if (clock) {
      const [kind, a, b] = clock.split(":");
      game.time_control = kind === "per_move" ? { per_move: a } : { initial: a, increment: b };
    }
    if (vsEngine) {
      const [kind, value] = $("engine-strength").value.split(":");
      game.engine_opponent = { side: $("engine-side").value, [kind]: kind === "depth" ? Number(value) : value };
    }
    $("create").disabled = true;
    try {
      const resp = await api.createGame(game);
      const path = "/" + resp.game.name;
      if (vsEngine) {
        const mine = resp.red_token ? `#red=${resp.red_token}` : `#black=${resp.black_token}`;
        location.assign(path + mine);
        return;
      }
      const abs = (p) => new URL(p, location.href).href;
      for (const [id, href] of [["red-link", `${path}#red=${resp.red_token}`],
        ["black-link", `${path}#black=${resp.black_token}`], ["watch-link", path]]) {
        $(id).href = href;
        $(id).textContent = abs(href);
      }
      $("links").hidden = false;
      $("red-link").focus();
    } catch (e) {
      $("home-error").textContent = describeError(e);
    } finally {
      $("create").disabled = false;
    }
  });

  $("watch-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    let name = $("watch-name").value.trim();
    const m = name.match(/games\/([^/?#\s]+)/);
    const id = m ? m[1] : name;
    if (!GAME_ID.test(id)) {
      $("home-error").textContent = "A game name is games/ID, e.g. games/k3v9q2m7x1 (or the game's page address).";
      return;
    }
    location.assign("/games/" + id);
  });
}

// ---- "/games/{id}": watch, play, analyse.

class GamePage {
  constructor(id) {
    this.name = "games/" + id;
    const frag = new URLSearchParams(location.hash.slice(1));
    this.side = frag.has("red") ? "SIDE_RED" : frag.has("black") ? "SIDE_BLACK" : null;
    this.token = this.side ? frag.get(this.side === "SIDE_RED" ? "red" : "black") : null;
    this.game = null;
    this.moves = [];
    this.lastSeq = 0;
    this.legal = null; // {text, moves} for the shown position, when it is ours to move
    this.sel = null; // {origin, path, ending}
    this.analysis = null;
    this.board = new Board($("board-wrap"), (sq) => this.pick(sq));
    this.tablebase = new TablebasePanel($("tablebase"), (m) => { if (this.myTurn()) this.play(m); }, () => this.myTurn());
    this.board.flip(this.side === "SIDE_BLACK");
  }

  async start() {
    $("game").hidden = false;
    $("game-title").textContent = `Game ${this.name}`;
    document.title = `damone: ${this.name}`;
    $("flip").addEventListener("click", () => this.board.flip(!this.board.flipped));
    $("move-form").addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = $("move-input").value.trim();
      if (text && this.game) this.play(text);
    });
    $("resign").addEventListener("click", () => {
      // A second click within 4 s confirms: resigning cannot be undone.
      const b = $("resign");
      if (!this.resignArmed) {
        this.resignArmed = true;
        b.textContent = "Click again to resign";
        setTimeout(() => { this.resignArmed = false; b.textContent = "Resign"; }, 4000);
        return;
      }
      this.resignArmed = false;
      b.textContent = "Resign";
      this.act(() => api.resign(this.name, this.token));
    });
    $("offer-draw").addEventListener("click", () => this.act(() => api.offerDraw(this.name, this.token), "Draw offered."));
    $("accept-draw").addEventListener("click", () => this.act(() => api.answerDraw(this.name, this.token, true)));
    $("decline-draw").addEventListener("click", () => this.act(() => api.answerDraw(this.name, this.token, false)));
    $("analyse").addEventListener("click", () => { if (this.game) this.analyse(); });
    $("stop-analysis").addEventListener("click", () => this.stopAnalysis());
    for (;;) {
      try {
        this.snapshot(await api.getGame(this.name));
        break;
      } catch (e) {
        if (e instanceof ApiError && !retryable(e)) {
          this.setConn("ended", "not followed");
          $("message").textContent = describeError(e);
          return;
        }
        this.setConn("reconnecting", "reconnecting…");
        await sleep(1000);
      }
    }
    this.follow();
  }

  snapshot(game) {
    this.game = game;
    this.moves = game.moves || [];
    this.lastSeq = Number(game.last_event_sequence);
    $("moves").replaceChildren();
    if (game.initial_position && game.initial_position.side_to_move === "SIDE_BLACK") {
      // Red's column stays Red's when Black moves first.
      const li = document.createElement("li");
      li.textContent = "…";
      li.className = "skip";
      li.setAttribute("aria-hidden", "true");
      $("moves").appendChild(li);
    }
    this.moves.forEach((m, i) => this.addMoveItem(m, i + 1));
    this.render();
  }

  setConn(state, text) {
    const c = $("conn");
    c.dataset.state = state;
    c.textContent = text;
  }

  // follow reads WatchGame from the last sequence seen, and on a dropped
  // stream resumes from there: the server replays what was missed, and an
  // event already seen is skipped, so nothing is lost or shown twice.
  async follow() {
    let delay = 250;
    while (this.game.status !== "GAME_STATUS_FINISHED") {
      try {
        if (this.reconnecting) {
          // The watch's headers come with its first event: a GetGame
          // tells that the server is back while the game is quiet.
          await api.getGame(this.name, "GAME_VIEW_BASIC");
          this.reconnecting = false;
        }
        this.setConn("live", "live");
        await stream("GET", `/v1/${this.name}:watch?since_sequence=${this.lastSeq}`, undefined, undefined,
          (ev) => this.onEvent(ev));
        delay = 250;
      } catch (e) {
        if (e instanceof ApiError && !retryable(e)) {
          this.setConn("ended", "not followed");
          $("message").textContent = describeError(e);
          return;
        }
        if (e instanceof SyntaxError) throw e;
      }
      if (this.game.status === "GAME_STATUS_FINISHED") break;
      this.reconnecting = true;
      this.setConn("reconnecting", "reconnecting…");
      await sleep(delay);
      delay = Math.min(delay * 2, 4000);
    }
    this.setConn("ended", "game over");
  }

  onEvent(ev) {
    const seq = Number(ev.sequence);
    if (seq <= this.lastSeq) return; // seen already
    if (seq !== this.lastSeq + 1) throw new NetworkError(`event ${seq} after ${this.lastSeq}`);
    this.lastSeq = seq;
    const g = this.game;
    g.position = ev.position;
    g.ply = ev.ply || 0;
    g.last_event_sequence = ev.sequence;
    if (ev.clock) g.clock = ev.clock;
    if (ev.move_played) {
      const m = ev.move_played.move;
      this.moves.push(m);
      this.addMoveItem(m, g.ply);
      g.draw_offer = undefined;
      announce(`${SIDE_NAME[m.side]} played ${m.notation}.`);
    } else if (ev.draw_offered) {
      g.draw_offer = ev.draw_offered.side;
      announce(`${SIDE_NAME[ev.draw_offered.side]} offers a draw.`);
    } else if (ev.draw_declined) {
      g.draw_offer = undefined;
      announce(`${SIDE_NAME[ev.draw_declined.side]} declined the draw.`);
    } else if (ev.game_ended) {
      g.status = "GAME_STATUS_FINISHED";
      g.outcome = ev.game_ended.outcome;
      g.draw_offer = undefined;
      announce(`Game over: ${outcomeText(g.outcome)}.`);
    }
    this.render();
  }

  addMoveItem(m, ply) {
    const li = document.createElement("li");
    li.textContent = m.notation;
    li.dataset.ply = String(ply);
    li.value = ply;
    li.className = m.side === "SIDE_RED" ? "red" : "black";
    li.setAttribute("aria-label", `${ply}. ${SIDE_NAME[m.side]} ${m.notation}`);
    $("moves").appendChild(li);
  }

  myTurn() {
    const g = this.game;
    return this.side && g.status !== "GAME_STATUS_FINISHED" && g.position.side_to_move === this.side;
  }

  render() {
    const g = this.game;
    const pos = g.position;
    this.board.set(pos.pieces || []);
    const last = this.moves[this.moves.length - 1] || null;
    if (this.sel && this.sel.text !== pos.text) this.sel = null;
    this.board.mark({ last, ...this.selectionMarks() });

    let status;
    const engine = g.engine_opponent;
    if (g.status === "GAME_STATUS_FINISHED") {
      status = `Game over: ${outcomeText(g.outcome)}.`;
    } else {
      const stm = pos.side_to_move;
      status = `${SIDE_NAME[stm]} to move (ply ${g.ply || 0}).`;
      if (engine && engine.side === stm) status += " The engine is thinking…";
      else if (stm === this.side) status += " Your move.";
    }
    $("status").textContent = status;
    $("captured").textContent = capturedText(this.moves);
    this.renderClocks();

    const playing = this.side && g.status !== "GAME_STATUS_FINISHED";
    $("actions").hidden = !playing;
    $("move-form").hidden = !playing;
    $("board-hint").hidden = !playing;
    const offeredToMe = playing && g.draw_offer && g.draw_offer !== this.side;
    $("draw-answer").hidden = !offeredToMe;
    if (offeredToMe) $("draw-text").textContent = `${SIDE_NAME[g.draw_offer]} offers a draw.`;
    const pending = g.status !== "GAME_STATUS_FINISHED" && g.draw_offer && !offeredToMe;
    $("draw-pending").hidden = !pending;
    if (pending) $("draw-pending").textContent = g.draw_offer === this.side ?
      "You offered a draw; it stands until answered or a move is made." : `${SIDE_NAME[g.draw_offer]} offers a draw.`;
    $("offer-draw").disabled = !!g.draw_offer;
    // The engine answers no draw offer (docs/api.md): none to offer it.
    $("offer-draw").hidden = !!engine;
    $("role").textContent = this.side ? `You play ${SIDE_NAME[this.side]}.` : "You are watching.";
    if (engine) $("role").textContent = (this.side ? `You play ${SIDE_NAME[this.side]}; ` : "") +
      `the engine plays ${SIDE_NAME[engine.side]} (${engine.move_time ? seconds(engine.move_time) + " s a move" : "depth " + engine.depth}).`;
    if (this.myTurn()) this.loadLegal();
    if (g.status === "GAME_STATUS_FINISHED") this.tablebase.close();
    else this.tablebase.show(pos, g.variant);
    if (this.analysis && this.analysis.text !== pos.text) this.analyse();
  }

  // renderClocks shows each side's time: the running side's as its
  // deadline less now (docs/api.md, Clocks), ticking; the server alone
  // decides when time is up.
  renderClocks() {
    const c = this.game.clock;
    $("clocks").hidden = !c;
    if (!c) return;
    const now = Date.now();
    for (const [side, id, key] of [["SIDE_RED", "clock-red", "red_remaining"], ["SIDE_BLACK", "clock-black", "black_remaining"]]) {
      const running = c.running === side && c.deadline;
      let ms = seconds(c[key]) * 1000;
      if (running) ms = Math.max(0, Date.parse(c.deadline) - now);
      const el = $(id);
      el.dataset.running = String(!!running);
      el.dataset.low = String(ms < 10000);
      el.textContent = `${SIDE_NAME[side]} ${clockText(ms)}`;
      el.setAttribute("aria-label", `${SIDE_NAME[side]}'s clock: ${clockText(ms)}${running ? ", running" : ""}`);
    }
    if (c.first_move_deadline && this.game.status !== "GAME_STATUS_FINISHED") {
      const left = Math.max(0, Date.parse(c.first_move_deadline) - now);
      $("clock-" + (this.game.position.side_to_move === "SIDE_RED" ? "red" : "black")).textContent +=
        ` (first move within ${clockText(left)})`;
    }
    clearTimeout(this.clockTimer);
    if ((c.running && c.deadline) || c.first_move_deadline) this.clockTimer = setTimeout(() => this.renderClocks(), 200);
  }

  async loadLegal() {
    const pos = this.game.position;
    if (this.legal && this.legal.text === pos.text) return;
    this.legal = { text: pos.text, moves: null };
    try {
      const resp = await api.legalMoves(pos, this.game.variant);
      if (this.legal.text === pos.text) this.legal.moves = resp.moves || [];
      this.board.mark(this.selectionMarks());
    } catch (e) {
      this.legal = null;
      $("message").textContent = describeError(e);
    }
  }

  legalNow() {
    const pos = this.game && this.game.position;
    return this.legal && pos && this.legal.text === pos.text && this.legal.moves ? this.legal.moves : [];
  }

  // candidates: the legal moves that the selection so far can still be.
  candidates() {
    const s = this.sel;
    if (!s) return [];
    if (s.ending) return s.ending;
    return this.legalNow().filter((m) => m.origin === s.origin &&
      s.path.every((sq, i) => m.landing_squares[i] === sq));
  }

  selectionMarks() {
    const s = this.sel;
    if (!s) return { selected: null, targets: [] };
    const n = s.path.length;
    const targets = new Set();
    for (const m of this.candidates()) {
      if (s.ending) m.landing_squares.slice(0, -1).forEach((sq) => { if (!s.path.includes(sq)) targets.add(sq); });
      else if (m.landing_squares[n]) targets.add(m.landing_squares[n]);
    }
    return { selected: s.path.length ? s.path[s.path.length - 1] : s.origin, targets: [...targets] };
  }

  // pick handles a click (or Enter) on a square: a piece of one's own
  // starts a selection; then each landing square of a capture in turn, or
  // its last square alone (a short form, narrowed by more clicks when
  // several captures end there). An attempt no legal move matches is sent
  // as it is, for the server to explain.
  pick(sq) {
    if (!this.game) return;
    $("message").textContent = "";
    if (sq === null) { this.select(null); return; }
    if (!this.side || this.game.status === "GAME_STATUS_FINISHED") {
      if (this.side) $("message").textContent = "The game is over.";
      return;
    }
    const pos = this.game.position;
    const piece = (pos.pieces || []).find((p) => p.square === sq);
    const s = this.sel;
    if (!s || (piece && piece.side === this.side && !s.path.length)) {
      if (s && s.origin === sq) { this.select(null); return; }
      if (piece && piece.side === this.side) { this.select({ origin: sq, path: [], text: pos.text }); return; }
      if (!s) return;
    }
    if (s.ending) {
      const left = s.ending.filter((m) => m.landing_squares.includes(sq));
      if (left.length === 1) { this.play(left[0].notation); return; }
      if (left.length > 1) { this.select({ ...s, ending: left, path: [...s.path, sq] }); return; }
      this.play(s.origin + "x" + sq);
      return;
    }
    const path = [...s.path, sq];
    const next = this.legalNow().filter((m) => m.origin === s.origin &&
      path.every((p, i) => m.landing_squares[i] === p));
    if (next.length === 1 && next[0].landing_squares.length === path.length) { this.play(next[0].notation); return; }
    if (next.length) { this.select({ ...s, path }); return; }
    if (!s.path.length) {
      const ending = this.legalNow().filter((m) => m.origin === s.origin &&
        m.landing_squares[m.landing_squares.length - 1] === sq);
      if (ending.length === 1) { this.play(ending[0].notation); return; }
      if (ending.length > 1) {
        this.select({ ...s, ending, path: [] });
        $("message").textContent = `${ending.length} captures from ${s.origin} end on ${sq}: click a square to pass through.`;
        return;
      }
    }
    this.play(attempt(s.origin, path));
  }

  select(sel) {
    this.sel = sel;
    this.board.mark(this.selectionMarks());
  }

  async play(notation) {
    this.select(null);
    const body = { move: notation, expected_ply: this.game.ply || 0, request_id: requestId(), view: "GAME_VIEW_BASIC" };
    try {
      await api.makeMove(this.name, this.token, body);
      $("move-input").value = "";
    } catch (e) {
      let text = describeError(e);
      if (e instanceof ApiError && e.reason === "NOT_YOUR_TURN" && this.myTurn()) {
        text += ` The token in this page's address is not ${SIDE_NAME[this.side]}'s: use the link made for ${SIDE_NAME[this.side]}.`;
      }
      if (e instanceof ApiError && e.code === 10) { // ABORTED: the game moved on meanwhile
        text = "The game changed while this move was sent, so it was not played: the board now shows the game as it is.";
        this.resync();
      }
      $("message").textContent = text;
      announce(`Move ${notation} refused: ${text}`);
    }
  }

  // resync reads the game again (after a refused move on a stale board);
  // the watch stream then skips what the snapshot holds.
  async resync() {
    try {
      this.snapshot(await api.getGame(this.name));
    } catch { /* the stream catches up, or shows it cannot */ }
  }

  async act(fn, done) {
    $("message").textContent = "";
    try {
      await fn();
      if (done) announce(done);
    } catch (e) {
      $("message").textContent = describeError(e);
    }
  }

  // analyse streams AnalyzePosition for the shown position until Stop (or
  // the server's time cap); a new position restarts it.
  async analyse() {
    const previous = this.analysis;
    this.stopAnalysis();
    const pos = this.game.position;
    const ctl = new AbortController();
    let done;
    const run = { text: pos.text, ctl, done: new Promise((r) => { done = r; }) };
    this.analysis = run;
    // The server counts an analysis until its stream has closed: wait for
    // the one just stopped, so this one does not find every slot taken.
    if (previous) await Promise.race([previous.done, sleep(2000)]);
    $("analyse").disabled = true;
    $("stop-analysis").disabled = false;
    $("analysis-status").textContent = "Analysing…";
    const out = $("analysis-lines-out");
    out.replaceChildren();
    const body = { position: { text: pos.text }, variant: this.game.variant, infinite: true, lines: Number($("analysis-lines").value) };
    for (let attempt = 1; ; attempt++) {
    try {
      await stream("POST", "/v1/analysis:analyzePosition", body, ctl.signal, (r) => {
        if (this.analysis !== run) return;
        if (r.outcome) {
          $("analysis-status").textContent = `The position is decided: ${outcomeText(r.outcome)}.`;
          return;
        }
        $("analysis-status").textContent = (r.final ? "Done. " : "") +
          `Depth ${r.depth}, ${Number(r.nodes).toLocaleString("en")} nodes` +
          (r.best_move ? `; best move ${r.best_move.notation}` : "") + ".";
        if (r.lines) {
          out.replaceChildren(...r.lines.map((l) => {
            const li = document.createElement("li");
            li.textContent = `${scoreText(l.score)}  ${(l.moves || []).join(" ")}`;
            return li;
          }));
        }
      });
      break;
    } catch (e) {
      // A slot freed by another page's stopped analysis may take a moment.
      if (e instanceof ApiError && e.httpStatus === 429 && attempt < 4 && this.analysis === run) {
        await sleep(300 * attempt);
        continue;
      }
      if (e.name !== "AbortError" && this.analysis === run) $("analysis-status").textContent = describeError(e);
      break;
    }
    }
    done();
    if (this.analysis === run) {
      this.analysis = null;
      $("analyse").disabled = false;
      $("stop-analysis").disabled = true;
    }
  }

  stopAnalysis() {
    const run = this.analysis;
    if (!run) return;
    this.analysis = null;
    run.ctl.abort();
    $("analyse").disabled = false;
    $("stop-analysis").disabled = true;
    $("analysis-status").textContent = "Stopped.";
  }
}

// attempt writes a selection that matches no legal move as notation, so
// that the server says what is wrong with it.
function attempt(origin, path) {
  const far = (a, b) => Math.abs(a.charCodeAt(0) - b.charCodeAt(0)) > 1;
  let prev = origin;
  let capture = false;
  for (const sq of path) { if (far(prev, sq)) capture = true; prev = sq; }
  return origin + (capture ? "x" : "-") + path.join(capture ? "x" : "-");
}

function retryable(e) {
  return e.httpStatus >= 500 || e.httpStatus === 429 || e.httpStatus === 408;
}

function outcomeText(o) {
  if (!o) return "";
  if (o.reason === "OUTCOME_REASON_AGREED_DRAW") return "Draw agreed";
  return `${RESULTS[o.result] || o.result} by ${REASONS[o.reason] || o.reason}`;
}

function scoreText(s) {
  if (!s) return "";
  if (s.win_in_plies !== undefined) return `win in ${s.win_in_plies} plies`;
  if (s.loss_in_plies !== undefined) return `loss in ${s.loss_in_plies} plies`;
  const c = Number(s.centipedines || 0) / 100;
  return (c > 0 ? "+" : "") + c.toFixed(2);
}

// seconds reads a proto JSON duration ("2.500s").
function seconds(d) {
  return d ? Number(String(d).replace(/s$/, "")) : 0;
}

function clockText(ms) {
  const t = Math.ceil(ms / 100) / 10;
  const m = Math.floor(t / 60);
  const sec = t - m * 60;
  const h = Math.floor(m / 60);
  const mm = h ? String(m % 60).padStart(2, "0") : String(m);
  const ss = t < 10 ? sec.toFixed(1).padStart(4, "0") : String(Math.floor(sec)).padStart(2, "0");
  return (h ? `${h}:` : "") + `${mm}:${ss}`;
}

function capturedText(moves) {
  const count = { SIDE_RED: {}, SIDE_BLACK: {} };
  for (const m of moves) {
    for (const c of m.captured_pieces || []) count[c.side][c.rank] = (count[c.side][c.rank] || 0) + 1;
  }
  const side = (s) => {
    const parts = Object.entries(count[s]).map(([r, n]) => `${n} ${RANK_NAME[r]}`);
    return `${SIDE_NAME[s]} lost ${parts.length ? parts.join(", ") : "nothing"}`;
  };
  return `${side("SIDE_RED")}; ${side("SIDE_BLACK")}.`;
}

// A game's id as the service makes them (docs/api.md, The game resource).
const GAME_ID = /^[A-Za-z0-9_-]{1,63}$/;

const m = location.pathname.match(/^\/games\/([^/]+)$/);
if (m) {
  let id = null;
  try { id = decodeURIComponent(m[1]); } catch { /* not UTF-8 */ }
  if (id !== null && GAME_ID.test(id)) {
    new GamePage(id).start();
  } else {
    $("game").hidden = false;
    $("game-title").textContent = "No such game";
    $("message").textContent = "This address names no game: a game's page is /games/ID, with the ID the service gave it.";
    $("conn").hidden = true;
  }
} else {
  home();
}
