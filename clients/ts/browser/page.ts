// A browser page's use of the damone API with Connect's web transport, over
// Connect or gRPC-Web on damone's HTTP port: the test page of
// cmd/damone/connectweb_browser_e2e_test.go, which bundles it with esbuild
// and runs it in headless Chromium. Its query string gives the server
// (api=http://host:port), the protocol (protocol=connect or grpc-web) and a
// game to watch (game=games/..., until=the sequence to watch up to); what
// it saw goes to window.damoneResult, as JSON, for the test to read.
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { GameService } from "../../../gen/ts/damone/v1/game_service_pb.js";
import { RulesService } from "../../../gen/ts/damone/v1/rules_service_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../../gen/ts/google/rpc/error_details_pb.js";

interface Result {
  pieces?: number; // of the initial position (unary call)
  moves?: string[]; // moves the watch received, in order
  sequences?: number[]; // their events' sequences
  error?: { code: string; reason: string; field: string }; // a refusal's details
  failure?: string; // what went wrong, if anything did
  done?: boolean;
}

declare global {
  interface Window {
    damoneResult?: string;
    damoneProgress?: string;
  }
}

async function run(): Promise<Result> {
  const q = new URLSearchParams(location.search);
  const baseUrl = q.get("api") ?? location.origin;
  const transport = q.get("protocol") === "grpc-web" ? createGrpcWebTransport({ baseUrl }) : createConnectTransport({ baseUrl });
  const rules = createClient(RulesService, transport);
  const games = createClient(GameService, transport);
  const out: Result = {};

  // A unary call.
  const { position } = await rules.getInitialPosition({});
  out.pieces = position?.pieces.length;

  // A refusal: the client reads its ErrorInfo and BadRequest details.
  try {
    await rules.listLegalMoves({ position: { text: "not a position" } });
    out.failure = "listLegalMoves of a bad position was served";
  } catch (e) {
    const err = ConnectError.from(e);
    const [info] = err.findDetails(ErrorInfoSchema);
    const [bad] = err.findDetails(BadRequestSchema);
    out.error = { code: Code[err.code], reason: info?.reason ?? "", field: bad?.fieldViolations[0]?.field ?? "" };
  }

  // A watch that receives moves as they are played (by the test, once the
  // page says it is watching); it stops at sequence `until`.
  const name = q.get("game");
  if (name) {
    const until = BigInt(q.get("until") ?? "0");
    const abort = new AbortController();
    out.moves = [];
    out.sequences = [];
    for await (const ev of games.watchGame({ name }, { signal: abort.signal })) {
      out.sequences.push(Number(ev.sequence));
      if (ev.event.case === "movePlayed") {
        out.moves.push(ev.event.value.move?.notation ?? "");
      }
      window.damoneProgress = JSON.stringify(out);
      if (ev.sequence >= until) {
        abort.abort();
        break;
      }
    }
  }
  out.done = true;
  return out;
}

run().then(
  (r) => (window.damoneResult = JSON.stringify(r)),
  (e) => (window.damoneResult = JSON.stringify({ failure: String(e) })),
);
