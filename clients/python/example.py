"""A damone client in Python, over gRPC, with the generated code in gen/python.

Runs with Debian's interpreter and packages (python3-grpcio, python3-protobuf):

    PYTHONPATH=gen/python /usr/bin/python3 clients/python/example.py 127.0.0.1:9090

It creates a game, lists the legal moves, plays a few of them with each
side's token while watching the game's event stream, handles an illegal move
error, resigns, and has a short game validated. Every write carries a
request_id, so a write whose outcome is unknown is sent again safely
(docs/api.md, Consistency and retries).

The rules calls go over a channel of their own, balanced over every rules
replica. In Kubernetes, give the games address and the rules fleet's
headless Service (docs/deploy.md, Balancing gRPC clients):

    example.py damone-games.NAMESPACE.svc.cluster.local:9090 \
        dns:///damone-rules-headless.NAMESPACE.svc.cluster.local:9090
"""

import pathlib
import random
import sys
import threading
import time
import uuid

import grpc

from damone.v1 import board_pb2, game_service_pb2, game_service_pb2_grpc, outcome_pb2
from damone.v1 import rules_service_pb2, rules_service_pb2_grpc
from google.rpc import error_details_pb2, status_pb2


def bearer(token):
    """Call metadata that makes a call act for the side of `token`."""
    return [("authorization", f"Bearer {token}")]


def error_info(err):
    """The google.rpc.ErrorInfo detail of a failed call, or None.

    The server sends the full google.rpc.Status, details included, in the
    `grpc-status-details-bin` trailer.
    """
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.ErrorInfo()
                if detail.Unpack(info):
                    return info
    return None


# Answers after which a write may or may not have happened: only sending it
# again with the same request_id tells, and never makes it happen twice.
INDETERMINATE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED}


def write(call, request, metadata=None, attempts=4):
    """Sends a GameService write with a new request_id, and sends it again,
    with the same id, after an answer that leaves its outcome unknown: a
    replay returns the first call's response. Every other error is final.
    The id of a CreateGame unlocks the tokens: never log it."""
    request.request_id = str(uuid.uuid4())
    for attempt in range(1, attempts + 1):
        try:
            return call(request, metadata=metadata, timeout=5)
        except grpc.RpcError as err:
            if attempt == attempts or err.code() not in INDETERMINATE:
                raise
            time.sleep(random.uniform(0, 0.05 * 2 ** attempt))  # jittered backoff


# The service config of the rules fleet, the repository's one copy: the
# round_robin policy (a call to the next replica, over a connection to each
# address the name resolves to) and retries on UNAVAILABLE for the
# RulesService methods without side effects.
SERVICE_CONFIG = (pathlib.Path(__file__).resolve().parents[2] / "k8s" / "grpc-service-config.json").read_text()


def rules_channel(target):
    """A channel that balances calls over every address `target` resolves to."""
    return grpc.insecure_channel(target, options=[
        ("grpc.service_config", SERVICE_CONFIG),
        # Use this config, not one from a DNS TXT record.
        ("grpc.service_config_disable_resolution", 1),
    ])


def main(addr, rules_target=None):
    # 1. Connect (plaintext here): a channel for games, one for the rules
    # fleet (with dns:///, every address the name resolves to), one stub per
    # service.
    with grpc.insecure_channel(addr) as channel, rules_channel(rules_target or f"dns:///{addr}") as balanced:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        rules = rules_service_pb2_grpc.RulesServiceStub(balanced)

        # 2. Create a game (the standard setup). The tokens are returned once.
        created = write(games.CreateGame, game_service_pb2.CreateGameRequest())
        game, tokens = created.game, {board_pb2.SIDE_RED: created.red_token, board_pb2.SIDE_BLACK: created.black_token}
        print(f"created {game.name}: {game.position.text}")

        # 3. Watch the game in a background thread: every event, from the
        # first one, until the stream ends after `game_ended`.
        def watch():
            for event in games.WatchGame(game_service_pb2.WatchGameRequest(name=game.name, since_sequence=0)):
                kind = event.WhichOneof("event")
                print(f"  event #{event.sequence} ({kind}), ply {event.ply}: {event.position.text}")

        watcher = threading.Thread(target=watch)
        watcher.start()

        # 4. An illegal move: FAILED_PRECONDITION, and an ErrorInfo detail that
        # says why (`reason`) and lists the legal moves (`metadata`).
        try:
            games.MakeMove(game_service_pb2.MakeMoveRequest(name=game.name, move="e2-e4"),
                           metadata=bearer(tokens[board_pb2.SIDE_RED]))
        except grpc.RpcError as err:
            info = error_info(err)
            if err.code() != grpc.StatusCode.FAILED_PRECONDITION or info is None or info.reason != "ILLEGAL_MOVE":
                raise
            print(f"e2-e4 refused: {err.code().name} {info.reason}; legal: {info.metadata['legal_moves']}")

        # 5. Play four plies: ask the rules for the legal moves, play the first.
        position = game.position
        for _ in range(4):
            legal = rules.ListLegalMoves(rules_service_pb2.ListLegalMovesRequest(
                position=board_pb2.Position(text=position.text), variant=game.variant))
            move = legal.moves[0].notation
            played = write(games.MakeMove, game_service_pb2.MakeMoveRequest(name=game.name, move=move),
                           metadata=bearer(tokens[position.side_to_move]))
            position = played.game.position
            print(f"played {move} (event #{played.event_sequence})")

        # 6. Black resigns: the game ends, and so does the stream.
        ended = write(games.Resign, game_service_pb2.ResignRequest(name=game.name),
                      metadata=bearer(tokens[board_pb2.SIDE_BLACK])).game
        watcher.join()
        print(f"result: {outcome_pb2.OutcomeResult.Name(ended.outcome.result)}"
              f" by {outcome_pb2.OutcomeReason.Name(ended.outcome.reason)}")

        # 7. Validate a game played elsewhere: an illegal game is an answer,
        # not an error. At ply 3 Red must capture d3xb5 (RULES.md, Captures).
        verdict = rules.ValidateGame(rules_service_pb2.ValidateGameRequest(moves=["e2-d3", "b5-c4", "f3-e4"]))
        if verdict.valid or verdict.first_illegal_ply != 3:
            raise SystemExit(f"unexpected verdict: {verdict}")
        print(f"validated: ply {verdict.first_illegal_ply} {verdict.illegal_move} is {verdict.reason}"
              f" ({verdict.cause}); legal plies: {' '.join(verdict.moves)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9090", sys.argv[2] if len(sys.argv) > 2 else None)
