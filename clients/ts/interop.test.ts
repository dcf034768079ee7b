// Interop tests: the generated TypeScript client (gen/ts) against a real
// damone server, over gRPC. They read reference games from
// internal/refgames/games.jsonl, so they run from the repository's root.
// `make interop` starts the server and runs them:
//
//   DAMONE_GRPC_ADDR=127.0.0.1:9090 node --test build/ts/clients/ts/interop.test.js
//
// DAMONE_INTEROP_SEED (default 7) seeds the choice of moves in the whole game.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, test } from "node:test";

import { create, equals, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import { Side } from "../../gen/ts/damone/v1/board_pb.js";
import { ClockSchema, GameEventSchema, GameStatus, type Clock, type GameEvent } from "../../gen/ts/damone/v1/game_pb.js";
import { GameService } from "../../gen/ts/damone/v1/game_service_pb.js";
import {
  OutcomeReason,
  OutcomeReasonSchema,
  OutcomeResult,
  OutcomeResultSchema,
  OutcomeSchema,
  type Outcome,
} from "../../gen/ts/damone/v1/outcome_pb.js";
import {
  RulesService,
  ValidateGamesRequestSchema,
  type ValidateGameResponse,
  type ValidateGamesRequest,
  type ValidateGamesResponse,
} from "../../gen/ts/damone/v1/rules_service_pb.js";
import { VariantSchema } from "../../gen/ts/damone/v1/variant_pb.js";
import { BadRequestSchema, ErrorInfoSchema, type ErrorInfo } from "../../gen/ts/google/rpc/error_details_pb.js";

const addr = process.env.DAMONE_GRPC_ADDR;
if (!addr) throw new Error("DAMONE_GRPC_ADDR (host:port of a damone gRPC server) is not set");
const seed = Number(process.env.DAMONE_INTEROP_SEED ?? "7");
// The server's --first-move-time in seconds (scripts/interop passes it on;
// 60, the default, when unset).
const firstMoveSeconds = BigInt(process.env.DAMONE_INTEROP_FIRST_MOVE_SECONDS ?? "60");

// One HTTP/2 connection for every test, closed at the end (an open
// connection would keep node running).
const baseUrl = `http://${addr}`;
const session = new Http2SessionManager(baseUrl);
after(() => session.abort());
const transport = createGrpcTransport({ baseUrl, sessionManager: session });
const games = createClient(GameService, transport);
const rules = createClient(RulesService, transport);

const START = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0";
const START_MOVES = ["d1-c2", "e2-d3", "f1-g2", "f3-e4", "g4-f5", "h1-g2", "h3-g2", "h5-g6"];
const MAX_PLIES = 2000; // a safety net: the no-progress rule ends games long before

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

// A small seeded generator (xorshift32): the same seed plays the same game.
function seededPick(s: number): (n: number) => number {
  let x = s >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x % n;
  };
}

// A sample of the reference games (internal/refgames/games.jsonl, worked
// out independently from RULES.md; the tests run from the repository's
// root): every 30th game and the first whose start is already decided.
type RefGame = {
  id: string;
  variant: JsonValue;
  moves: string[];
  expected: {
    valid: boolean;
    first_illegal_ply: number;
    ply: number;
    end_ply: number | null;
    outcome: { result: string; reason: string } | null;
    final_position: string;
  };
};
const REF_GAMES: RefGame[] = (() => {
  const all: RefGame[] = readFileSync("internal/refgames/games.jsonl", "utf8")
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line));
  const sample = all.filter((_, i) => i % 30 === 0);
  const decided = all.find((g) => g.expected.end_ply === 0);
  assert.ok(decided, "the reference has a decided start");
  if (!sample.includes(decided)) sample.push(decided);
  return sample;
})();

