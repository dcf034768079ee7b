"""Runs the language-neutral interop cases (clients/interop/cases.json)
against a damone server over gRPC, with the generated Python code in
gen/python, and prints PASS or FAIL for each case:

    PYTHONPATH=gen/python /usr/bin/python3 clients/python/interop.py 127.0.0.1:9090 [CASES_FILE]

A generic interpreter of the case file (clients/interop/README.md): a method
is found by name in the descriptor pool of the generated messages, requests
are read from proto3 JSON and answers compared as proto3 JSON. Exits 1 if any
case failed.
"""

import json
import re
import secrets
import sys
import threading

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

from damone.v1 import analysis_service_pb2, game_service_pb2, rules_service_pb2  # noqa: F401 (registers them)
from google.rpc import error_details_pb2, status_pb2

TIMEOUT = 30  # seconds, for every call and stream
POOL = descriptor_pool.Default()


def add_health_service():
    """grpc.health.v1, which Debian's python3-grpcio does not ship: its two
    messages and one method, as health.proto declares them."""
    F = descriptor_pb2.FieldDescriptorProto
    f = descriptor_pb2.FileDescriptorProto(name="grpc/health/v1/health.proto", package="grpc.health.v1", syntax="proto3")
    f.message_type.add(name="HealthCheckRequest").field.add(
        name="service", json_name="service", number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    resp = f.message_type.add(name="HealthCheckResponse")
    status = resp.enum_type.add(name="ServingStatus")
    for number, name in enumerate(["UNKNOWN", "SERVING", "NOT_SERVING", "SERVICE_UNKNOWN"]):
        status.value.add(name=name, number=number)
    resp.field.add(name="status", json_name="status", number=1, type=F.TYPE_ENUM, label=F.LABEL_OPTIONAL,
                   type_name=".grpc.health.v1.HealthCheckResponse.ServingStatus")
    f.service.add(name="Health").method.add(name="Check", input_type=".grpc.health.v1.HealthCheckRequest",
                                            output_type=".grpc.health.v1.HealthCheckResponse")
    POOL.Add(f)


def message_class(desc):
    if hasattr(message_factory, "GetMessageClass"):
        return message_factory.GetMessageClass(desc)
    return message_factory.MessageFactory(POOL).GetPrototype(desc)


class Failure(Exception):
    pass


VAR = re.compile(r"\$\{([a-z0-9_]+)\}")


def is_default(v):
    return v is None or v is False or v == 0 or v in ("", "0") or v == [] or v == {}


class Runner:
    def __init__(self, channel, run):
        self.channel, self.vars, self.streams = channel, {"run": run}, {}

    def sub(self, v):
        if isinstance(v, str):
            def ref(m):
                if m.group(1) not in self.vars:
                    raise Failure(f"no variable ${{{m.group(1)}}}")
                return self.vars[m.group(1)]
            return VAR.sub(ref, v)
        if isinstance(v, list):
            return [self.sub(e) for e in v]
        if isinstance(v, dict):
            return {k: self.sub(e) for k, e in v.items()}
        return v

    def prepare(self, step):
        svc, _, name = step["method"].partition("/")
        try:
            method = POOL.FindServiceByName(svc).methods_by_name[name]
        except KeyError:
            raise Failure(f"no method {step['method']} in the generated code")
        req_cls, resp_cls = message_class(method.input_type), message_class(method.output_type)
        request = json_format.ParseDict(self.sub(step.get("request") or {}), req_cls())
        metadata = [(k, self.sub(v)) for k, v in (step.get("metadata") or {}).items()]
        ser = dict(request_serializer=req_cls.SerializeToString, response_deserializer=resp_cls.FromString)
        return "/" + step["method"], request, metadata, ser

    def stream(self, step):
        """(messages, error) of a server stream read to its end."""
        path, request, metadata, ser = self.prepare(step)
        messages = []
        try:
            for m in self.channel.unary_stream(path, **ser)(request, metadata=metadata, timeout=TIMEOUT):
                messages.append(to_json(m))
        except grpc.RpcError as err:
            return messages, err
        return messages, None

    def step(self, step):
        kind = step.get("kind")
        if kind == "call":
            path, request, metadata, ser = self.prepare(step)
            try:
                answer = self.channel.unary_unary(path, **ser)(request, metadata=metadata, timeout=TIMEOUT)
            except grpc.RpcError as err:
                return self.check_error(step.get("error"), err)
            if "error" in step:
                raise Failure(f"succeeded; want {step['error']['code']}")
            got = to_json(answer)
            if "expect" in step:
                self.match(step["expect"], got, True, "answer")
            for name, field in (step.get("save") or {}).items():
                v = got
                for key in field.split("."):
                    v = v.get(key) if isinstance(v, dict) else None
                if not isinstance(v, (str, int)):
                    raise Failure(f"save {name}: the answer has no {field}")
                self.vars[name] = str(v)
        elif kind == "stream":
            self.check_stream(step, *self.stream(step))
        elif kind == "start_stream":
            result = {}
            t = threading.Thread(target=lambda: result.update(r=self.stream(step)), daemon=True)
            t.start()
            self.streams[step["id"]] = (t, result)
        elif kind == "await_stream":
            if step.get("id") not in self.streams:
                raise Failure(f"no stream {step.get('id')!r} was started")
            t, result = self.streams[step["id"]]
            t.join(TIMEOUT)
            if t.is_alive():
                raise Failure(f"stream {step['id']!r} did not end within {TIMEOUT} s")
            self.check_stream(step, *result["r"])
        else:
            raise Failure(f"unknown step kind {kind!r}")

    def check_stream(self, step, messages, err):
        if err is not None:
            try:
                self.check_error(step.get("error"), err)
            except Failure as f:
                raise Failure(f"after {len(messages)} messages: {f}")
        elif "error" in step:
            raise Failure(f"stream ended with OK after {len(messages)} messages; want {step['error']['code']}")
        if "expect" in step:
            self.match(step["expect"], messages, True, "messages")

    def check_error(self, want, err):
        code = err.code().name
        if want is None:
            raise Failure(f"failed: {code}: {err.details()}")
        if code != want["code"]:
            raise Failure(f"failed with {code} ({err.details()}); want {want['code']}")
        if "reason" not in want:
            return
        status = status_pb2.Status()
        for key, value in err.trailing_metadata() or ():
            if key == "grpc-status-details-bin":
                status = status_pb2.Status.FromString(value)
        infos, fields = [], []
        for detail in status.details:
            info, bad = error_details_pb2.ErrorInfo(), error_details_pb2.BadRequest()
            if detail.Unpack(info):
                infos.append(info)
            elif detail.Unpack(bad):
                fields += [v.field for v in bad.field_violations]
        if len(infos) != 1:
            raise Failure(f"{len(infos)} ErrorInfo details; want 1")
        info = infos[0]
        if (info.domain, info.reason) != ("damone.v1", want["reason"]):
            raise Failure(f"ErrorInfo {info.domain}/{info.reason}; want damone.v1/{want['reason']}")
        if "metadata" in want and dict(info.metadata) != self.sub(want["metadata"]):
            raise Failure(f"ErrorInfo metadata {dict(info.metadata)}; want {self.sub(want['metadata'])}")
        if "field_violations" in want and fields != want["field_violations"]:
            raise Failure(f"BadRequest fields {fields}; want {want['field_violations']}")

    def match(self, want, got, present, path):
        """Fails where got differs from want (clients/interop/README.md)."""
        if want == "<set>":
            if not present or is_default(got):
                raise Failure(f"{path}: absent or default; want it set")
            return
        if not present:
            if isinstance(want, dict):
                for k, w in want.items():
                    self.match(w, None, False, f"{path}.{k}")
            elif not is_default(want):
                raise Failure(f"{path}: absent; want {want!r}")
            return
        if isinstance(want, dict):
            if not isinstance(got, dict):
                raise Failure(f"{path}: {got!r}; want an object")
            for k, w in want.items():
                self.match(w, got.get(k), k in got, f"{path}.{k}")
        elif isinstance(want, list):
            if not isinstance(got, list) or len(got) != len(want):
                raise Failure(f"{path}: {got!r}; want {len(want)} elements {want!r}")
            for i, (w, g) in enumerate(zip(want, got)):
                self.match(w, g, True, f"{path}[{i}]")
        elif want is None:
            if not is_default(got):
                raise Failure(f"{path}: {got!r}; want it unset")
        elif isinstance(want, str):
            if got != self.sub(want):
                raise Failure(f"{path}: {got!r}; want {self.sub(want)!r}")
        elif type(want) is bool or type(got) is bool:
            if want is not got:
                raise Failure(f"{path}: {got!r}; want {want!r}")
        elif got != want:
            raise Failure(f"{path}: {got!r}; want {want!r}")


def to_json(m):
    return json_format.MessageToDict(m, preserving_proto_field_name=True)


def main(addr, cases_file="clients/interop/cases.json"):
    add_health_service()
    with open(cases_file, encoding="utf-8") as f:
        cases = json.load(f)["cases"]
    run, failed = secrets.token_hex(8), 0
    with grpc.insecure_channel(addr) as channel:
        for case in cases:
            runner = Runner(channel, run)
            try:
                for i, step in enumerate(case["steps"], start=1):
                    try:
                        runner.step(step)
                    except Failure as f:
                        raise Failure(f"step {i} ({step.get('kind')} {step.get('method', '')}): {f}")
                print(f"PASS {case['name']}")
            except Failure as f:
                failed += 1
                print(f"FAIL {case['name']}: {f}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed or not cases else 0


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: interop.py HOST:PORT [CASES_FILE]")
    sys.exit(main(*sys.argv[1:]))
