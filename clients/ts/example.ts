// A damone client in TypeScript, over gRPC, with the generated code in
// gen/ts (protoc-gen-es) and Connect for node.
//
//   npm ci && npx tsc -p clients/ts
//   node build/ts/clients/ts/example.js 127.0.0.1:9090
//
// It creates a game, lists the legal moves, plays a few of them with each
// side's token while watching the game's event stream, handles an illegal
// move error, resigns, and has a short game validated. Every write carries
// a requestId, so a write whose outcome is unknown is sent again safely
// (docs/api.md, Consistency and retries).
//
// The rules calls go to every rules replica in turn. In Kubernetes, give the
// games address and the rules fleet's headless Service (docs/deploy.md,
// Balancing gRPC clients):
//
//   node build/ts/clients/ts/example.js damone-games.NAMESPACE.svc.cluster.local:9090 \
//     damone-rules-headless.NAMESPACE.svc.cluster.local:9090
import { randomUUID } from "node:crypto";
import { lookup } from "node:dns/promises";
import { setTimeout as sleep } from "node:timers/promises";

import { create } from "@bufbuild/protobuf";
import { MethodOptions_IdempotencyLevel } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import { Side } from "../../gen/ts/damone/v1/board_pb.js";
import { GameService } from "../../gen/ts/damone/v1/game_service_pb.js";
import { OutcomeReason, OutcomeResult } from "../../gen/ts/damone/v1/outcome_pb.js";
import { RulesService } from "../../gen/ts/damone/v1/rules_service_pb.js";
import { VariantSchema } from "../../gen/ts/damone/v1/variant_pb.js";
import { ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

const addr = process.argv[2] ?? "127.0.0.1:9090";
const rulesAddr = process.argv[3] ?? addr;

// A transport that balances calls over every address `hostPort` resolves
// to. Connect's node transport keeps one HTTP/2 connection to one address
// and has no name resolver, load balancer or retry policy, so it cannot
// balance over a headless Service itself (gRPC's Go and Python channels can:
// see k8s/grpc-service-config.json). This opens one connection per address
// and sends each call to the next one; a unary call of a method without
// side effects (`idempotency_level = NO_SIDE_EFFECTS`) that fails with
// UNAVAILABLE is retried on the next address, with the attempts and
// backoff of the service config. Streams are not retried: once messages
// flowed, the caller reopens the stream and resends what was not answered.
// The addresses are resolved once: a long-lived client resolves again from
// time to time (the pods end each connection after
// DAMONE_MAX_CONNECTION_AGE) to reach new pods. An L7 proxy (Envoy,
// Linkerd) in front of damone-rules:9090 balances per call instead; then a
// plain transport to the proxy will do.
async function balancedTransport(hostPort: string): Promise<{ transport: Transport; close: () => void }> {
  const url = new URL(`http://${hostPort}`);
  const found = await lookup(url.hostname.replace(/^\[|\]$/g, ""), { all: true });
  const urls = found.map(({ address, family }) => `http://${family === 6 ? `[${address}]` : address}:${url.port}`);
  const sessions = urls.map((u) => new Http2SessionManager(u));
  const transports = urls.map((u, i) => createGrpcTransport({ baseUrl: u, sessionManager: sessions[i] }));
  let next = 0;
  const pick = () => transports[next++ % transports.length];
  const transport: Transport = {
    async unary(method, signal, timeoutMs, header, input, contextValues) {
      const retryable = method.idempotency === MethodOptions_IdempotencyLevel.NO_SIDE_EFFECTS;
      for (let attempt = 1, backoffMs = 50; ; attempt++, backoffMs = Math.min(2 * backoffMs, 1000)) {
        try {
          return await pick().unary(method, signal, timeoutMs, header, input, contextValues);
        } catch (err) {
          if (!retryable || attempt >= 4 || ConnectError.from(err).code !== Code.Unavailable) throw err;
          await sleep(Math.random() * backoffMs); // jittered, as gRPC's retries are
        }
      }
    },
    stream(method, signal, timeoutMs, header, input, contextValues) {
      return pick().stream(method, signal, timeoutMs, header, input, contextValues);
    },
  };
  return { transport, close: () => sessions.forEach((s) => s.abort()) };
}

// 1. Connect (plaintext here): one HTTP/2 connection for games, one per
// rules replica, one client per service.
const baseUrl = `http://${addr}`;
const session = new Http2SessionManager(baseUrl);
const transport = createGrpcTransport({ baseUrl, sessionManager: session });
const games = createClient(GameService, transport);
const rulesFleet = await balancedTransport(rulesAddr);
const rules = createClient(RulesService, rulesFleet.transport);

// Moves need the acting side's token as `authorization: Bearer <token>`.
const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

// Sends a GameService write with a new request id, and sends it again, with
// the same id, after an answer that leaves its outcome unknown (UNAVAILABLE,
// DEADLINE_EXCEEDED): a replay returns the first call's response and changes
// nothing twice. Every other error is final. A CreateGame id unlocks the
// tokens: never log it.
async function write<T>(send: (requestId: string) => Promise<T>, attempts = 4): Promise<T> {
  const requestId = randomUUID();
  for (let attempt = 1, backoffMs = 100; ; attempt++, backoffMs *= 2) {
    try {
      return await send(requestId);
    } catch (err) {
      const code = ConnectError.from(err).code;
      if (attempt >= attempts || (code !== Code.Unavailable && code !== Code.DeadlineExceeded)) throw err;
      await sleep(Math.random() * backoffMs);
    }
  }
}
const deadline = { timeoutMs: 5000 };

// 2. Create a game (the standard setup). The two tokens are returned once.
const variant = create(VariantSchema, {}); // all defaults
const { game, redToken, blackToken } = await write((requestId) => games.createGame({ game: { variant }, requestId }, deadline));
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
  const res = await write((requestId) => games.makeMove({ name: game.name, move, requestId }, { ...bearer(token), ...deadline }));
  position = res.game?.position;
  console.log(`played ${move} (event #${res.eventSequence})`);
}

// 6. Black resigns: the game ends and so does the stream.
const { game: ended } = await write((requestId) => games.resign({ name: game.name, requestId }, { ...bearer(blackToken), ...deadline }));
await watching;
const outcome = ended?.outcome;
if (outcome) console.log(`result: ${OutcomeResult[outcome.result]} by ${OutcomeReason[outcome.reason]}`);

// 7. Validate a game played elsewhere: an illegal game is an answer, not an
// error. At ply 3 Red must capture d3xb5 (RULES.md, Captures).
const verdict = await rules.validateGame({ moves: ["e2-d3", "b5-c4", "f3-e4"] });
if (verdict.valid || verdict.firstIllegalPly !== 3) throw new Error(`unexpected verdict: ${JSON.stringify(verdict)}`);
console.log(
  `validated: ply ${verdict.firstIllegalPly} ${verdict.illegalMove} is ${verdict.reason} (${verdict.cause}); ` +
    `legal plies: ${verdict.moves.join(" ")}`,
);
session.abort(); // close the connections, so that node exits
rulesFleet.close();