// Checks a verdict against a reference game's expected one.
function checkVerdict(g: RefGame, v: ValidateGameResponse | undefined) {
  const e = g.expected;
  assert.ok(v, `${g.id}: a verdict`);
  const got = {
    valid: v.valid,
    firstIllegalPly: v.firstIllegalPly,
    ply: v.ply,
    moves: v.moves.length,
    endPly: v.endPly ?? null,
    outcome: v.outcome
      ? { result: OutcomeResultSchema.value[v.outcome.result].name, reason: OutcomeReasonSchema.value[v.outcome.reason].name }
      : null,
    finalPosition: v.finalPosition?.text,
    illegalMove: v.illegalMove,
  };
  assert.deepEqual(
    got,
    {
      valid: e.valid,
      firstIllegalPly: e.first_illegal_ply,
      ply: e.ply,
      moves: e.ply,
      endPly: e.end_ply,
      outcome: e.outcome,
      finalPosition: e.final_position,
      illegalMove: e.valid ? "" : g.moves[e.first_illegal_ply - 1],
    },
    g.id,
  );
  assert.equal(v.reason === "", e.valid, `${g.id}: a reason exactly when invalid`);
}

// The call must fail: returns its error and its ErrorInfo detail.
async function failure(call: Promise<unknown>): Promise<{ err: ConnectError; info: ErrorInfo }> {
  try {
    await call;
  } catch (e) {
    const err = ConnectError.from(e);
    const infos = err.findDetails(ErrorInfoSchema);
    assert.equal(infos.length, 1, `one ErrorInfo detail in ${err.message}`);
    assert.equal(infos[0].domain, "damone.v1");
    return { err, info: infos[0] };
  }
  assert.fail("the call succeeded; it should have failed");
}

async function createGame(variant = create(VariantSchema, {})) {
  const res = await games.createGame({ game: { variant } });
  assert.ok(res.game, "CreateGame returns the game");
  assert.match(res.redToken, /\S/);
  assert.match(res.blackToken, /\S/);
  assert.notEqual(res.redToken, res.blackToken);
  return { game: res.game, red: res.redToken, black: res.blackToken };
}

// Plays the first legal move of the position (by the side to move).
async function playFirstMove(name: string, text: string, tokens: { red: string; black: string }) {
  const { moves } = await rules.listLegalMoves({ position: { text } });
  const move = moves[0];
  const res = await games.makeMove({ name, move: move.notation }, bearer(move.side === Side.RED ? tokens.red : tokens.black));
  assert.ok(res.game?.position);
  return res;
}

test("plays a whole game to a result while watching every event", async (t) => {
  // Repetition draws need the game's history, which the stateless
  // RulesService cannot see: turn them off so that RulesService predicts
  // every position and the outcome. A short no-progress limit bounds the game.
  const variant = create(VariantSchema, { noProgressLimit: 20, repetitionDraw: false });
  const { game: created, red, black } = await createGame(variant);
  const name = created.name;
  assert.match(name, /^games\/./);
  assert.equal(created.status, GameStatus.IN_PROGRESS);
  assert.equal(created.ply, 0);
  assert.equal(created.lastEventSequence, 1n);
  assert.equal(created.position?.text, START);

  // Watch from the start while playing.
  const received: GameEvent[] = [];
  const watching = (async () => {
    for await (const ev of games.watchGame({ name, sinceSequence: 0n })) received.push(ev);
  })();

  type Expected = { kind: GameEvent["event"]["case"]; ply: number; text: string; move?: string; outcome?: Outcome };
  const expected: Expected[] = [{ kind: "gameCreated", ply: 0, text: START }];
  const pick = seededPick(seed);
  const played: string[] = [];
  let game = created;
  let text = START;
  let outcome: Outcome | undefined;
  while (!outcome) {
    assert.ok(game.ply < MAX_PLIES, "the game ends");
    const legal = await rules.listLegalMoves({ position: { text }, variant: game.variant });
    assert.equal(legal.outcome, undefined, "RulesService says the game goes on");
    assert.ok(legal.moves.length > 0);
    const move = legal.moves[pick(legal.moves.length)];
    assert.equal(move.side, game.position?.sideToMove);
    const next = await rules.applyMove({ position: { text }, variant: game.variant, move: move.notation });

    const res = await games.makeMove(
      { name, move: move.notation, precondition: { case: "expectedPly", value: game.ply } },
      bearer(move.side === Side.RED ? red : black),
    );
    assert.ok(res.game && res.move && next.position);
    assert.equal(res.move.notation, move.notation);
    assert.equal(res.game.ply, game.ply + 1);
    assert.equal(res.game.position?.text, next.position.text, `position after ${move.notation}`);
    assert.equal(res.eventSequence, BigInt(expected.length + 1));
    played.push(move.notation);
    expected.push({ kind: "movePlayed", ply: res.game.ply, text: next.position.text, move: move.notation });
    game = res.game;
    text = next.position.text;
    if (next.outcome) {
      outcome = next.outcome;
      assert.equal(game.status, GameStatus.FINISHED);
      assert.ok(game.outcome && equals(OutcomeSchema, game.outcome, outcome), "the game's outcome is the rules' outcome");
      expected.push({ kind: "gameEnded", ply: game.ply, text, outcome });
    } else {
      assert.equal(game.status, GameStatus.IN_PROGRESS);
    }
  }
  assert.notEqual(outcome.reason, OutcomeReason.RESIGNATION);
  t.diagnostic(`seed ${seed}: ${OutcomeResult[outcome.result]} by ${OutcomeReason[outcome.reason]} after ${game.ply} plies`);

  // The stream closes by itself after game_ended.
  await watching;
  assert.equal(received.length, expected.length, "one event per move, plus created and ended");
  received.forEach((ev, i) => {
    const want = expected[i];
    assert.equal(ev.sequence, BigInt(i + 1), `event ${i + 1}: sequence`);
    assert.equal(ev.game, name);
    assert.equal(ev.event.case, want.kind, `event ${i + 1}: kind`);
    assert.equal(ev.ply, want.ply, `event ${i + 1}: ply`);
    assert.equal(ev.position?.text, want.text, `event ${i + 1}: position`);
    assert.ok(ev.eventTime, `event ${i + 1}: time`);
    if (ev.event.case === "gameCreated") assert.ok(ev.event.value.variant);
    if (ev.event.case === "movePlayed") assert.equal(ev.event.value.move?.notation, want.move);
    if (ev.event.case === "gameEnded") {
      assert.ok(want.outcome && ev.event.value.outcome && equals(OutcomeSchema, ev.event.value.outcome, want.outcome));
    }
  });

  // The stored game agrees, and the final position is over for the rules too.
  const final = await games.getGame({ name });
  assert.equal(final.status, GameStatus.FINISHED);
  assert.deepEqual(final.moves.map((m) => m.notation), played);
  assert.equal(final.lastEventSequence, BigInt(received.length));
  const after = await rules.listLegalMoves({ position: { text }, variant: game.variant });
  assert.equal(after.moves.length, 0);
  assert.ok(after.outcome && equals(OutcomeSchema, after.outcome, outcome));
});

