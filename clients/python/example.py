"""A damone client in Python, over gRPC, with the generated code in gen/python.

Runs with Debian's interpreter and packages (python3-grpcio, python3-protobuf):

    PYTHONPATH=gen/python /usr/bin/python3 clients/python/example.py 127.0.0.1:9090

It creates a game, lists the legal moves, plays a few of them with each
side's token while watching the game's event stream, handles an illegal move
error, and resigns.
"""

import sys
import threading

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


def main(addr):
    # 1. Connect: one channel (plaintext here), one stub per service.
    with grpc.insecure_channel(addr) as channel:
        games = game_service_pb2_grpc.GameServiceStub(channel)
        rules = rules_service_pb2_grpc.RulesServiceStub(channel)

        # 2. Create a game (the standard setup). The tokens are returned once.
        created = games.CreateGame(game_service_pb2.CreateGameRequest())
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
            played = games.MakeMove(game_service_pb2.MakeMoveRequest(name=game.name, move=move),
                                    metadata=bearer(tokens[position.side_to_move]))
            position = played.game.position
            print(f"played {move} (event #{played.event_sequence})")

        # 6. Black resigns: the game ends, and so does the stream.
        ended = games.Resign(game_service_pb2.ResignRequest(name=game.name),
                             metadata=bearer(tokens[board_pb2.SIDE_BLACK])).game
        watcher.join()
        print(f"result: {outcome_pb2.OutcomeResult.Name(ended.outcome.result)}"
              f" by {outcome_pb2.OutcomeReason.Name(ended.outcome.reason)}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "127.0.0.1:9090")
