// Runs the language-neutral interop cases (clients/interop/cases.json)
// against a damone server over gRPC, with the generated C++ code in gen/cpp
// and Debian's libgrpc++, and prints PASS or FAIL for each case:
//
//   build/cpp/interop 127.0.0.1:9090 [CASES_FILE]   (scripts/interop builds it)
//
// A generic interpreter of the case file (clients/interop/README.md): a
// method is found by name in the pool of the generated messages, requests
// are read from proto3 JSON and answers compared as proto3 JSON. The JSON
// trees are google.protobuf.Value, read and written by protobuf's own JSON
// code. Calls go through the same gRPC entry points the generated stubs use
// (BlockingUnaryCall, ClientReader), with messages made from the generated
// classes. Exits 1 if any case failed.
#include <chrono>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <random>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <google/protobuf/descriptor.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/codegen/client_unary_call.h>
#include <grpcpp/impl/codegen/proto_utils.h>  // SerializationTraits of protobuf messages
#include <grpcpp/impl/codegen/sync_stream.h>

#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

using google::protobuf::Message;
using google::protobuf::Value;

namespace {

constexpr auto kTimeout = std::chrono::seconds(30);
const char* const kCodes[] = {"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
                              "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
                              "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"};

struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string ToText(const Message& m) {
  std::string out;
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  if (!google::protobuf::util::MessageToJsonString(m, &out, opts).ok()) throw Failure("cannot print " + m.GetTypeName());
  return out;
}

Value ToJson(const Message& m) {
  Value v;
  if (!google::protobuf::util::JsonStringToMessage(ToText(m), &v).ok()) throw Failure("cannot read back " + m.GetTypeName());
  return v;
}

std::string Show(const Value& v) { return ToText(v); }

bool IsDefault(const Value* v) {
  if (v == nullptr) return true;
  switch (v->kind_case()) {
    case Value::kNullValue: return true;
    case Value::kBoolValue: return !v->bool_value();
    case Value::kNumberValue: return v->number_value() == 0;
    case Value::kStringValue: return v->string_value().empty() || v->string_value() == "0";
    case Value::kListValue: return v->list_value().values_size() == 0;
    case Value::kStructValue: return v->struct_value().fields().empty();
    default: return true;
  }
}

const Value* Field(const Value& v, const std::string& key) {
  if (!v.has_struct_value()) return nullptr;
  auto it = v.struct_value().fields().find(key);
  return it == v.struct_value().fields().end() ? nullptr : &it->second;
}

std::string Str(const Value& step, const std::string& key) {
  const Value* v = Field(step, key);
  return v && v->has_string_value() ? v->string_value() : "";
}

struct StreamResult {
  std::vector<Value> messages;
  grpc::Status status;
};

class Runner {
 public:
  Runner(std::shared_ptr<grpc::Channel> channel, const std::string& run) : channel_(std::move(channel)) { vars_["run"] = run; }

  std::string Sub(const std::string& s) {
    static const std::regex ref(R"(\$\{([a-z0-9_]+)\})");
    std::string out;
    auto last = s.cbegin();
    for (std::sregex_iterator it(s.begin(), s.end(), ref), end; it != end; ++it) {
      auto found = vars_.find((*it)[1]);
      if (found == vars_.end()) throw Failure("no variable ${" + (*it)[1].str() + "}");
      out.append(last, (*it)[0].first).append(found->second);
      last = (*it)[0].second;
    }
    return out.append(last, s.cend());
  }

  Value Sub(const Value& v) {
    Value out = v;
    if (v.has_string_value()) out.set_string_value(Sub(v.string_value()));
    if (v.has_list_value()) {
      for (auto& e : *out.mutable_list_value()->mutable_values()) e = Sub(e);
    }
    if (v.has_struct_value()) {
      for (auto& [k, e] : *out.mutable_struct_value()->mutable_fields()) e = Sub(e);
    }
    return out;
  }

  struct Prepared {
    std::string path;
    std::unique_ptr<Message> request, response;
    std::unique_ptr<grpc::ClientContext> context;
  };

  Prepared Prepare(const Value& step) {
    std::string name = Str(step, "method");
    auto slash = name.find('/');
    const auto* method = slash == std::string::npos ? nullptr
        : google::protobuf::DescriptorPool::generated_pool()->FindMethodByName(name.substr(0, slash) + "." + name.substr(slash + 1));
    if (method == nullptr) throw Failure("no method " + name + " in the generated code");
    auto* factory = google::protobuf::MessageFactory::generated_factory();
    Prepared p{"/" + name, std::unique_ptr<Message>(factory->GetPrototype(method->input_type())->New()),
               std::unique_ptr<Message>(factory->GetPrototype(method->output_type())->New()), std::make_unique<grpc::ClientContext>()};
    const Value* req = Field(step, "request");
    std::string text = req ? ToText(Sub(*req)) : "{}";
    if (!google::protobuf::util::JsonStringToMessage(text, p.request.get()).ok()) throw Failure("request does not decode: " + text);
    if (const Value* md = Field(step, "metadata")) {
      for (const auto& [k, v] : md->struct_value().fields()) p.context->AddMetadata(k, Sub(v.string_value()));
    }
    p.context->set_deadline(std::chrono::system_clock::now() + kTimeout);
    return p;
  }

