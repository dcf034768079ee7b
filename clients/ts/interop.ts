// Runs the language-neutral interop cases (clients/interop/cases.json)
// against a damone server over gRPC, with the generated TypeScript code in
// gen/ts and Connect for node, and prints PASS or FAIL for each case:
//
//   npx tsc -p clients/ts
//   node build/ts/clients/ts/interop.js 127.0.0.1:9090 [CASES_FILE]
//
// A generic interpreter of the case file (clients/interop/README.md): a
// method is found by name in a registry of the generated descriptors,
// requests are read from proto3 JSON and answers compared as proto3 JSON.
// Exits 1 if any case failed.
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";

import { create, createFileRegistry, createRegistry, fromJson, toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import { FieldDescriptorProto_Label, FieldDescriptorProto_Type, FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { ConnectError, createClient } from "@connectrpc/connect";
import { Http2SessionManager, createGrpcTransport } from "@connectrpc/connect-node";

import { file_damone_v1_analysis_service } from "../../gen/ts/damone/v1/analysis_service_pb.js";
import { file_damone_v1_game_service } from "../../gen/ts/damone/v1/game_service_pb.js";
import { file_damone_v1_rules_service } from "../../gen/ts/damone/v1/rules_service_pb.js";
import { BadRequestSchema, ErrorInfoSchema } from "../../gen/ts/google/rpc/error_details_pb.js";

const TIMEOUT_MS = 30_000;
const CODES = ["OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"];

// grpc.health.v1, which no npm package of ours ships: its two messages and
// one method, as health.proto declares them.
const health = createFileRegistry(create(FileDescriptorProtoSchema, {
  name: "grpc/health/v1/health.proto", package: "grpc.health.v1", syntax: "proto3",
  messageType: [
    { name: "HealthCheckRequest", field: [{ name: "service", jsonName: "service", number: 1, type: FieldDescriptorProto_Type.STRING, label: FieldDescriptorProto_Label.OPTIONAL }] },
    { name: "HealthCheckResponse",
      field: [{ name: "status", jsonName: "status", number: 1, type: FieldDescriptorProto_Type.ENUM, label: FieldDescriptorProto_Label.OPTIONAL,
                typeName: ".grpc.health.v1.HealthCheckResponse.ServingStatus" }],
      enumType: [{ name: "ServingStatus", value: ["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"].map((name, number) => ({ name, number })) }] },
  ],
  service: [{ name: "Health", method: [{ name: "Check", inputType: ".grpc.health.v1.HealthCheckRequest", outputType: ".grpc.health.v1.HealthCheckResponse" }] }],
}), () => undefined);
const registry = createRegistry(file_damone_v1_rules_service, file_damone_v1_game_service, file_damone_v1_analysis_service, health);

// Case files and answers are plain JSON trees, walked generically.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;
type Obj = { [k: string]: Json };
interface WantError { code: string; reason?: string; metadata?: Record<string, string>; field_violations?: string[] }
interface Step { kind: string; id?: string; method?: string; request?: Obj; metadata?: Record<string, string>;
  save?: Record<string, string>; expect?: Json; error?: WantError }

class Failure extends Error {}
const isDefault = (v: Json) => v === undefined || v === null || v === false || v === 0 || v === "" || v === "0" ||
  (Array.isArray(v) && v.length === 0) || (typeof v === "object" && v !== null && !Array.isArray(v) && Object.keys(v).length === 0);
const show = (v: Json) => JSON.stringify(v);

class Runner {
  vars: Record<string, string>;
  streams = new Map<string, Promise<[Json[], unknown]>>();
  constructor(private transport: ReturnType<typeof createGrpcTransport>, run: string) { this.vars = { run }; }

  sub<T extends Json>(v: T): T {
    if (typeof v === "string") {
      return v.replace(/\$\{([a-z0-9_]+)\}/g, (_, name: string) => {
        if (!(name in this.vars)) throw new Failure(`no variable \${${name}}`);
        return this.vars[name];
      }) as T;
    }
    if (Array.isArray(v)) return v.map((e) => this.sub(e)) as T;
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, e]) => [k, this.sub(e)])) as T;
    return v;
  }

  prepare(step: Step) {
    const [svc, name] = (step.method ?? "").split("/");
    const method: DescMethod | undefined = registry.getService(svc ?? "")?.methods.find((m) => m.name === name);
    if (!method) throw new Failure(`no method ${step.method} in the generated code`);
    const client = createClient(method.parent, this.transport) as unknown as Record<string, (req: unknown, opts: unknown) => Json>;
    const request = fromJson(method.input, this.sub(step.request ?? {}) as JsonValue);
    const headers = Object.fromEntries(Object.entries(step.metadata ?? {}).map(([k, v]) => [k, this.sub(v)]));
    return { method, call: client[method.localName].bind(client), request, options: { headers, timeoutMs: TIMEOUT_MS } };
  }

  async stream(step: Step): Promise<[Json[], unknown]> {
    const { method, call, request, options } = this.prepare(step);
    const messages: Json[] = [];
    try {
      for await (const m of call(request, options)) messages.push(toJson(method.output, m, { useProtoFieldName: true }));
    } catch (err) {
      return [messages, err];
    }
    return [messages, undefined];
  }

  async step(step: Step) {
    switch (step.kind) {
      case "call": {
        const { method, call, request, options } = this.prepare(step);
        let answer;
        try {
          answer = await call(request, options);
        } catch (err) {
          return this.checkError(step.error, err);
        }
        if (step.error) throw new Failure(`succeeded; want ${step.error.code}`);
        const got = toJson(method.output, answer, { useProtoFieldName: true });
        if (step.expect !== undefined) this.match(step.expect, got, true, "answer");
        for (const [name, path] of Object.entries(step.save ?? {})) {
          let v: Json = got;
          for (const key of path.split(".")) v = v && typeof v === "object" && !Array.isArray(v) ? (v as Obj)[key] : undefined;
          if (typeof v !== "string" && typeof v !== "number") throw new Failure(`save ${name}: the answer has no ${path}`);
          this.vars[name] = String(v);
        }
        return;
      }
      case "stream":
        return this.checkStream(step, ...(await this.stream(step)));
      case "start_stream":
        this.streams.set(step.id ?? "", this.stream(step));
        return;
      case "await_stream": {
        const pending = this.streams.get(step.id ?? "");
        if (!pending) throw new Failure(`no stream ${show(step.id)} was started`);
        return this.checkStream(step, ...(await pending));
      }
      default:
        throw new Failure(`unknown step kind ${show(step.kind)}`);
    }
  }

  checkStream(step: Step, messages: Json[], err: unknown) {
    if (err !== undefined) {
      try {
        this.checkError(step.error, err);
      } catch (f) {
        throw new Failure(`after ${messages.length} messages: ${(f as Error).message}`);
      }
    } else if (step.error) {
      throw new Failure(`stream ended with OK after ${messages.length} messages; want ${step.error.code}`);
    }
    if (step.expect !== undefined) this.match(step.expect, messages, true, "messages");
  }

  checkError(want: WantError | undefined, err: unknown) {
    const e = ConnectError.from(err);
    const code = CODES[e.code] ?? String(e.code);
    if (!want) throw new Failure(`failed: ${code}: ${e.rawMessage}`);
    if (code !== want.code) throw new Failure(`failed with ${code} (${e.rawMessage}); want ${want.code}`);
    if (want.reason === undefined) return;
    const infos = e.findDetails(ErrorInfoSchema);
    const fields = e.findDetails(BadRequestSchema).flatMap((b) => b.fieldViolations.map((v) => v.field));
    if (infos.length !== 1) throw new Failure(`${infos.length} ErrorInfo details; want 1`);
    const [info] = infos;
    if (info.domain !== "damone.v1" || info.reason !== want.reason) {
      throw new Failure(`ErrorInfo ${info.domain}/${info.reason}; want damone.v1/${want.reason}`);
    }
    if (want.metadata) {
      const exp = this.sub(want.metadata as Obj);
      const sorted = (m: Obj) => show(Object.fromEntries(Object.entries(m).sort()));
      if (sorted(info.metadata) !== sorted(exp)) throw new Failure(`ErrorInfo metadata ${show(info.metadata)}; want ${show(exp)}`);
    }
    if (want.field_violations && show(fields) !== show(want.field_violations)) {
      throw new Failure(`BadRequest fields ${show(fields)}; want ${show(want.field_violations)}`);
    }
  }

  // Fails where got differs from want (clients/interop/README.md).
  match(want: Json, got: Json, present: boolean, path: string): void {
    if (want === "<set>") {
      if (!present || isDefault(got)) throw new Failure(`${path}: absent or default; want it set`);
      return;
    }
    if (!present) {
      if (want && typeof want === "object" && !Array.isArray(want)) {
        for (const [k, w] of Object.entries(want)) this.match(w, undefined, false, `${path}.${k}`);
      } else if (!isDefault(want)) {
        throw new Failure(`${path}: absent; want ${show(want)}`);
      }
      return;
    }
    if (Array.isArray(want)) {
      if (!Array.isArray(got) || got.length !== want.length) throw new Failure(`${path}: ${show(got)}; want ${want.length} elements ${show(want)}`);
      want.forEach((w, i) => this.match(w, got[i], true, `${path}[${i}]`));
    } else if (want && typeof want === "object") {
      if (!got || typeof got !== "object" || Array.isArray(got)) throw new Failure(`${path}: ${show(got)}; want an object`);
      for (const [k, w] of Object.entries(want)) this.match(w, (got as Obj)[k], k in got, `${path}.${k}`);
    } else if (want === null) {
      if (!isDefault(got)) throw new Failure(`${path}: ${show(got)}; want it unset`);
    } else if (this.sub(want) !== got) {
      throw new Failure(`${path}: ${show(got)}; want ${show(this.sub(want))}`);
    }
  }
}

const [addr, casesFile = "clients/interop/cases.json"] = process.argv.slice(2);
if (!addr) {
  console.error("usage: interop.js HOST:PORT [CASES_FILE]");
  process.exit(2);
}
const { cases } = JSON.parse(readFileSync(casesFile, "utf8")) as { cases: { name: string; steps: Step[] }[] };
const session = new Http2SessionManager(`http://${addr}`);
const transport = createGrpcTransport({ baseUrl: `http://${addr}`, sessionManager: session });
const run = randomBytes(8).toString("hex");
let failed = 0;
for (const c of cases) {
  const runner = new Runner(transport, run);
  try {
    for (const [i, step] of c.steps.entries()) {
      try {
        await runner.step(step);
      } catch (f) {
        if (!(f instanceof Failure)) throw f;
        throw new Failure(`step ${i + 1} (${step.kind} ${step.method ?? ""}): ${f.message}`);
      }
    }
    console.log(`PASS ${c.name}`);
  } catch (f) {
    failed++;
    console.log(`FAIL ${c.name}: ${(f as Error).message}`);
  }
}
console.log(`${cases.length - failed} passed, ${failed} failed`);
session.abort();
process.exitCode = failed || !cases.length ? 1 : 0;
