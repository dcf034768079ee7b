from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
RANK_DAMA: Rank
RANK_DAMONE: Rank
RANK_PEDINE: Rank
RANK_UNSPECIFIED: Rank
SIDE_BLACK: Side
SIDE_RED: Side
SIDE_UNSPECIFIED: Side

class Move(_message.Message):
    __slots__ = ["captured_pieces", "landing_squares", "notation", "origin", "promotion", "rank", "side"]
    CAPTURED_PIECES_FIELD_NUMBER: _ClassVar[int]
    LANDING_SQUARES_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    PROMOTION_FIELD_NUMBER: _ClassVar[int]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    captured_pieces: _containers.RepeatedCompositeFieldContainer[Piece]
    landing_squares: _containers.RepeatedScalarFieldContainer[str]
    notation: str
    origin: str
    promotion: Rank
    rank: Rank
    side: Side
    def __init__(self, notation: _Optional[str] = ..., side: _Optional[_Union[Side, str]] = ..., rank: _Optional[_Union[Rank, str]] = ..., origin: _Optional[str] = ..., landing_squares: _Optional[_Iterable[str]] = ..., captured_pieces: _Optional[_Iterable[_Union[Piece, _Mapping]]] = ..., promotion: _Optional[_Union[Rank, str]] = ...) -> None: ...

class Piece(_message.Message):
    __slots__ = ["rank", "side", "square"]
    RANK_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    SQUARE_FIELD_NUMBER: _ClassVar[int]
    rank: Rank
    side: Side
    square: str
    def __init__(self, square: _Optional[str] = ..., side: _Optional[_Union[Side, str]] = ..., rank: _Optional[_Union[Rank, str]] = ...) -> None: ...

class Position(_message.Message):
    __slots__ = ["no_progress_plies", "pieces", "side_to_move", "text"]
    NO_PROGRESS_PLIES_FIELD_NUMBER: _ClassVar[int]
    PIECES_FIELD_NUMBER: _ClassVar[int]
    SIDE_TO_MOVE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    no_progress_plies: int
    pieces: _containers.RepeatedCompositeFieldContainer[Piece]
    side_to_move: Side
    text: str
    def __init__(self, side_to_move: _Optional[_Union[Side, str]] = ..., pieces: _Optional[_Iterable[_Union[Piece, _Mapping]]] = ..., no_progress_plies: _Optional[int] = ..., text: _Optional[str] = ...) -> None: ...

class Side(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class Rank(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
