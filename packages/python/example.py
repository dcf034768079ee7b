"""A first damone client in Python, over gRPC, with damone-client.

    pip install damone-client
    python example.py 127.0.0.1:9090

It creates a game, reads an illegal move's ErrorInfo, plays Red's first
legal move with a request id (send a write that failed with UNAVAILABLE or
DEADLINE_EXCEEDED again with the same id: the server replays the first
answer), watches the game until Black resigns, and validates a short game.
It exits non-zero if an answer is not the one the rules give.
"""

import sys
import threading
import uuid

import grpc
from damone.v1 import board_pb2, game_service_pb2, game_service_pb2_grpc, outcome_pb2
from damone.v1 import rules_service_pb2, rules_service_pb2_grpc
from google.rpc import error_details_pb2, status_pb2


def bearer(token):
    return [("authorization", f"Bearer {token}")]


def error_info(err):
    """The google.rpc.ErrorInfo of a failed call (in the grpc-status-details-bin trailer), or None."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    return None


def check(ok, what):
    if not ok:
        sys.exit(f"unexpected answer: {what}")


def main(addr):
    with grpc.insecure_channel(addr) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        rules = rules_service_pb2_grpc.RulesServiceStub(channel)

        created = games.CreateGame(game_service_pb2.CreateGameRequest(request_id=str(uuid.uuid4())), timeout=5)
        game = created.game
        check(game.name.startswith("games/"), f"CreateGame returned {game.name!r}")
        print(f"created {game.name}: {game.position.text}")

        watched = []
        stream = games.WatchGame(game_service_pb2.WatchGameRequest(name=game.name, since_sequence=0))
        watcher = threading.Thread(target=lambda: watched.extend(e.WhichOneof("event") for e in stream))
        watcher.start()

        # A Pedine steps one square, so e2-e4 is never legal (RULES.md, Moves).
        try:
            games.MakeMove(game_service_pb2.MakeMoveRequest(name=game.name, move="e2-e4", request_id=str(uuid.uuid4())),
                           metadata=bearer(created.red_token), timeout=5)
            check(False, "e2-e4 was accepted")
        except grpc.RpcError as err:
            info = error_info(err)
            check(err.code() == grpc.StatusCode.FAILED_PRECONDITION and info is not None and info.reason == "ILLEGAL_MOVE",
                  f"{err.code()} {info}")
            print(f"e2-e4 refused: {err.code().name} {info.reason}")

        # Red moves first by default (RULES.md, Sides and setup).
        legal = rules.ListLegalMoves(rules_service_pb2.ListLegalMovesRequest(
            position=board_pb2.Position(text=game.position.text), variant=game.variant), timeout=5)
        check(game.position.side_to_move == board_pb2.SIDE_RED and legal.moves, f"{len(legal.moves)} legal moves")
        move = legal.moves[0].notation
        played = games.MakeMove(game_service_pb2.MakeMoveRequest(name=game.name, move=move, request_id=str(uuid.uuid4())),
                                metadata=bearer(created.red_token), timeout=5)
        check(played.game.ply == 1 and played.game.position.side_to_move == board_pb2.SIDE_BLACK, f"ply {played.game.ply}")
        print(f"played {move}: ply {played.game.ply}")

        ended = games.Resign(game_service_pb2.ResignRequest(name=game.name, request_id=str(uuid.uuid4())),
                             metadata=bearer(created.black_token), timeout=5).game
        watcher.join(timeout=10)
        check(ended.outcome.reason == outcome_pb2.OUTCOME_REASON_RESIGNATION, f"outcome {ended.outcome}")
        check(watched and watched[-1] == "game_ended", f"events {watched}")
        print(f"watched {len(watched)} events: {', '.join(watched)}")

        # At ply 3 Red must capture d3xb5, so f3-e4 is illegal (RULES.md, Captures).
        verdict = rules.ValidateGame(rules_service_pb2.ValidateGameRequest(moves=["e2-d3", "b5-c4", "f3-e4"]), timeout=5)
        check(not verdict.valid and verdict.first_illegal_ply == 3, f"verdict {verdict}")
        print(f"validated: ply {verdict.first_illegal_ply} {verdict.illegal_move} is illegal")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9090")