test("errors: malformed move, illegal move, the other side's token", async () => {
  const { game, red, black } = await createGame();
  const name = game.name;

  // Malformed notation (e9 is off the board): INVALID_ARGUMENT, with a
  // BadRequest detail naming the field.
  const malformed = await failure(games.makeMove({ name, move: "e2-e9" }, bearer(red)));
  assert.equal(malformed.err.code, Code.InvalidArgument);
  assert.equal(malformed.info.reason, "INVALID_REQUEST");
  const [badRequest] = malformed.err.findDetails(BadRequestSchema);
  assert.ok(badRequest, "a BadRequest detail");
  assert.deepEqual(badRequest.fieldViolations.map((v) => v.field), ["move"]);

  // Well formed but not a legal move here: FAILED_PRECONDITION, ILLEGAL_MOVE.
  const illegal = await failure(games.makeMove({ name, move: "e2-e4" }, bearer(red)));
  assert.equal(illegal.err.code, Code.FailedPrecondition);
  assert.equal(illegal.info.reason, "ILLEGAL_MOVE");
  assert.equal(illegal.info.metadata["move"], "e2-e4");
  assert.deepEqual(illegal.info.metadata["legal_moves"].split(","), START_MOVES);

  // The token alone decides the side (docs/api.md): a token that is
  // neither of the game's is PERMISSION_DENIED, WRONG_TOKEN; Black's token
  // moving a Red piece on Red's turn is NOT_YOUR_TURN; Red's token moving a
  // Black piece is judged as a move: ILLEGAL_MOVE, cause OPPONENT_PIECE.
  const stranger = await failure(games.makeMove({ name, move: "e2-d3" }, bearer(red + "x")));
  assert.equal(stranger.err.code, Code.PermissionDenied);
  assert.equal(stranger.info.reason, "WRONG_TOKEN");
  const wrongSide = await failure(games.makeMove({ name, move: "e2-d3" }, bearer(black)));
  assert.equal(wrongSide.err.code, Code.FailedPrecondition);
  assert.equal(wrongSide.info.reason, "NOT_YOUR_TURN");
  assert.deepEqual(wrongSide.info.metadata, { side: "SIDE_BLACK", side_to_move: "SIDE_RED" });
  const theirs = await failure(games.makeMove({ name, move: "a4-b3" }, bearer(red)));
  assert.equal(theirs.err.code, Code.FailedPrecondition);
  assert.equal(theirs.info.reason, "ILLEGAL_MOVE");
  assert.equal(theirs.info.metadata["cause"], "OPPONENT_PIECE");

  // No token at all: UNAUTHENTICATED; a Black move while Red is to move:
  // NOT_YOUR_TURN.
  const anonymous = await failure(games.makeMove({ name, move: "e2-d3" }));
  assert.equal(anonymous.err.code, Code.Unauthenticated);
  assert.equal(anonymous.info.reason, "MISSING_TOKEN");
  const early = await failure(games.makeMove({ name, move: "a4-b3" }, bearer(black)));
  assert.equal(early.err.code, Code.FailedPrecondition);
  assert.equal(early.info.reason, "NOT_YOUR_TURN");

  // Nothing was played.
  const after = await games.getGame({ name });
  assert.equal(after.ply, 0);
  assert.equal(after.lastEventSequence, 1n);
  assert.equal(after.position?.text, START);
});

