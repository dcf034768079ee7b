from damone.v1 import board_pb2 as _board_pb2
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
SETUP_NO_DAMONE: Setup
SETUP_STANDARD: Setup
SETUP_UNSPECIFIED: Setup
WIN_CONDITION_CAPTURE_ALL_DAMONES: WinCondition
WIN_CONDITION_CAPTURE_ALL_PIECES: WinCondition
WIN_CONDITION_UNSPECIFIED: WinCondition

class Variant(_message.Message):
    __slots__ = ["first_player", "no_progress_limit", "repetition_draw", "setup", "start_position", "win_condition"]
    FIRST_PLAYER_FIELD_NUMBER: _ClassVar[int]
    NO_PROGRESS_LIMIT_FIELD_NUMBER: _ClassVar[int]
    REPETITION_DRAW_FIELD_NUMBER: _ClassVar[int]
    SETUP_FIELD_NUMBER: _ClassVar[int]
    START_POSITION_FIELD_NUMBER: _ClassVar[int]
    WIN_CONDITION_FIELD_NUMBER: _ClassVar[int]
    first_player: _board_pb2.Side
    no_progress_limit: int
    repetition_draw: bool
    setup: Setup
    start_position: _board_pb2.Position
    win_condition: WinCondition
    def __init__(self, setup: _Optional[_Union[Setup, str]] = ..., start_position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., win_condition: _Optional[_Union[WinCondition, str]] = ..., first_player: _Optional[_Union[_board_pb2.Side, str]] = ..., repetition_draw: bool = ..., no_progress_limit: _Optional[int] = ...) -> None: ...

class Setup(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class WinCondition(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
