// A client generated from the served OpenAPI 3 document: openapi-typescript
// makes the types (build/openapi-client/damone.ts), openapi-fetch the calls.
// It plays a short game against the server at DAMONE_HTTP (host:port) and
// exits non-zero on the first answer that is not what the API promises.
import createClient from "openapi-fetch";
import type { paths } from "../../build/openapi-client/damone.js";

const base = `http://${process.env.DAMONE_HTTP}`;
const spec = await (await fetch(`${base}/openapi/v3.json`)).json();
if (!String(spec.openapi).startsWith("3.0")) throw new Error(`served document is OpenAPI ${spec.openapi}`);

const api = createClient<paths>({ baseUrl: base });

function check(ok: boolean, what: string): asserts ok {
  if (!ok) throw new Error(what);
}

const created = await api.POST("/v1/games", { body: {} });
check(created.response.status === 200 && !!created.data?.game?.name, `CreateGame: ${created.response.status}`);
const game = created.data.game!.name!.replace(/^games\//, "");
const red = created.data.red_token!;

const legal = await api.POST("/v1/rules:listLegalMoves", {
  body: { position: { text: created.data.game!.position!.text } },
});
check(!!legal.data?.moves?.some((m) => m.notation === "e2-d3"), "ListLegalMoves: no e2-d3 at the start");

const moved = await api.POST("/v1/games/{game}:move", {
  params: { path: { game } },
  headers: { Authorization: `Bearer ${red}` },
  body: { move: "e2-d3" },
});
check(moved.response.status === 200 && moved.data?.game?.ply === 1, `MakeMove: ${moved.response.status}`);

// Without the token: the error body is a google.rpc.Status with its reason.
const refused = await api.POST("/v1/games/{game}:move", { params: { path: { game } }, body: { move: "b5-c4" } });
check(refused.response.status === 401, `MakeMove without a token: ${refused.response.status}`);
const info = refused.error?.details?.find((d) => d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo") as
  | { reason?: string }
  | undefined;
check(info?.reason === "MISSING_TOKEN", `MakeMove without a token: reason ${info?.reason}`);

const got = await api.GET("/v1/games/{game}", { params: { path: { game } } });
check(got.data?.ply === 1 && got.data?.last_event_sequence === "2", `GetGame: ply ${got.data?.ply}, last event ${got.data?.last_event_sequence}`);

console.log("openapi client: ok");
