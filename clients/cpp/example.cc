// A damone client in C++, over gRPC, with the generated code in gen/cpp and
// Debian's libgrpc++ (built by scripts/build-clients):
//
//   build/cpp/example 127.0.0.1:9090
//
// It creates a game, watches its events, handles an illegal move (reading
// its ErrorInfo reason), plays four plies from the legal moves the rules
// list, and resigns. Every write carries a request_id, so a write whose
// outcome is unknown is sent again safely (docs/api.md, Consistency and
// retries).
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <thread>

#include <grpcpp/grpcpp.h>

#include "damone/v1/game_service.grpc.pb.h"
#include "damone/v1/rules_service.grpc.pb.h"
#include "google/rpc/error_details.pb.h"
#include "google/rpc/status.pb.h"

namespace v1 = damone::v1;

// A random request id (UUID-shaped).
std::string NewRequestId() {
  static std::mt19937_64 rng{std::random_device{}()};
  char id[37];
  std::snprintf(id, sizeof id, "%08llx-%04llx-4%03llx-a%03llx-%012llx", (unsigned long long)(rng() & 0xffffffff),
                (unsigned long long)(rng() & 0xffff), (unsigned long long)(rng() & 0xfff), (unsigned long long)(rng() & 0xfff),
                (unsigned long long)(rng() & 0xffffffffffff));
  return id;
}

// Runs a write with a new request id, and again with the same id after an
// answer that leaves its outcome unknown; a replay returns the first answer.
grpc::Status Write(const std::function<grpc::Status(grpc::ClientContext*, const std::string&)>& send) {
  std::string id = NewRequestId();
  for (int attempt = 1;; attempt++) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    grpc::Status st = send(&ctx, id);
    bool unknown = st.error_code() == grpc::StatusCode::UNAVAILABLE || st.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
    if (st.ok() || !unknown || attempt == 4) return st;
    std::this_thread::sleep_for(std::chrono::milliseconds(50 << attempt));
  }
}

int Fail(const char* what, const grpc::Status& st) {
  std::fprintf(stderr, "%s: %d %s\n", what, st.error_code(), st.error_message().c_str());
  return 1;
}

int main(int argc, char** argv) {
  auto channel = grpc::CreateChannel(argc > 1 ? argv[1] : "127.0.0.1:9090", grpc::InsecureChannelCredentials());
  auto games = v1::GameService::NewStub(channel);
  auto rules = v1::RulesService::NewStub(channel);

  v1::CreateGameResponse created;
  grpc::Status st = Write([&](grpc::ClientContext* ctx, const std::string& id) {
    v1::CreateGameRequest req;
    req.set_request_id(id);
    return games->CreateGame(ctx, req, &created);
  });
  if (!st.ok()) return Fail("CreateGame", st);
  const v1::Game& game = created.game();
  std::map<v1::Side, std::string> tokens{{v1::SIDE_RED, created.red_token()}, {v1::SIDE_BLACK, created.black_token()}};
  std::printf("created %s: %s\n", game.name().c_str(), game.position().text().c_str());

  std::thread watcher([&] {
    grpc::ClientContext ctx;
    v1::WatchGameRequest req;
    req.set_name(game.name());
    req.set_since_sequence(0);
    auto stream = games->WatchGame(&ctx, req);
    for (v1::GameEvent e; stream->Read(&e);) {
      std::printf("  event #%lld (case %d), ply %d: %s\n", (long long)e.sequence(), e.event_case(), e.ply(), e.position().text().c_str());
    }
    stream->Finish();
  });

  {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + tokens[v1::SIDE_RED]);
    v1::MakeMoveRequest req;
    req.set_name(game.name());
    req.set_move("e2-e4");
    v1::MakeMoveResponse res;
    st = games->MakeMove(&ctx, req, &res);
    // The full google.rpc.Status, details included, is error_details().
    google::rpc::Status status;
    google::rpc::ErrorInfo info;
    status.ParseFromString(st.error_details());
    for (const auto& d : status.details()) {
      if (d.Is<google::rpc::ErrorInfo>()) d.UnpackTo(&info);
    }
    if (st.error_code() != grpc::StatusCode::FAILED_PRECONDITION || info.reason() != "ILLEGAL_MOVE") return Fail("e2-e4", st);
    std::printf("e2-e4 refused: FAILED_PRECONDITION %s; legal: %s\n", info.reason().c_str(), info.metadata().at("legal_moves").c_str());
  }

  v1::Position position = game.position();
  for (int i = 0; i < 4; i++) {
    grpc::ClientContext ctx;
    v1::ListLegalMovesRequest lreq;
    lreq.mutable_position()->set_text(position.text());
    *lreq.mutable_variant() = game.variant();
    v1::ListLegalMovesResponse legal;
    if (!(st = rules->ListLegalMoves(&ctx, lreq, &legal)).ok()) return Fail("ListLegalMoves", st);
    std::string move = legal.moves(0).notation();
    v1::MakeMoveResponse played;
    st = Write([&](grpc::ClientContext* c, const std::string& id) {
      c->AddMetadata("authorization", "Bearer " + tokens[position.side_to_move()]);
      v1::MakeMoveRequest req;
      req.set_name(game.name());
      req.set_move(move);
      req.set_request_id(id);
      return games->MakeMove(c, req, &played);
    });
    if (!st.ok()) return Fail("MakeMove", st);
    position = played.game().position();
    std::printf("played %s (event #%lld)\n", move.c_str(), (long long)played.event_sequence());
  }

  v1::ResignResponse resigned;
  st = Write([&](grpc::ClientContext* c, const std::string& id) {
    c->AddMetadata("authorization", "Bearer " + tokens[v1::SIDE_BLACK]);
    v1::ResignRequest req;
    req.set_name(game.name());
    req.set_request_id(id);
    return games->Resign(c, req, &resigned);
  });
  if (!st.ok()) return Fail("Resign", st);
  watcher.join();
  std::printf("result: %s by %s\n", v1::OutcomeResult_Name(resigned.game().outcome().result()).c_str(),
              v1::OutcomeReason_Name(resigned.game().outcome().reason()).c_str());
  return 0;
}
