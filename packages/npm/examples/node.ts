// A first damone client on Node, over gRPC, with @damone/client and
// Connect's node transport:
//
//   npm install @damone/client @bufbuild/protobuf@^2.17.0 @connectrpc/connect@^2.1.1 @connectrpc/connect-node@^2.1.1
//   npx tsc && node node.js 127.0.0.1:9090
//
// It creates a game, reads the legal moves, plays one with Red's token and a
// request id (a write that failed with UNAVAILABLE or DEADLINE_EXCEEDED is
// sent again with the same id: the server replays the first answer), reads
// the ErrorInfo of an illegal move, watches the game until Black resigns,
// and validates a short game. It exits non-zero if an answer is not the one
// the rules give.
import { randomUUID } from "node:crypto";

import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";
import { GameService, OutcomeReason, RulesService, Side } from "@damone/client";
import { ErrorInfoSchema } from "@damone/client/google/rpc";

const addr = process.argv[2] ?? "127.0.0.1:9090";
const baseUrl = `http://${addr}`;
const session = new Http2SessionManager(baseUrl);
const transport = createGrpcTransport({ baseUrl, sessionManager: session });
const games = createClient(GameService, transport);
const rules = createClient(RulesService, transport);
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` }, timeoutMs: 5000 });

function check(ok: boolean, what: string): void {
  if (!ok) throw new Error(`unexpected answer: ${what}`);
}

// A new game with the standard setup; its two tokens come back once.
const { game, redToken, blackToken } = await games.createGame({ game: {}, requestId: randomUUID() }, { timeoutMs: 5000 });
check(game !== undefined && game.name.startsWith("games/"), `CreateGame returned ${game?.name}`);
console.log(`created ${game!.name}: ${game!.position?.text}`);

// Every event of the game, until the stream ends with the game.
const watched: string[] = [];
const watching = (async () => {
  for await (const event of games.watchGame({ name: game!.name, sinceSequence: 0n })) {
    watched.push(event.event.case ?? "");
  }
})();

// An illegal move is FAILED_PRECONDITION with an ErrorInfo detail: a
// Pedine steps one square, so e2-e4 is never legal (RULES.md, Moves).
try {
  await games.makeMove({ name: game!.name, move: "e2-e4", requestId: randomUUID() }, bearer(redToken));
  check(false, "e2-e4 was accepted");
} catch (err) {
  const e = ConnectError.from(err);
  const [info] = e.findDetails(ErrorInfoSchema);
  check(e.code === Code.FailedPrecondition && info?.reason === "ILLEGAL_MOVE", `${Code[e.code]} ${info?.reason}`);
  console.log(`e2-e4 refused: ${Code[e.code]} ${info!.reason}`);
}

// Red moves first by default (RULES.md, Sides and setup): play its first
// legal move.
const { moves } = await rules.listLegalMoves({ position: { text: game!.position?.text }, variant: game!.variant });
check(game!.position?.sideToMove === Side.RED && moves.length > 0, `${moves.length} legal moves at the start`);
const played = await games.makeMove({ name: game!.name, move: moves[0].notation, requestId: randomUUID() }, bearer(redToken));
check(played.game?.ply === 1 && played.game?.position?.sideToMove === Side.BLACK, `ply ${played.game?.ply} after one move`);
console.log(`played ${moves[0].notation}: ply ${played.game?.ply}`);

const { game: ended } = await games.resign({ name: game!.name, requestId: randomUUID() }, bearer(blackToken));
await watching;
check(ended?.outcome?.reason === OutcomeReason.RESIGNATION, `outcome ${ended?.outcome?.reason}`);
check(watched.at(-1) === "gameEnded", `last event ${watched.at(-1)}`);
console.log(`watched ${watched.length} events: ${watched.join(", ")}`);

// At ply 3 Red must capture d3xb5, so f3-e4 is illegal (RULES.md, Captures).
const verdict = await rules.validateGame({ moves: ["e2-d3", "b5-c4", "f3-e4"] });
check(!verdict.valid && verdict.firstIllegalPly === 3, `verdict ${verdict.valid} at ply ${verdict.firstIllegalPly}`);
console.log(`validated: ply ${verdict.firstIllegalPly} ${verdict.illegalMove} is illegal`);
session.abort();