test("resumes a watch from a sequence number", async () => {
  const tokens = await createGame();
  const name = tokens.game.name;
  let text = START;
  for (let i = 0; i < 3; i++) text = (await playFirstMove(name, text, tokens)).game!.position!.text; // events 2, 3, 4

  // Resume after event 2: events 3 and 4 are replayed, then live ones follow.
  const stream = games.watchGame({ name, sinceSequence: 2n })[Symbol.asyncIterator]();
  const next = async () => {
    const r = await stream.next();
    assert.ok(!r.done, "the stream has another event");
    return r.value;
  };
  const replayed = [await next(), await next()];
  assert.deepEqual(replayed.map((e) => e.sequence), [3n, 4n]);
  assert.deepEqual(replayed.map((e) => e.event.case), ["movePlayed", "movePlayed"]);
  assert.equal(replayed[1].position?.text, text);

  const live = await playFirstMove(name, text, tokens);
  const ev5 = await next();
  assert.equal(ev5.sequence, 5n);
  assert.equal(live.eventSequence, 5n);
  assert.equal(ev5.event.case, "movePlayed");
  assert.equal(ev5.event.case === "movePlayed" && ev5.event.value.move?.notation, live.move?.notation);
  assert.equal(ev5.position?.text, live.game?.position?.text);

  await games.resign({ name }, bearer(tokens.red));
  const ev6 = await next();
  assert.equal(ev6.sequence, 6n);
  assert.equal(ev6.event.case, "gameEnded");
  assert.equal(ev6.event.case === "gameEnded" && ev6.event.value.outcome?.reason, OutcomeReason.RESIGNATION);
  assert.ok((await stream.next()).done, "the stream ends after game_ended");

  // Resuming from any sequence gives exactly the rest of the full replay.
  const all: GameEvent[] = [];
  for await (const ev of games.watchGame({ name, sinceSequence: 0n })) all.push(ev);
  assert.deepEqual(all.map((e) => e.sequence), [1n, 2n, 3n, 4n, 5n, 6n]);
  for (let since = 0; since <= 6; since++) {
    const rest: GameEvent[] = [];
    for await (const ev of games.watchGame({ name, sinceSequence: BigInt(since) })) rest.push(ev);
    assert.equal(rest.length, 6 - since);
    rest.forEach((ev, i) => assert.ok(equals(GameEventSchema, ev, all[since + i]), `since ${since}: event ${since + i + 1}`));
  }

  // Past the latest sequence: OUT_OF_RANGE.
  const beyond = await failure(
    (async () => {
      for await (const _ of games.watchGame({ name, sinceSequence: 7n })) assert.fail("no event expected");
    })(),
  );
  assert.equal(beyond.err.code, Code.OutOfRange);
  assert.equal(beyond.info.reason, "SEQUENCE_OUT_OF_RANGE");
});

