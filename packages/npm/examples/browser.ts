// A damone client in a browser, with @damone/client and Connect's web
// transport (bundle it with any ES-module bundler):
//
//   npm install @damone/client @bufbuild/protobuf@^2.17.0 @connectrpc/connect@^2.1.1 @connectrpc/connect-web@^2.1.1
//
// Browsers cannot speak gRPC over HTTP/2 themselves: this needs a server (or
// a proxy in front of it) that speaks the Connect or gRPC-Web protocol, which
// `damone serve` does not yet do. Until then, call the REST gateway
// (docs/api.md) from a browser. The calls are the same as on Node
// (examples/node.ts); only the transport differs.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-web";
import { RulesService } from "@damone/client";

export async function legalMoves(baseUrl: string, grpcWeb = false): Promise<string[]> {
  const transport = grpcWeb ? createGrpcWebTransport({ baseUrl }) : createConnectTransport({ baseUrl });
  const rules = createClient(RulesService, transport);
  const { moves } = await rules.listLegalMoves({});
  return moves.map((m) => m.notation);
}
