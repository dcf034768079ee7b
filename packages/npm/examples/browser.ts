// A damone client in a browser, with @damone/client and Connect's web
// transport (bundle it with any ES-module bundler):
//
//   npm install @damone/client @bufbuild/protobuf@^2.17.0 @connectrpc/connect@^2.1.1 @connectrpc/connect-web@^2.1.1
//
// baseUrl is damone's HTTP port (e.g. http://localhost:8080, or the page's
// own origin behind a proxy), which speaks Connect and gRPC-Web beside REST;
// a page of another origin needs `damone serve --cors-origins ORIGIN`. The
// calls are the same as on Node (examples/node.ts); only the transport
// differs.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { RulesService } from "@damone/client";

export async function legalMoves(baseUrl: string, grpcWeb = false): Promise<string[]> {
  const transport = grpcWeb ? createGrpcWebTransport({ baseUrl }) : createConnectTransport({ baseUrl });
  const rules = createClient(RulesService, transport);
  const { moves } = await rules.listLegalMoves({});
  return moves.map((m) => m.notation);
}