test("validates reference games one at a time (ValidateGame)", async () => {
  const counts = { games: 0, invalid: 0, ended: 0 };
  for (const g of REF_GAMES) {
    const v = await rules.validateGame({ variant: fromJson(VariantSchema, g.variant), moves: g.moves });
    checkVerdict(g, v);
    counts.games++;
    if (!g.expected.valid) counts.invalid++;
    if (g.expected.outcome) counts.ended++;
  }
  assert.ok(counts.invalid > 0 && counts.ended > 0 && counts.games > counts.invalid);

  // An invalid variant is an error, not a verdict.
  const bad = await failure(rules.validateGame({ variant: { noProgressLimit: -1 }, moves: ["e2-d3"] }));
  assert.equal(bad.err.code, Code.InvalidArgument);
  assert.equal(bad.info.reason, "INVALID_REQUEST");
  assert.deepEqual(
    bad.err.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => v.field)),
    ["variant.no_progress_limit"],
  );
});

test("validates reference games on one stream (ValidateGames)", async () => {
  const request = (id: string, g: RefGame) =>
    create(ValidateGamesRequestSchema, { id, game: { variant: fromJson(VariantSchema, g.variant), moves: g.moves } });
  async function* requests(): AsyncIterable<ValidateGamesRequest> {
    for (const g of REF_GAMES) yield request(g.id, g);
    // A bad game does not end the stream: its answer is an error, and the
    // next game is answered as usual.
    yield create(ValidateGamesRequestSchema, { id: "bad variant", game: { variant: { noProgressLimit: -1 } } });
    yield request(REF_GAMES[0].id + " again", REF_GAMES[0]);
  }
  const answers: ValidateGamesResponse[] = [];
  for await (const res of rules.validateGames(requests())) answers.push(res);
  assert.deepEqual(
    answers.map((a) => a.id),
    [...REF_GAMES.map((g) => g.id), "bad variant", REF_GAMES[0].id + " again"],
    "one answer per request, in order",
  );
  REF_GAMES.forEach((g, i) => {
    const a = answers[i].answer;
    assert.equal(a.case, "result", `${g.id}: a verdict`);
    checkVerdict(g, a.value as ValidateGameResponse);
  });
  const bad = answers[REF_GAMES.length].answer;
  assert.equal(bad.case, "error");
  assert.equal(bad.case === "error" && bad.value.code, "INVALID_ARGUMENT");
  assert.equal(bad.case === "error" && bad.value.reason, "INVALID_REQUEST");
  assert.equal(bad.case === "error" && bad.value.field, "game.variant.no_progress_limit");
  const again = answers[REF_GAMES.length + 1].answer;
  assert.equal(again.case, "result");
  checkVerdict(REF_GAMES[0], again.value as ValidateGameResponse);
});

// Timestamps and durations as nanoseconds, to compare instants exactly. An
// unset duration reads as 0 (docs/api.md, JSON conventions); an unset
// timestamp is an error.
const NS = 1_000_000_000n;
const durationNs = (d: { seconds: bigint; nanos: number } | undefined) => (d ? d.seconds * NS + BigInt(d.nanos) : 0n);
function instantNs(t: { seconds: bigint; nanos: number } | undefined, what: string): bigint {
  assert.ok(t, `${what} is set`);
  return t.seconds * NS + BigInt(t.nanos);
}

// A clock's fields, durations and instants as nanoseconds (null: unset).
function clockNs(c: Clock | undefined) {
  assert.ok(c, "the game has a clock");
  return {
    red: durationNs(c.redRemaining),
    black: durationNs(c.blackRemaining),
    running: c.running,
    deadline: c.deadline ? instantNs(c.deadline, "deadline") : null,
    firstMoveDeadline: c.firstMoveDeadline ? instantNs(c.firstMoveDeadline, "first_move_deadline") : null,
  };
}

