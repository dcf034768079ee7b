// Runs the language-neutral interop cases (clients/interop/cases.json)
// against a damone server over gRPC, with the generated Java code in
// gen/java and Debian's grpc-java, and prints PASS or FAIL for each case
// (scripts/interop builds it with javac and Debian's jars; clients/java/README
// in docs/clients.md gives the classpath):
//
//   java -cp CLASSPATH Interop 127.0.0.1:9090 [CASES_FILE]
//
// A generic interpreter of the case file (clients/interop/README.md): a
// method is found by name among the generated service descriptors, requests
// are read from proto3 JSON and answers compared as proto3 JSON. Exits 1 if
// any case failed.
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import com.google.protobuf.Any;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServiceDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class Interop {
  static final long TIMEOUT_SECONDS = 30;
  static final List<ServiceDescriptor> SERVICES = List.of(damone.v1.RulesServiceGrpc.getServiceDescriptor(),
      damone.v1.GameServiceGrpc.getServiceDescriptor(), damone.v1.AnalysisServiceGrpc.getServiceDescriptor(),
      io.grpc.health.v1.HealthGrpc.getServiceDescriptor());
  static final Pattern VAR = Pattern.compile("\\$\\{([a-z0-9_]+)\\}");

  static final class Failure extends Exception {
    Failure(String message) {
      super(message);
    }
  }

  record Result(List<JsonElement> messages, StatusRuntimeException error) {}

  private final ManagedChannel channel;
  private final Map<String, String> vars = new HashMap<>();
  private final Map<String, CompletableFuture<Result>> streams = new HashMap<>();

  Interop(ManagedChannel channel, String run) {
    this.channel = channel;
    vars.put("run", run);
  }

  String sub(String s) throws Failure {
    Matcher m = VAR.matcher(s);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String v = vars.get(m.group(1));
      if (v == null) throw new Failure("no variable ${" + m.group(1) + "}");
      m.appendReplacement(out, Matcher.quoteReplacement(v));
    }
    return m.appendTail(out).toString();
  }

  JsonElement sub(JsonElement v) throws Failure {
    if (v.isJsonPrimitive() && v.getAsJsonPrimitive().isString()) return new JsonPrimitive(sub(v.getAsString()));
    if (v.isJsonArray()) {
      JsonArray out = new JsonArray();
      for (JsonElement e : v.getAsJsonArray()) out.add(sub(e));
      return out;
    }
    if (v.isJsonObject()) {
      JsonObject out = new JsonObject();
      for (Map.Entry<String, JsonElement> e : v.getAsJsonObject().entrySet()) out.add(e.getKey(), sub(e.getValue()));
      return out;
    }
    return v;
  }

  /** A call of the step's method: its descriptor, request and channel with the step's metadata. */
  record Prepared(MethodDescriptor<Message, Message> method, Message request, Channel channel, CallOptions options) {}

  @SuppressWarnings("unchecked")
  Prepared prepare(JsonObject step) throws Exception {
    String name = step.has("method") ? step.get("method").getAsString() : "";
    MethodDescriptor<Message, Message> method = null;
    for (ServiceDescriptor sd : SERVICES) {
      for (MethodDescriptor<?, ?> md : sd.getMethods()) {
        if (md.getFullMethodName().equals(name)) method = (MethodDescriptor<Message, Message>) md;
      }
    }
    if (method == null) throw new Failure("no method " + name + " in the generated code");
    Message prototype = ((MethodDescriptor.PrototypeMarshaller<Message>) method.getRequestMarshaller()).getMessagePrototype();
    Message.Builder request = prototype.newBuilderForType();
    JsonFormat.parser().merge(sub(step.has("request") ? step.get("request") : new JsonObject()).toString(), request);
    Metadata headers = new Metadata();
    if (step.has("metadata")) {
      for (Map.Entry<String, JsonElement> e : step.getAsJsonObject("metadata").entrySet()) {
        headers.put(Metadata.Key.of(e.getKey(), Metadata.ASCII_STRING_MARSHALLER), sub(e.getValue().getAsString()));
      }
    }
    Channel ch = ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers));
    return new Prepared(method, request.build(), ch, CallOptions.DEFAULT.withDeadlineAfter(TIMEOUT_SECONDS, TimeUnit.SECONDS));
  }

  static JsonElement toJson(Message m) throws Exception {
    return JsonParser.parseString(JsonFormat.printer().preservingProtoFieldNames().print(m));
  }

  Result stream(JsonObject step) throws Exception {
    Prepared p = prepare(step);
    List<JsonElement> messages = new ArrayList<>();
    try {
      Iterator<Message> it = ClientCalls.blockingServerStreamingCall(p.channel(), p.method(), p.options(), p.request());
      while (it.hasNext()) messages.add(toJson(it.next()));
    } catch (StatusRuntimeException e) {
      return new Result(messages, e);
    }
    return new Result(messages, null);
  }

  void step(JsonObject step) throws Exception {
    String kind = step.has("kind") ? step.get("kind").getAsString() : "";
    JsonObject want = step.has("error") ? step.getAsJsonObject("error") : null;
    switch (kind) {
      case "call" -> {
        Prepared p = prepare(step);
        Message answer;
        try {
          answer = ClientCalls.blockingUnaryCall(p.channel(), p.method(), p.options(), p.request());
        } catch (StatusRuntimeException e) {
          checkError(want, e);
          return;
        }
        if (want != null) throw new Failure("succeeded; want " + want.get("code").getAsString());
        JsonElement got = toJson(answer);
        if (step.has("expect")) match(step.get("expect"), got, true, "answer");
        if (step.has("save")) {
          for (Map.Entry<String, JsonElement> e : step.getAsJsonObject("save").entrySet()) {
            JsonElement v = got;
            for (String key : e.getValue().getAsString().split("\\.")) {
              v = v != null && v.isJsonObject() ? v.getAsJsonObject().get(key) : null;
            }
            if (v == null || !v.isJsonPrimitive()) throw new Failure("save " + e.getKey() + ": the answer has no " + e.getValue());
            vars.put(e.getKey(), v.getAsString());
          }
        }
      }
      case "stream" -> checkStream(step, stream(step));
      case "start_stream" -> {
        CompletableFuture<Result> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
          try {
            f.complete(stream(step));
          } catch (Exception e) {
            f.completeExceptionally(e);
          }
        });
        t.setDaemon(true);
        t.start();
        streams.put(step.get("id").getAsString(), f);
      }
      case "await_stream" -> {
        CompletableFuture<Result> f = streams.get(step.has("id") ? step.get("id").getAsString() : "");
        if (f == null) throw new Failure("no stream " + step.get("id") + " was started");
        checkStream(step, f.get(TIMEOUT_SECONDS, TimeUnit.SECONDS));
      }
      default -> throw new Failure("unknown step kind \"" + kind + "\"");
    }
  }

  void checkStream(JsonObject step, Result r) throws Exception {
    JsonObject want = step.has("error") ? step.getAsJsonObject("error") : null;
    if (r.error() != null) {
      try {
        checkError(want, r.error());
      } catch (Failure f) {
        throw new Failure("after " + r.messages().size() + " messages: " + f.getMessage());
      }
    } else if (want != null) {
      throw new Failure("stream ended with OK after " + r.messages().size() + " messages; want " + want.get("code").getAsString());
    }
    JsonArray got = new JsonArray();
    r.messages().forEach(got::add);
    if (step.has("expect")) match(step.get("expect"), got, true, "messages");
  }

  void checkError(JsonObject want, StatusRuntimeException e) throws Exception {
    String code = e.getStatus().getCode().name();
    if (want == null) throw new Failure("failed: " + code + ": " + e.getStatus().getDescription());
    if (!code.equals(want.get("code").getAsString())) {
      throw new Failure("failed with " + code + " (" + e.getStatus().getDescription() + "); want " + want.get("code").getAsString());
    }
    if (!want.has("reason")) return;
    com.google.rpc.Status status = StatusProto.fromThrowable(e);
    List<ErrorInfo> infos = new ArrayList<>();
    List<String> fields = new ArrayList<>();
    for (Any d : status == null ? List.<Any>of() : status.getDetailsList()) {
      if (d.is(ErrorInfo.class)) infos.add(d.unpack(ErrorInfo.class));
      if (d.is(BadRequest.class)) d.unpack(BadRequest.class).getFieldViolationsList().forEach(v -> fields.add(v.getField()));
    }
    if (infos.size() != 1) throw new Failure(infos.size() + " ErrorInfo details; want 1");
    ErrorInfo info = infos.get(0);
    String reason = want.get("reason").getAsString();
    if (!info.getDomain().equals("damone.v1") || !info.getReason().equals(reason)) {
      throw new Failure("ErrorInfo " + info.getDomain() + "/" + info.getReason() + "; want damone.v1/" + reason);
    }
    if (want.has("metadata")) {
      Map<String, String> exp = new TreeMap<>();
      for (Map.Entry<String, JsonElement> m : want.getAsJsonObject("metadata").entrySet()) exp.put(m.getKey(), sub(m.getValue().getAsString()));
      if (!exp.equals(new TreeMap<>(info.getMetadataMap()))) {
        throw new Failure("ErrorInfo metadata " + new TreeMap<>(info.getMetadataMap()) + "; want " + exp);
      }
    }
    if (want.has("field_violations")) {
      List<String> exp = new ArrayList<>();
      want.getAsJsonArray("field_violations").forEach(f -> exp.add(f.getAsString()));
      if (!exp.equals(fields)) throw new Failure("BadRequest fields " + fields + "; want " + exp);
    }
  }

  static boolean isDefault(JsonElement v) {
    if (v == null || v.isJsonNull()) return true;
    if (v.isJsonArray()) return v.getAsJsonArray().isEmpty();
    if (v.isJsonObject()) return v.getAsJsonObject().size() == 0;
    JsonPrimitive p = v.getAsJsonPrimitive();
    if (p.isBoolean()) return !p.getAsBoolean();
    if (p.isNumber()) return p.getAsDouble() == 0;
    return p.getAsString().isEmpty() || p.getAsString().equals("0");
  }

  /** Fails where got differs from want (clients/interop/README.md). */
  void match(JsonElement want, JsonElement got, boolean present, String path) throws Failure {
    if (want.isJsonPrimitive() && want.getAsJsonPrimitive().isString() && want.getAsString().equals("<set>")) {
      if (!present || isDefault(got)) throw new Failure(path + ": absent or default; want it set");
      return;
    }
    if (!present) {
      if (want.isJsonObject()) {
        for (Map.Entry<String, JsonElement> e : want.getAsJsonObject().entrySet()) match(e.getValue(), null, false, path + "." + e.getKey());
      } else if (!isDefault(want)) {
        throw new Failure(path + ": absent; want " + want);
      }
      return;
    }
    if (want.isJsonObject()) {
      if (!got.isJsonObject()) throw new Failure(path + ": " + got + "; want an object");
      JsonObject g = got.getAsJsonObject();
      for (Map.Entry<String, JsonElement> e : want.getAsJsonObject().entrySet()) {
        match(e.getValue(), g.get(e.getKey()), g.has(e.getKey()), path + "." + e.getKey());
      }
    } else if (want.isJsonArray()) {
      JsonArray w = want.getAsJsonArray();
      if (!got.isJsonArray() || got.getAsJsonArray().size() != w.size()) throw new Failure(path + ": " + got + "; want " + w.size() + " elements " + w);
      for (int i = 0; i < w.size(); i++) match(w.get(i), got.getAsJsonArray().get(i), true, path + "[" + i + "]");
    } else if (want.isJsonNull()) {
      if (!isDefault(got)) throw new Failure(path + ": " + got + "; want it unset");
    } else {
      JsonPrimitive w = want.getAsJsonPrimitive();
      boolean same = got.isJsonPrimitive() && (w.isString() ? got.getAsJsonPrimitive().isString() && got.getAsString().equals(sub(w.getAsString()))
          : w.isNumber() ? got.getAsJsonPrimitive().isNumber() && got.getAsDouble() == w.getAsDouble()
          : got.getAsJsonPrimitive().isBoolean() && got.getAsBoolean() == w.getAsBoolean());
      if (!same) throw new Failure(path + ": " + got + "; want " + (w.isString() ? "\"" + sub(w.getAsString()) + "\"" : w));
    }
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 2) {
      System.err.println("usage: Interop HOST:PORT [CASES_FILE]");
      System.exit(2);
    }
    JsonArray cases = JsonParser.parseString(Files.readString(Path.of(args.length > 1 ? args[1] : "clients/interop/cases.json")))
        .getAsJsonObject().getAsJsonArray("cases");
    byte[] run = new byte[8];
    new SecureRandom().nextBytes(run);
    ManagedChannel channel = ManagedChannelBuilder.forTarget(args[0]).usePlaintext().build();
    int failed = 0;
    for (JsonElement c : cases) {
      JsonObject kase = c.getAsJsonObject();
      String name = kase.get("name").getAsString();
      Interop runner = new Interop(channel, HexFormat.of().formatHex(run));
      try {
        JsonArray steps = kase.getAsJsonArray("steps");
        for (int i = 0; i < steps.size(); i++) {
          JsonObject s = steps.get(i).getAsJsonObject();
          try {
            runner.step(s);
          } catch (Exception e) {
            String msg = e instanceof Failure ? e.getMessage() : e.toString();
            throw new Failure("step " + (i + 1) + " (" + s.get("kind") + " " + (s.has("method") ? s.get("method").getAsString() : "") + "): " + msg);
          }
        }
        System.out.println("PASS " + name);
      } catch (Failure f) {
        failed++;
        System.out.println("FAIL " + name + ": " + f.getMessage());
      }
    }
    System.out.println((cases.size() - failed) + " passed, " + failed + " failed");
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    System.exit(failed > 0 || cases.isEmpty() ? 1 : 0);
  }
}
