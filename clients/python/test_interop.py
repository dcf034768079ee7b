"""Interop tests: the generated Python client (gen/python) against a real
damone server, over gRPC. `make interop` starts the server and runs them:

    DAMONE_GRPC_ADDR=127.0.0.1:9090 PYTHONPATH=gen/python \
        /usr/bin/python3 clients/python/test_interop.py

DAMONE_INTEROP_SEED (default 7) seeds the choice of moves in the whole game.
DAMONE_HTTP_ADDR (host:port of the same server's REST gateway), if set,
adds the REST checks. DAMONE_INTEROP_FIRST_MOVE_SECONDS is the server's
--first-move-time in seconds (default 60, the server's default). The reference games are read from
internal/refgames/games.jsonl, relative to the repository's root.
The last line printed is `N passed, N failed`.
"""

import json
import os
import random
import sys
import threading
import time
import unittest
import urllib.error
import urllib.request

import grpc
from google.protobuf import duration_pb2, json_format, timestamp_pb2

from damone.v1 import board_pb2, game_pb2, game_service_pb2, game_service_pb2_grpc
from damone.v1 import outcome_pb2, rules_service_pb2, rules_service_pb2_grpc, variant_pb2
from google.rpc import error_details_pb2, status_pb2

START = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"
START_MOVES = ["d1-c2", "e2-d3", "f1-g2", "f3-e4", "g4-f5", "h1-g2", "h3-g2", "h5-g6"]
MAX_PLIES = 2000  # a safety net: the no-progress rule ends games long before
TIMEOUT = 30  # seconds, for every call and stream
NS = 1_000_000_000
FIRST_MOVE_NS = int(os.environ.get("DAMONE_INTEROP_FIRST_MOVE_SECONDS", "60")) * NS


REF_GAMES_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                              "internal", "refgames", "games.jsonl")


def reference_sample():
    """A sample of the reference games (worked out independently from
    RULES.md): every 30th game and the first whose start is already decided."""
    with open(REF_GAMES_FILE, encoding="utf-8") as f:
        games = [json.loads(line) for line in f if line.strip()]
    sample = games[::30]
    decided = next(g for g in games if g["expected"]["end_ply"] == 0)
    if decided not in sample:
        sample.append(decided)
    return sample


def bearer(token):
    return [("authorization", f"Bearer {token}")]


def status_details(err):
    """The google.rpc.Status of a failed call, from its trailer."""
    for key, value in err.trailing_metadata() or ():
        if key == "grpc-status-details-bin":
            return status_pb2.Status.FromString(value)
    return status_pb2.Status()


def find_details(status, cls):
    """Every detail of type `cls` in a google.rpc.Status."""
    found = []
    for detail in status.details:
        msg = cls()
        if detail.Unpack(msg):
            found.append(msg)
    return found


class Client:
    channel = None
    games = None
    rules = None


def setUpModule():
    addr = os.environ.get("DAMONE_GRPC_ADDR")
    if not addr:
        raise RuntimeError("DAMONE_GRPC_ADDR (host:port of a damone gRPC server) is not set")
    Client.channel = grpc.insecure_channel(addr)
    grpc.channel_ready_future(Client.channel).result(timeout=TIMEOUT)
    Client.games = game_service_pb2_grpc.GameServiceStub(Client.channel)
    Client.rules = rules_service_pb2_grpc.RulesServiceStub(Client.channel)


def tearDownModule():
    if Client.channel is not None:
        Client.channel.close()