test("a clock: increments, a flag fall seen by a watcher, the late move refused", async () => {
  // 2 s each plus 1 s per move (docs/api.md, Clocks). Expected values from
  // the rules there: each side's first move is untimed (no clock runs before
  // it; it must come within the first-move time) and the increment is added
  // after every move, the first included.
  const res = await games.createGame({
    game: { timeControl: { initial: { seconds: 2n }, increment: { seconds: 1n } } },
  });
  const created = res.game;
  assert.ok(created);
  const name = created.name;
  const tokens = { red: res.redToken, black: res.blackToken };
  const tc = created.timeControl;
  assert.ok(tc, "the game has its time control");
  assert.deepEqual(
    [durationNs(tc.initial), durationNs(tc.increment), tc.perMove],
    [2n * NS, 1n * NS, undefined],
  );
  assert.deepEqual(clockNs(created.clock), {
    red: 2n * NS,
    black: 2n * NS,
    running: Side.UNSPECIFIED,
    deadline: null,
    firstMoveDeadline: instantNs(created.updateTime, "update_time") + firstMoveSeconds * NS,
  });

  // Red's first move: Red has 2 + 1 s; Black, still to make its first move,
  // has the first-move time from this move on.
  const r1 = await playFirstMove(name, START, tokens);
  assert.equal(r1.move?.side, Side.RED);
  assert.deepEqual(clockNs(r1.game?.clock), {
    red: 3n * NS,
    black: 2n * NS,
    running: Side.UNSPECIFIED,
    deadline: null,
    firstMoveDeadline: instantNs(r1.game?.updateTime, "update_time") + firstMoveSeconds * NS,
  });

  // Black's first move: both have 3 s, and Red's clock runs from this move.
  const r2 = await playFirstMove(name, r1.game!.position!.text, tokens);
  assert.equal(r2.move?.side, Side.BLACK);
  assert.ok(r2.game);
  assert.equal(r2.game.lastEventSequence, 3n);
  const deadline = instantNs(r2.game.updateTime, "update_time") + 3n * NS;
  assert.deepEqual(clockNs(r2.game.clock), {
    red: 3n * NS,
    black: 3n * NS,
    running: Side.RED,
    deadline,
    firstMoveDeadline: null,
  });

  // Nobody moves: Red's flag falls. The stream delivers game_ended, dated
  // at the deadline, and closes.
  const events: GameEvent[] = [];
  for await (const ev of games.watchGame({ name, sinceSequence: r2.game.lastEventSequence }, { timeoutMs: 30_000 })) {
    events.push(ev);
  }
  assert.ok(BigInt(Date.now()) * 1_000_000n >= deadline - 1_000_000n, "not ended before its deadline");
  assert.equal(events.length, 1, "only game_ended, then the stream ends");
  const [ended] = events;
  assert.equal(ended.sequence, 4n);
  assert.equal(ended.ply, 2);
  assert.equal(ended.event.case, "gameEnded");
  const outcome = ended.event.case === "gameEnded" ? ended.event.value.outcome : undefined;
  assert.deepEqual([outcome?.result, outcome?.reason], [OutcomeResult.BLACK_WINS, OutcomeReason.TIMEOUT]);
  assert.equal(instantNs(ended.eventTime, "event_time"), deadline);
  assert.deepEqual(clockNs(ended.clock), {
    red: 0n,
    black: 3n * NS,
    running: Side.UNSPECIFIED,
    deadline: null,
    firstMoveDeadline: null,
  });

  // A move now is refused with the game's timeout outcome.
  const { moves } = await rules.listLegalMoves({ position: { text: r2.game.position!.text } });
  assert.equal(moves[0].side, Side.RED);
  const late = await failure(games.makeMove({ name, move: moves[0].notation }, bearer(tokens.red)));
  assert.equal(late.err.code, Code.FailedPrecondition);
  assert.equal(late.info.reason, "GAME_OVER");
  assert.deepEqual(late.info.metadata, { result: "OUTCOME_RESULT_BLACK_WINS", reason: "OUTCOME_REASON_TIMEOUT" });

  // The stored game agrees with the stream.
  const final = await games.getGame({ name });
  assert.equal(final.status, GameStatus.FINISHED);
  assert.equal(final.ply, 2);
  assert.equal(final.lastEventSequence, 4n);
  assert.ok(final.outcome && outcome && equals(OutcomeSchema, final.outcome, outcome));
  assert.ok(final.clock && ended.clock && equals(ClockSchema, final.clock, ended.clock), "the game's clock is its last event's");
});

test("a time control below --min-clock-time (1 s) is INVALID_ARGUMENT naming the field", async () => {
  const bad = await failure(games.createGame({ game: { timeControl: { initial: { nanos: 500_000_000 } } } }));
  assert.equal(bad.err.code, Code.InvalidArgument);
  assert.equal(bad.info.reason, "INVALID_REQUEST");
  assert.deepEqual(
    bad.err.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => v.field)),
    ["game.time_control.initial"],
  );
});
