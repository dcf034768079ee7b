// A damone client in TypeScript, over gRPC, with the generated code in
// gen/ts (protoc-gen-es) and Connect for node.
//
//   npm ci && npx tsc -p clients/ts
//   node build/ts/clients/ts/example.js 127.0.0.1:9090
//
// It creates a game, lists the legal moves, plays a few of them with each
// side's token while watching the game's event stream, handles an illegal
// move error, and resigns.
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import { Side } from "../../gen/ts/damone/v1/board_pb.js";
import { GameService } from "../../gen/ts/damone/v1/game_service_pb.js";
import { OutcomeReason, OutcomeResult } from "../../gen/ts/damone/v1/outcome_pb.js";
import { RulesService } from "../../gen/ts/damone/v1/rules_service_pb.js";
import { VariantSchema } from "../../gen/ts/damone/v1/variant_pb.js";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

const addr = process.argv[2] ?? "127.0.0.1:9090";

// 1. Connect: one HTTP/2 connection (plaintext here), one client per service.
const baseUrl = `http://${addr}`;
const session = new Http2SessionManager(baseUrl);
const transport = createGrpcTransport({ baseUrl, sessionManager: session });
const games = createClient(GameService, transport);
const rules = createClient(RulesService, transport);

// Moves need the acting side's token as `authorization: Bearer <token>`.
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

// 2. Create a game (the standard setup). The two tokens are returned once.
const variant = create(VariantSchema, {}); // all defaults
const { game, redToken, blackToken } = await games.createGame({ game: { variant } });
if (!game) throw new Error("CreateGame returned no game");
console.log(`created ${game.name}: ${game.position?.text}`);

// 3. Watch the game in the background: every event, from the first one,
// until the stream ends after `game_ended`.
const watching = (async () => {
  for await (const event of games.watchGame({ name: game.name, sinceSequence: 0n })) {
    console.log(`  event #${event.sequence} (${event.event.case}), ply ${event.ply}: ${event.position?.text}`);
  }
})();

// 4. An illegal move: a FAILED_PRECONDITION status whose ErrorInfo detail
// says why (`reason`) and lists the legal moves (`metadata`).
try {
  await games.makeMove({ name: game.name, move: "e2-e4" }, bearer(redToken));
} catch (err) {
  const e = ConnectError.from(err);
  const [info] = e.findDetails(ErrorInfoSchema);
  if (e.code !== Code.FailedPrecondition || info?.reason !== "ILLEGAL_MOVE") throw err;
  console.log(`e2-e4 refused: ${Code[e.code]} ${info.reason}; legal: ${info.metadata["legal_moves"]}`);
}

// 5. Play four plies: ask the rules for the legal moves, play the first.
// A position goes back in one form: its text (or the structured fields).
let position = game.position;
for (let i = 0; i < 4; i++) {
  const { moves } = await rules.listLegalMoves({ position: { text: position?.text }, variant: game.variant });
  const move = moves[0].notation;
  const token = position?.sideToMove === Side.RED ? redToken : blackToken;
  const res = await games.makeMove({ name: game.name, move }, bearer(token));
  position = res.game?.position;
  console.log(`played ${move} (event #${res.eventSequence})`);
}

// 6. Black resigns: the game ends and so does the stream.
const { game: ended } = await games.resign({ name: game.name }, bearer(blackToken));
await watching;
const outcome = ended?.outcome;
if (outcome) console.log(`result: ${OutcomeResult[outcome.result]} by ${OutcomeReason[outcome.reason]}`);
session.abort(); // close the connection, so that node exits