  StreamResult Stream(const Value& step) {
    Prepared p = Prepare(step);
    grpc::internal::RpcMethod method(p.path.c_str(), grpc::internal::RpcMethod::SERVER_STREAMING);
    std::unique_ptr<grpc::ClientReader<Message>> reader(
        grpc::internal::ClientReaderFactory<Message>::Create<Message>(channel_.get(), method, p.context.get(), *p.request));
    StreamResult r;
    while (reader->Read(p.response.get())) r.messages.push_back(ToJson(*p.response));
    r.status = reader->Finish();
    return r;
  }

  void Step(const Value& step) {
    std::string kind = Str(step, "kind");
    const Value* want = Field(step, "error");
    if (kind == "call") {
      Prepared p = Prepare(step);
      grpc::internal::RpcMethod method(p.path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
      grpc::Status st = grpc::internal::BlockingUnaryCall<Message, Message>(channel_.get(), method, p.context.get(), *p.request, p.response.get());
      if (!st.ok()) return CheckError(want, st);
      if (want) throw Failure("succeeded; want " + Str(*want, "code"));
      Value got = ToJson(*p.response);
      if (const Value* exp = Field(step, "expect")) Match(*exp, &got, "answer");
      if (const Value* save = Field(step, "save")) {
        for (const auto& [name, path] : save->struct_value().fields()) {
          const Value* v = &got;
          std::stringstream keys(path.string_value());
          for (std::string key; v && std::getline(keys, key, '.');) v = Field(*v, key);
          if (!v || !(v->has_string_value() || v->has_number_value())) throw Failure("save " + name + ": the answer has no " + path.string_value());
          vars_[name] = v->has_string_value() ? v->string_value() : std::to_string(static_cast<long long>(v->number_value()));
        }
      }
    } else if (kind == "stream") {
      CheckStream(step, Stream(step));
    } else if (kind == "start_stream") {
      streams_[Str(step, "id")] = std::async(std::launch::async, [this, step] { return Stream(step); });
    } else if (kind == "await_stream") {
      auto it = streams_.find(Str(step, "id"));
      if (it == streams_.end()) throw Failure("no stream \"" + Str(step, "id") + "\" was started");
      if (it->second.wait_for(kTimeout) != std::future_status::ready) throw Failure("stream did not end within 30 s");
      CheckStream(step, it->second.get());
    } else {
      throw Failure("unknown step kind \"" + kind + "\"");
    }
  }

  void CheckStream(const Value& step, const StreamResult& r) {
    const Value* want = Field(step, "error");
    if (!r.status.ok()) {
      try {
        CheckError(want, r.status);
      } catch (const Failure& f) {
        throw Failure("after " + std::to_string(r.messages.size()) + " messages: " + f.what());
      }
    } else if (want) {
      throw Failure("stream ended with OK after " + std::to_string(r.messages.size()) + " messages; want " + Str(*want, "code"));
    }
    Value got;
    for (const auto& m : r.messages) *got.mutable_list_value()->add_values() = m;
    got.mutable_list_value();
    if (const Value* exp = Field(step, "expect")) Match(*exp, &got, "messages");
  }

  void CheckError(const Value* want, const grpc::Status& st) {
    int n = st.error_code();
    std::string code = n >= 0 && n < 17 ? kCodes[n] : std::to_string(n);
    if (!want) throw Failure("failed: " + code + ": " + st.error_message());
    if (code != Str(*want, "code")) throw Failure("failed with " + code + " (" + st.error_message() + "); want " + Str(*want, "code"));
    if (!Field(*want, "reason")) return;
    google::rpc::Status status;
    status.ParseFromString(st.error_details());
    std::vector<google::rpc::ErrorInfo> infos;
    Value fields;
    fields.mutable_list_value();
    for (const auto& d : status.details()) {
      google::rpc::ErrorInfo info;
      google::rpc::BadRequest bad;
      if (d.UnpackTo(&info) && d.Is<google::rpc::ErrorInfo>()) infos.push_back(info);
      if (d.Is<google::rpc::BadRequest>() && d.UnpackTo(&bad)) {
        for (const auto& v : bad.field_violations()) fields.mutable_list_value()->add_values()->set_string_value(v.field());
      }
    }
    if (infos.size() != 1) throw Failure(std::to_string(infos.size()) + " ErrorInfo details; want 1");
    const auto& info = infos[0];
    std::string reason = Str(*want, "reason");
    if (info.domain() != "damone.v1" || info.reason() != reason) {
      throw Failure("ErrorInfo " + info.domain() + "/" + info.reason() + "; want damone.v1/" + reason);
    }
    if (const Value* md = Field(*want, "metadata")) {
      std::map<std::string, std::string> exp, got(info.metadata().begin(), info.metadata().end());
      for (const auto& [k, v] : md->struct_value().fields()) exp[k] = Sub(v.string_value());
      if (exp != got) {
        auto show = [](const std::map<std::string, std::string>& m) {
          std::string s = "{";
          for (const auto& [k, v] : m) s += k + ": " + v + ", ";
          return s + "}";
        };
        throw Failure("ErrorInfo metadata " + show(got) + "; want " + show(exp));
      }
    }
    if (const Value* fv = Field(*want, "field_violations")) {
      if (Show(*fv) != Show(fields)) throw Failure("BadRequest fields " + Show(fields) + "; want " + Show(*fv));
    }
  }

  // Fails where got (nullptr: absent) differs from want (clients/interop/README.md).
  void Match(const Value& want, const Value* got, const std::string& path) {
    if (want.has_string_value() && want.string_value() == "<set>") {
      if (IsDefault(got)) throw Failure(path + ": absent or default; want it set");
      return;
    }
    if (got == nullptr) {
      if (want.has_struct_value()) {
        for (const auto& [k, w] : want.struct_value().fields()) Match(w, nullptr, path + "." + k);
      } else if (!IsDefault(&want)) {
        throw Failure(path + ": absent; want " + Show(want));
      }
      return;
    }
    switch (want.kind_case()) {
      case Value::kStructValue:
        if (!got->has_struct_value()) throw Failure(path + ": " + Show(*got) + "; want an object");
        for (const auto& [k, w] : want.struct_value().fields()) Match(w, Field(*got, k), path + "." + k);
        return;
      case Value::kListValue: {
        const auto& w = want.list_value().values();
        if (!got->has_list_value() || got->list_value().values_size() != w.size()) {
          throw Failure(path + ": " + Show(*got) + "; want " + std::to_string(w.size()) + " elements " + Show(want));
        }
        for (int i = 0; i < w.size(); i++) Match(w[i], &got->list_value().values(i), path + "[" + std::to_string(i) + "]");
        return;
      }
      case Value::kNullValue:
        if (!IsDefault(got)) throw Failure(path + ": " + Show(*got) + "; want it unset");
        return;
      case Value::kStringValue: {
        std::string exp = Sub(want.string_value());
        if (!got->has_string_value() || got->string_value() != exp) throw Failure(path + ": " + Show(*got) + "; want \"" + exp + "\"");
        return;
      }
      default:
        if (Show(*got) != Show(want)) throw Failure(path + ": " + Show(*got) + "; want " + Show(want));
    }
  }

 private:
  std::shared_ptr<grpc::Channel> channel_;
  std::map<std::string, std::string> vars_;
  std::map<std::string, std::future<StreamResult>> streams_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: interop HOST:PORT [CASES_FILE]\n");
    return 2;
  }
  std::ifstream in(argc > 2 ? argv[2] : "clients/interop/cases.json");
  std::stringstream text;
  text << in.rdbuf();
  Value file;
  if (!in || !google::protobuf::util::JsonStringToMessage(text.str(), &file).ok()) {
    std::fprintf(stderr, "interop: cannot read the cases file\n");
    return 2;
  }
  std::random_device rd;
  char run[17];
  std::snprintf(run, sizeof run, "%08x%08x", rd(), rd());
  auto channel = grpc::CreateChannel(argv[1], grpc::InsecureChannelCredentials());
  const Value* cases = Field(file, "cases");
  int total = cases ? cases->list_value().values_size() : 0, failed = 0;
  for (int c = 0; c < total; c++) {
    const Value& kase = cases->list_value().values(c);
    Runner runner(channel, run);
    try {
      const auto& steps = Field(kase, "steps")->list_value().values();
      for (int i = 0; i < steps.size(); i++) {
        try {
          runner.Step(steps[i]);
        } catch (const std::exception& e) {
          throw Failure("step " + std::to_string(i + 1) + " (" + Str(steps[i], "kind") + " " + Str(steps[i], "method") + "): " + e.what());
        }
      }
      std::printf("PASS %s\n", Str(kase, "name").c_str());
    } catch (const Failure& f) {
      failed++;
      std::printf("FAIL %s: %s\n", Str(kase, "name").c_str(), f.what());
    }
  }
  std::printf("%d passed, %d failed\n", total - failed, failed);
  return failed > 0 || total == 0 ? 1 : 0;
}
