from damone.v1 import board_pb2 as _board_pb2
from damone.v1 import outcome_pb2 as _outcome_pb2
from damone.v1 import variant_pb2 as _variant_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
GAME_STATUS_FINISHED: GameStatus
GAME_STATUS_IN_PROGRESS: GameStatus
GAME_STATUS_UNSPECIFIED: GameStatus
GAME_VIEW_BASIC: GameView
GAME_VIEW_FULL: GameView
GAME_VIEW_UNSPECIFIED: GameView

class Clock(_message.Message):
    __slots__ = ["black_remaining", "deadline", "first_move_deadline", "red_remaining", "running"]
    BLACK_REMAINING_FIELD_NUMBER: _ClassVar[int]
    DEADLINE_FIELD_NUMBER: _ClassVar[int]
    FIRST_MOVE_DEADLINE_FIELD_NUMBER: _ClassVar[int]
    RED_REMAINING_FIELD_NUMBER: _ClassVar[int]
    RUNNING_FIELD_NUMBER: _ClassVar[int]
    black_remaining: _duration_pb2.Duration
    deadline: _timestamp_pb2.Timestamp
    first_move_deadline: _timestamp_pb2.Timestamp
    red_remaining: _duration_pb2.Duration
    running: _board_pb2.Side
    def __init__(self, red_remaining: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., black_remaining: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., running: _Optional[_Union[_board_pb2.Side, str]] = ..., deadline: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., first_move_deadline: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ...) -> None: ...

class EngineOpponent(_message.Message):
    __slots__ = ["depth", "move_time", "side"]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    depth: int
    move_time: _duration_pb2.Duration
    side: _board_pb2.Side
    def __init__(self, side: _Optional[_Union[_board_pb2.Side, str]] = ..., move_time: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., depth: _Optional[int] = ...) -> None: ...

class Game(_message.Message):
    __slots__ = ["clock", "create_time", "draw_offer", "engine_opponent", "etag", "initial_position", "last_event_sequence", "moves", "name", "outcome", "ply", "position", "status", "time_control", "update_time", "variant"]
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    CREATE_TIME_FIELD_NUMBER: _ClassVar[int]
    DRAW_OFFER_FIELD_NUMBER: _ClassVar[int]
    ENGINE_OPPONENT_FIELD_NUMBER: _ClassVar[int]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    INITIAL_POSITION_FIELD_NUMBER: _ClassVar[int]
    LAST_EVENT_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    UPDATE_TIME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    clock: Clock
    create_time: _timestamp_pb2.Timestamp
    draw_offer: _board_pb2.Side
    engine_opponent: EngineOpponent
    etag: str
    initial_position: _board_pb2.Position
    last_event_sequence: int
    moves: _containers.RepeatedCompositeFieldContainer[_board_pb2.Move]
    name: str
    outcome: _outcome_pb2.Outcome
    ply: int
    position: _board_pb2.Position
    status: GameStatus
    time_control: TimeControl
    update_time: _timestamp_pb2.Timestamp
    variant: _variant_pb2.Variant
    def __init__(self, name: _Optional[str] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ..., initial_position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., moves: _Optional[_Iterable[_Union[_board_pb2.Move, _Mapping]]] = ..., status: _Optional[_Union[GameStatus, str]] = ..., outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ..., ply: _Optional[int] = ..., draw_offer: _Optional[_Union[_board_pb2.Side, str]] = ..., last_event_sequence: _Optional[int] = ..., etag: _Optional[str] = ..., create_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., update_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., engine_opponent: _Optional[_Union[EngineOpponent, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ["clock", "draw_declined", "draw_offered", "event_time", "game", "game_created", "game_ended", "move_played", "ply", "position", "sequence"]
    class DrawDeclined(_message.Message):
        __slots__ = ["by_move", "side"]
        BY_MOVE_FIELD_NUMBER: _ClassVar[int]
        SIDE_FIELD_NUMBER: _ClassVar[int]
        by_move: bool
        side: _board_pb2.Side
        def __init__(self, side: _Optional[_Union[_board_pb2.Side, str]] = ..., by_move: bool = ...) -> None: ...
    class DrawOffered(_message.Message):
        __slots__ = ["side"]
        SIDE_FIELD_NUMBER: _ClassVar[int]
        side: _board_pb2.Side
        def __init__(self, side: _Optional[_Union[_board_pb2.Side, str]] = ...) -> None: ...
    class GameCreated(_message.Message):
        __slots__ = ["variant"]
        VARIANT_FIELD_NUMBER: _ClassVar[int]
        variant: _variant_pb2.Variant
        def __init__(self, variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ...) -> None: ...
    class GameEnded(_message.Message):
        __slots__ = ["outcome"]
        OUTCOME_FIELD_NUMBER: _ClassVar[int]
        outcome: _outcome_pb2.Outcome
        def __init__(self, outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ...) -> None: ...
    class MovePlayed(_message.Message):
        __slots__ = ["move"]
        MOVE_FIELD_NUMBER: _ClassVar[int]
        move: _board_pb2.Move
        def __init__(self, move: _Optional[_Union[_board_pb2.Move, _Mapping]] = ...) -> None: ...
    CLOCK_FIELD_NUMBER: _ClassVar[int]
    DRAW_DECLINED_FIELD_NUMBER: _ClassVar[int]
    DRAW_OFFERED_FIELD_NUMBER: _ClassVar[int]
    EVENT_TIME_FIELD_NUMBER: _ClassVar[int]
    GAME_CREATED_FIELD_NUMBER: _ClassVar[int]
    GAME_ENDED_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MOVE_PLAYED_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    clock: Clock
    draw_declined: GameEvent.DrawDeclined
    draw_offered: GameEvent.DrawOffered
    event_time: _timestamp_pb2.Timestamp
    game: str
    game_created: GameEvent.GameCreated
    game_ended: GameEvent.GameEnded
    move_played: GameEvent.MovePlayed
    ply: int
    position: _board_pb2.Position
    sequence: int
    def __init__(self, game: _Optional[str] = ..., sequence: _Optional[int] = ..., event_time: _Optional[_Union[_timestamp_pb2.Timestamp, _Mapping]] = ..., ply: _Optional[int] = ..., position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., clock: _Optional[_Union[Clock, _Mapping]] = ..., game_created: _Optional[_Union[GameEvent.GameCreated, _Mapping]] = ..., move_played: _Optional[_Union[GameEvent.MovePlayed, _Mapping]] = ..., draw_offered: _Optional[_Union[GameEvent.DrawOffered, _Mapping]] = ..., draw_declined: _Optional[_Union[GameEvent.DrawDeclined, _Mapping]] = ..., game_ended: _Optional[_Union[GameEvent.GameEnded, _Mapping]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ["increment", "initial", "per_move"]
    INCREMENT_FIELD_NUMBER: _ClassVar[int]
    INITIAL_FIELD_NUMBER: _ClassVar[int]
    PER_MOVE_FIELD_NUMBER: _ClassVar[int]
    increment: _duration_pb2.Duration
    initial: _duration_pb2.Duration
    per_move: _duration_pb2.Duration
    def __init__(self, initial: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., increment: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., per_move: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ...) -> None: ...

class GameStatus(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class GameView(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