class InteropTest(unittest.TestCase):
    maxDiff = None

    def create_game(self, variant=None):
        res = Client.games.CreateGame(
            game_service_pb2.CreateGameRequest(game=game_pb2.Game(variant=variant)), timeout=TIMEOUT)
        self.assertTrue(res.red_token and res.black_token)
        self.assertNotEqual(res.red_token, res.black_token)
        tokens = {board_pb2.SIDE_RED: res.red_token, board_pb2.SIDE_BLACK: res.black_token}
        return res.game, tokens

    def make_move(self, name, move, token=None, **kw):
        return Client.games.MakeMove(game_service_pb2.MakeMoveRequest(name=name, move=move, **kw),
                                     metadata=bearer(token) if token else None, timeout=TIMEOUT)

    def failure(self, call, *args, **kw):
        """Runs a call that must fail; returns (code, ErrorInfo, Status)."""
        with self.assertRaises(grpc.RpcError) as ctx:
            result = call(*args, **kw)
            if hasattr(result, "__iter__"):  # a stream fails when read
                for _ in result:
                    self.fail("no event expected")
        err = ctx.exception
        status = status_details(err)
        self.assertEqual(status.code, err.code().value[0])
        infos = find_details(status, error_details_pb2.ErrorInfo)
        self.assertEqual(len(infos), 1, f"one ErrorInfo detail in {err.details()}")
        self.assertEqual(infos[0].domain, "damone.v1")
        return err.code(), infos[0], status

    def watch(self, name, since):
        return Client.games.WatchGame(game_service_pb2.WatchGameRequest(name=name, since_sequence=since),
                                      timeout=TIMEOUT)

    def legal_moves(self, text, variant=None):
        return Client.rules.ListLegalMoves(rules_service_pb2.ListLegalMovesRequest(
            position=board_pb2.Position(text=text), variant=variant), timeout=TIMEOUT)

    def play_first_move(self, name, text, tokens):
        move = self.legal_moves(text).moves[0]
        return self.make_move(name, move.notation, tokens[move.side])

    def test_whole_game_while_watching(self):
        # Repetition draws need the game's history, which the stateless
        # RulesService cannot see: turn them off so that RulesService predicts
        # every position and the outcome. A short no-progress limit bounds
        # the game.
        variant = variant_pb2.Variant(no_progress_limit=20, repetition_draw=False)
        game, tokens = self.create_game(variant)
        name = game.name
        self.assertTrue(name.startswith("games/"))
        self.assertEqual(game.status, game_pb2.GAME_STATUS_IN_PROGRESS)
        self.assertEqual((game.ply, game.last_event_sequence, game.position.text), (0, 1, START))

        received, watch_errors = [], []

        def watch():
            try:
                received.extend(self.watch(name, 0))
            except grpc.RpcError as err:  # reported by the main thread
                watch_errors.append(err)

        watcher = threading.Thread(target=watch)
        watcher.start()

        expected = [("game_created", 0, START, None, None)]  # kind, ply, position, move, outcome
        rng = random.Random(int(os.environ.get("DAMONE_INTEROP_SEED", "7")))
        played, text, outcome = [], START, None
        while outcome is None:
            self.assertLess(game.ply, MAX_PLIES, "the game ends")
            legal = self.legal_moves(text, game.variant)
            self.assertFalse(legal.HasField("outcome"), "RulesService says the game goes on")
            move = rng.choice(legal.moves)
            self.assertEqual(move.side, game.position.side_to_move)
            nxt = Client.rules.ApplyMove(rules_service_pb2.ApplyMoveRequest(
                position=board_pb2.Position(text=text), variant=game.variant, move=move.notation), timeout=TIMEOUT)

            res = self.make_move(name, move.notation, tokens[move.side], expected_ply=game.ply)
            self.assertEqual(res.move.notation, move.notation)
            self.assertEqual(res.game.ply, game.ply + 1)
            self.assertEqual(res.game.position.text, nxt.position.text, f"position after {move.notation}")
            self.assertEqual(res.event_sequence, len(expected) + 1)
            played.append(move.notation)
            expected.append(("move_played", res.game.ply, nxt.position.text, move.notation, None))
            game, text = res.game, nxt.position.text
            if nxt.HasField("outcome"):
                outcome = nxt.outcome
                self.assertEqual(game.status, game_pb2.GAME_STATUS_FINISHED)
                self.assertEqual(game.outcome, outcome, "the game's outcome is the rules' outcome")
                expected.append(("game_ended", game.ply, text, None, outcome))
            else:
                self.assertEqual(game.status, game_pb2.GAME_STATUS_IN_PROGRESS)
        self.assertNotEqual(outcome.reason, outcome_pb2.OUTCOME_REASON_RESIGNATION)
        print(f"\n  seed {os.environ.get('DAMONE_INTEROP_SEED', '7')}: "
              f"{outcome_pb2.OutcomeResult.Name(outcome.result)} by "
              f"{outcome_pb2.OutcomeReason.Name(outcome.reason)} after {game.ply} plies", file=sys.stderr)

        # The stream closes by itself after game_ended.
        watcher.join(TIMEOUT)
        self.assertFalse(watcher.is_alive(), "the stream ends after game_ended")
        self.assertEqual(watch_errors, [])
        self.assertEqual(len(received), len(expected), "one event per move, plus created and ended")
        for i, (ev, (kind, ply, position, move, want_outcome)) in enumerate(zip(received, expected), start=1):
            with self.subTest(event=i):
                self.assertEqual(ev.sequence, i)
                self.assertEqual(ev.game, name)
                self.assertEqual(ev.WhichOneof("event"), kind)
                self.assertEqual(ev.ply, ply)
                self.assertEqual(ev.position.text, position)
                self.assertTrue(ev.HasField("event_time"))
                if kind == "game_created":
                    self.assertTrue(ev.game_created.HasField("variant"))
                if kind == "move_played":
                    self.assertEqual(ev.move_played.move.notation, move)
                if kind == "game_ended":
                    self.assertEqual(ev.game_ended.outcome, want_outcome)

        # The stored game agrees, and the final position is over for the rules too.
        final = Client.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=TIMEOUT)
        self.assertEqual(final.status, game_pb2.GAME_STATUS_FINISHED)
        self.assertEqual([m.notation for m in final.moves], played)
        self.assertEqual(final.last_event_sequence, len(received))
        after = self.legal_moves(text, game.variant)
        self.assertEqual(len(after.moves), 0)
        self.assertEqual(after.outcome, outcome)

    def test_errors(self):
        game, tokens = self.create_game()
        name, red, black = game.name, tokens[board_pb2.SIDE_RED], tokens[board_pb2.SIDE_BLACK]

        # Malformed notation (e9 is off the board): INVALID_ARGUMENT, with a
        # BadRequest detail naming the field.
        code, info, status = self.failure(self.make_move, name, "e2-e9", red)
        self.assertEqual(code, grpc.StatusCode.INVALID_ARGUMENT)
        self.assertEqual(info.reason, "INVALID_REQUEST")
        [bad_request] = find_details(status, error_details_pb2.BadRequest)
        self.assertEqual([v.field for v in bad_request.field_violations], ["move"])

        # Well formed but not a legal move here: FAILED_PRECONDITION, ILLEGAL_MOVE.
        code, info, _ = self.failure(self.make_move, name, "e2-e4", red)
        self.assertEqual(code, grpc.StatusCode.FAILED_PRECONDITION)
        self.assertEqual(info.reason, "ILLEGAL_MOVE")
        self.assertEqual(info.metadata["move"], "e2-e4")
        self.assertEqual(info.metadata["legal_moves"].split(","), START_MOVES)

        # The token alone decides the side (docs/api.md): a token that is
        # neither of the game's is PERMISSION_DENIED, WRONG_TOKEN; Black's
        # token moving a Red piece on Red's turn is NOT_YOUR_TURN; Red's
        # token moving a Black piece is judged as a move: ILLEGAL_MOVE,
        # cause OPPONENT_PIECE.
        code, info, _ = self.failure(self.make_move, name, "e2-d3", red + "x")
        self.assertEqual((code, info.reason), (grpc.StatusCode.PERMISSION_DENIED, "WRONG_TOKEN"))
        code, info, _ = self.failure(self.make_move, name, "e2-d3", black)
        self.assertEqual((code, info.reason), (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"))
        self.assertEqual(dict(info.metadata), {"side": "SIDE_BLACK", "side_to_move": "SIDE_RED"})
        code, info, _ = self.failure(self.make_move, name, "a4-b3", red)
        self.assertEqual((code, info.reason), (grpc.StatusCode.FAILED_PRECONDITION, "ILLEGAL_MOVE"))
        self.assertEqual(info.metadata["cause"], "OPPONENT_PIECE")

        # No token: UNAUTHENTICATED; Black moving while Red is to move: NOT_YOUR_TURN.
        code, info, _ = self.failure(self.make_move, name, "e2-d3")
        self.assertEqual((code, info.reason), (grpc.StatusCode.UNAUTHENTICATED, "MISSING_TOKEN"))
        code, info, _ = self.failure(self.make_move, name, "a4-b3", black)
        self.assertEqual((code, info.reason), (grpc.StatusCode.FAILED_PRECONDITION, "NOT_YOUR_TURN"))

        # Nothing was played.
        after = Client.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=TIMEOUT)
        self.assertEqual((after.ply, after.last_event_sequence, after.position.text), (0, 1, START))

    def test_resume_watch(self):
        game, tokens = self.create_game()
        name, text = game.name, START
        for _ in range(3):  # events 2, 3, 4
            text = self.play_first_move(name, text, tokens).game.position.text

        # Resume after event 2: events 3 and 4 are replayed, then live ones follow.
        stream = self.watch(name, 2)
        replayed = [next(stream), next(stream)]
        self.assertEqual([e.sequence for e in replayed], [3, 4])
        self.assertEqual([e.WhichOneof("event") for e in replayed], ["move_played"] * 2)
        self.assertEqual(replayed[1].position.text, text)

        live = self.play_first_move(name, text, tokens)
        ev5 = next(stream)
        self.assertEqual((ev5.sequence, live.event_sequence), (5, 5))
        self.assertEqual(ev5.move_played.move.notation, live.move.notation)
        self.assertEqual(ev5.position.text, live.game.position.text)

        Client.games.Resign(game_service_pb2.ResignRequest(name=name),
                            metadata=bearer(tokens[board_pb2.SIDE_RED]), timeout=TIMEOUT)
        ev6 = next(stream)
        self.assertEqual(ev6.sequence, 6)
        self.assertEqual(ev6.game_ended.outcome.reason, outcome_pb2.OUTCOME_REASON_RESIGNATION)
        self.assertEqual(list(stream), [], "the stream ends after game_ended")

        # Resuming from any sequence gives exactly the rest of the full replay.
        everything = list(self.watch(name, 0))
        self.assertEqual([e.sequence for e in everything], [1, 2, 3, 4, 5, 6])
        for since in range(7):
            with self.subTest(since=since):
                self.assertEqual(list(self.watch(name, since)), everything[since:])

        # Past the latest sequence: OUT_OF_RANGE.
        code, info, _ = self.failure(self.watch, name, 7)
        self.assertEqual((code, info.reason), (grpc.StatusCode.OUT_OF_RANGE, "SEQUENCE_OUT_OF_RANGE"))

    # Games with a clock (docs/api.md, Clocks). The expected values come
    # from the rules there: each side's first move is untimed (no clock runs
    # before it; it must come within the first-move time, `per_move` itself
    # for a per-move control) and the increment is added after every move,
    # the first included.

    def clock(self, c):
        """A Clock's fields, durations and instants as nanoseconds (None: unset)."""
        return {
            "red": c.red_remaining.ToNanoseconds(),
            "black": c.black_remaining.ToNanoseconds(),
            "running": c.running,
            "deadline": c.deadline.ToNanoseconds() if c.HasField("deadline") else None,
            "first_move_deadline": c.first_move_deadline.ToNanoseconds() if c.HasField("first_move_deadline") else None,
        }

    def test_clock_flag_fall(self):
        res = Client.games.CreateGame(game_service_pb2.CreateGameRequest(game=game_pb2.Game(
            time_control=game_pb2.TimeControl(initial=duration_pb2.Duration(seconds=2),
                                              increment=duration_pb2.Duration(seconds=1)))), timeout=TIMEOUT)
        game = res.game
        name = game.name
        tokens = {board_pb2.SIDE_RED: res.red_token, board_pb2.SIDE_BLACK: res.black_token}
        self.assertEqual(game.time_control, game_pb2.TimeControl(
            initial=duration_pb2.Duration(seconds=2), increment=duration_pb2.Duration(seconds=1)))
        self.assertTrue(game.HasField("clock"))
        self.assertEqual(self.clock(game.clock), {
            "red": 2 * NS, "black": 2 * NS, "running": board_pb2.SIDE_UNSPECIFIED, "deadline": None,
            "first_move_deadline": game.update_time.ToNanoseconds() + FIRST_MOVE_NS})

        # Red's first move: Red has 2 + 1 s; Black, still to make its first
        # move, has the first-move time from this move on.
        r1 = self.play_first_move(name, START, tokens)
        self.assertEqual(r1.move.side, board_pb2.SIDE_RED)
        self.assertEqual(self.clock(r1.game.clock), {
            "red": 3 * NS, "black": 2 * NS, "running": board_pb2.SIDE_UNSPECIFIED, "deadline": None,
            "first_move_deadline": r1.game.update_time.ToNanoseconds() + FIRST_MOVE_NS})

        # Black's first move: both have 3 s, and Red's clock runs from this move.
        r2 = self.play_first_move(name, r1.game.position.text, tokens)
        self.assertEqual(r2.move.side, board_pb2.SIDE_BLACK)
        self.assertEqual(r2.game.last_event_sequence, 3)
        deadline = r2.game.update_time.ToNanoseconds() + 3 * NS
        self.assertEqual(self.clock(r2.game.clock), {
            "red": 3 * NS, "black": 3 * NS, "running": board_pb2.SIDE_RED, "deadline": deadline,
            "first_move_deadline": None})

        # Nobody moves: Red's flag falls. The stream delivers game_ended,
        # dated at the deadline, and closes.
        events = list(self.watch(name, r2.game.last_event_sequence))
        self.assertGreaterEqual(time.time_ns(), deadline, "not ended before its deadline")
        self.assertEqual([(e.sequence, e.WhichOneof("event")) for e in events], [(4, "game_ended")],
                         "only game_ended, then the stream ends")
        ended = events[0]
        self.assertEqual(ended.ply, 2)
        self.assertEqual(ended.game_ended.outcome, outcome_pb2.Outcome(
            result=outcome_pb2.OUTCOME_RESULT_BLACK_WINS, reason=outcome_pb2.OUTCOME_REASON_TIMEOUT))
        self.assertEqual(ended.event_time.ToNanoseconds(), deadline)
        self.assertTrue(ended.HasField("clock"))
        self.assertEqual(self.clock(ended.clock), {
            "red": 0, "black": 3 * NS, "running": board_pb2.SIDE_UNSPECIFIED, "deadline": None,
            "first_move_deadline": None})

        # A move now is refused with the game's timeout outcome.
        move = self.legal_moves(r2.game.position.text).moves[0]
        self.assertEqual(move.side, board_pb2.SIDE_RED)
        code, info, _ = self.failure(self.make_move, name, move.notation, tokens[board_pb2.SIDE_RED])
        self.assertEqual((code, info.reason), (grpc.StatusCode.FAILED_PRECONDITION, "GAME_OVER"))
        self.assertEqual(dict(info.metadata), {"result": "OUTCOME_RESULT_BLACK_WINS",
                                               "reason": "OUTCOME_REASON_TIMEOUT"})

        # The stored game agrees with the stream.
        final = Client.games.GetGame(game_service_pb2.GetGameRequest(name=name), timeout=TIMEOUT)
        self.assertEqual((final.status, final.ply, final.last_event_sequence), (game_pb2.GAME_STATUS_FINISHED, 2, 4))
        self.assertEqual(final.outcome, ended.game_ended.outcome)
        self.assertEqual(final.clock, ended.clock, "the game's clock is its last event's")

    def test_clock_below_min_clock_time(self):
        # --min-clock-time is 1 s by default.
        code, info, status = self.failure(
            Client.games.CreateGame, game_service_pb2.CreateGameRequest(game=game_pb2.Game(
                time_control=game_pb2.TimeControl(initial=duration_pb2.Duration(nanos=500_000_000)))),
            timeout=TIMEOUT)
        self.assertEqual((code, info.reason), (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_REQUEST"))
        [bad_request] = find_details(status, error_details_pb2.BadRequest)
        self.assertEqual([v.field for v in bad_request.field_violations], ["game.time_control.initial"])

    def rest(self, method, path, body=None, token=None):
        """A REST call: (HTTP status, its JSON). Errors are answers too."""
        http = os.environ.get("DAMONE_HTTP_ADDR")
        if not http:
            self.skipTest("DAMONE_HTTP_ADDR (the REST gateway's host:port) is not set")
        headers = {"Content-Type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        req = urllib.request.Request(f"http://{http}{path}", method=method, headers=headers,
                                     data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                return resp.status, resp.read().decode()
        except urllib.error.HTTPError as err:
            return err.code, err.read().decode()

    def test_clock_rest_per_move(self):
        def instant(s):
            ts = timestamp_pb2.Timestamp()
            ts.FromJsonString(s)
            return ts.ToNanoseconds()

        # Two seconds a move; the first moves too, so the clock shows 2 s each
        # and the game is aborted 2 s after its creation if Red does not move.
        code, text = self.rest("POST", "/v1/games", {"time_control": {"per_move": "2s"}})
        self.assertEqual(code, 200, text)
        created = json.loads(text)
        game = created["game"]
        self.assertEqual(game["time_control"], {"per_move": "2s"})
        self.assertEqual(set(game["clock"]), {"red_remaining", "black_remaining", "first_move_deadline"},
                         "no running side, no deadline (JSON omits them)")
        self.assertEqual((game["clock"]["red_remaining"], game["clock"]["black_remaining"]), ("2s", "2s"))
        first_move_deadline = instant(game["clock"]["first_move_deadline"])
        self.assertEqual(first_move_deadline, instant(game["update_time"]) + 2 * NS)

        # Red never moves: the game is aborted, with no result, at the
        # first-move deadline (the watch ends with it).
        code, text = self.rest("GET", f"/v1/{game['name']}:watch?since_sequence=1")
        self.assertEqual(code, 200, text)
        events = [json.loads(line) for line in text.splitlines() if line.strip()]
        self.assertEqual([list(e) for e in events], [["result"]], text)
        ended = events[0]["result"]
        self.assertEqual(ended["sequence"], "2")
        self.assertEqual(ended["game_ended"], {"outcome": {"result": "OUTCOME_RESULT_NO_RESULT",
                                                           "reason": "OUTCOME_REASON_ABORTED"}})
        self.assertEqual(instant(ended["event_time"]), first_move_deadline)
        self.assertEqual(ended["clock"], {"red_remaining": "2s", "black_remaining": "2s"},
                         "no clock ran: nothing charged, no side running, no deadline")

        # A move now: 400, GAME_OVER with the abort.
        code, text = self.rest("POST", f"/v1/{game['name']}:move", {"move": "e2-d3"}, created["red_token"])
        self.assertEqual(code, 400, text)
        status = json.loads(text)
        self.assertEqual(status["code"], 9)  # FAILED_PRECONDITION
        info = [d for d in status["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
        self.assertEqual([(i["reason"], i["metadata"]) for i in info],
                         [("GAME_OVER", {"result": "OUTCOME_RESULT_NO_RESULT", "reason": "OUTCOME_REASON_ABORTED"})])

        # An increment with per_move: 400, naming the field.
        code, text = self.rest("POST", "/v1/games", {"time_control": {"per_move": "2s", "increment": "1s"}})
        self.assertEqual(code, 400, text)
        status = json.loads(text)
        self.assertEqual(status["code"], 3)  # INVALID_ARGUMENT
        violations = [v["field"] for d in status["details"] if d["@type"].endswith("google.rpc.BadRequest")
                      for v in d["field_violations"]]
        self.assertEqual(violations, ["game.time_control.increment"])


class ValidateTest(unittest.TestCase):
    """ValidateGame and ValidateGames on reference games."""
    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.games = reference_sample()

    def check_verdict(self, game, verdict):
        """A verdict (ValidateGameResponse, or its JSON as a dict) against
        the reference game's expected one."""
        e = game["expected"]
        if isinstance(verdict, dict):  # REST: the documented JSON, defaults omitted
            outcome = verdict.get("outcome")
            got = {
                "valid": verdict.get("valid", False),
                "first_illegal_ply": verdict.get("first_illegal_ply", 0),
                "ply": verdict.get("ply", 0),
                "moves": len(verdict.get("moves", [])),
                "end_ply": verdict.get("end_ply"),
                "outcome": {"result": outcome["result"], "reason": outcome["reason"]} if outcome else None,
                "final_position": verdict["final_position"]["text"],
                "illegal_move": verdict.get("illegal_move", ""),
            }
        else:
            got = {
                "valid": verdict.valid,
                "first_illegal_ply": verdict.first_illegal_ply,
                "ply": verdict.ply,
                "moves": len(verdict.moves),
                "end_ply": verdict.end_ply if verdict.HasField("end_ply") else None,
                "outcome": {"result": outcome_pb2.OutcomeResult.Name(verdict.outcome.result),
                            "reason": outcome_pb2.OutcomeReason.Name(verdict.outcome.reason)}
                if verdict.HasField("outcome") else None,
                "final_position": verdict.final_position.text,
                "illegal_move": verdict.illegal_move,
            }
        want = {
            "valid": e["valid"],
            "first_illegal_ply": e["first_illegal_ply"],
            "ply": e["ply"],
            "moves": e["ply"],
            "end_ply": e["end_ply"],
            "outcome": e["outcome"],
            "final_position": e["final_position"],
            "illegal_move": "" if e["valid"] else game["moves"][e["first_illegal_ply"] - 1],
        }
        self.assertEqual(got, want, game["id"])

    def request(self, game):
        return rules_service_pb2.ValidateGameRequest(
            variant=json_format.ParseDict(game["variant"], variant_pb2.Variant()), moves=game["moves"])

    def test_validate_game(self):
        for game in self.games:
            with self.subTest(game=game["id"]):
                self.check_verdict(game, Client.rules.ValidateGame(self.request(game), timeout=TIMEOUT))
        self.assertTrue(any(not g["expected"]["valid"] for g in self.games))
        self.assertTrue(any(g["expected"]["outcome"] for g in self.games))

        # An invalid variant is an error, not a verdict.
        with self.assertRaises(grpc.RpcError) as ctx:
            Client.rules.ValidateGame(rules_service_pb2.ValidateGameRequest(
                variant=variant_pb2.Variant(no_progress_limit=-1), moves=["e2-d3"]), timeout=TIMEOUT)
        status = status_details(ctx.exception)
        self.assertEqual(ctx.exception.code(), grpc.StatusCode.INVALID_ARGUMENT)
        [info] = find_details(status, error_details_pb2.ErrorInfo)
        self.assertEqual((info.reason, info.domain), ("INVALID_REQUEST", "damone.v1"))
        [bad_request] = find_details(status, error_details_pb2.BadRequest)
        self.assertEqual([v.field for v in bad_request.field_violations], ["variant.no_progress_limit"])

    def test_validate_games_stream(self):
        requests = [rules_service_pb2.ValidateGamesRequest(id=g["id"], game=self.request(g)) for g in self.games]
        # A bad game does not end the stream: its answer is an error, in its place.
        requests.insert(1, rules_service_pb2.ValidateGamesRequest(
            id="bad variant", game=rules_service_pb2.ValidateGameRequest(
                variant=variant_pb2.Variant(no_progress_limit=-1))))
        answers = list(Client.rules.ValidateGames(iter(requests), timeout=TIMEOUT))
        self.assertEqual([a.id for a in answers], [r.id for r in requests], "one answer per request, in order")
        bad = answers.pop(1)
        self.assertEqual(bad.WhichOneof("answer"), "error")
        self.assertEqual((bad.error.code, bad.error.reason, bad.error.field),
                         ("INVALID_ARGUMENT", "INVALID_REQUEST", "game.variant.no_progress_limit"))
        for game, answer in zip(self.games, answers):
            with self.subTest(game=game["id"]):
                self.assertEqual(answer.WhichOneof("answer"), "result")
                self.check_verdict(game, answer.result)

    def test_validate_game_rest(self):
        http = os.environ.get("DAMONE_HTTP_ADDR")
        if not http:
            self.skipTest("DAMONE_HTTP_ADDR (the REST gateway's host:port) is not set")
        for game in self.games:
            with self.subTest(game=game["id"]):
                body = json.dumps({"variant": game["variant"], "moves": game["moves"]}).encode()
                req = urllib.request.Request(f"http://{http}/v1/rules:validateGame", data=body, method="POST",
                                             headers={"Content-Type": "application/json"})
                with urllib.request.urlopen(req, timeout=TIMEOUT) as resp:
                    self.assertEqual(resp.status, 200)
                    self.check_verdict(game, json.load(resp))
        # An invalid variant: HTTP 400 with the status JSON.
        req = urllib.request.Request(f"http://{http}/v1/rules:validateGame", method="POST",
                                     data=b'{"variant": {"no_progress_limit": -1}, "moves": ["e2-d3"]}',
                                     headers={"Content-Type": "application/json"})
        with self.assertRaises(urllib.error.HTTPError) as ctx:
            urllib.request.urlopen(req, timeout=TIMEOUT)
        self.assertEqual(ctx.exception.code, 400)
        status = json.load(ctx.exception)
        self.assertEqual(status["code"], 3)
        info = [d for d in status["details"] if d["@type"].endswith("google.rpc.ErrorInfo")]
        self.assertEqual([i["reason"] for i in info], ["INVALID_REQUEST"])


if __name__ == "__main__":
    result = unittest.main(exit=False, verbosity=2).result
    failed = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
    skipped = len(result.skipped)
    passed = result.testsRun - failed - skipped
    sys.stderr.flush()
    print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""), flush=True)
    sys.exit(1 if failed or result.testsRun == 0 else 0)
