from damone.v1 import board_pb2 as _board_pb2
from damone.v1 import outcome_pb2 as _outcome_pb2
from damone.v1 import variant_pb2 as _variant_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ApplyMoveRequest(_message.Message):
    __slots__ = ["move", "position", "variant"]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    move: str
    position: _board_pb2.Position
    variant: _variant_pb2.Variant
    def __init__(self, position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ..., move: _Optional[str] = ...) -> None: ...

class ApplyMoveResponse(_message.Message):
    __slots__ = ["move", "outcome", "position"]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    move: _board_pb2.Move
    outcome: _outcome_pb2.Outcome
    position: _board_pb2.Position
    def __init__(self, move: _Optional[_Union[_board_pb2.Move, _Mapping]] = ..., position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ...) -> None: ...

class GetInitialPositionRequest(_message.Message):
    __slots__ = ["variant"]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    variant: _variant_pb2.Variant
    def __init__(self, variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ...) -> None: ...

class GetInitialPositionResponse(_message.Message):
    __slots__ = ["position"]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    position: _board_pb2.Position
    def __init__(self, position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ...) -> None: ...

class ListLegalMovesRequest(_message.Message):
    __slots__ = ["position", "variant"]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    position: _board_pb2.Position
    variant: _variant_pb2.Variant
    def __init__(self, position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ...) -> None: ...

class ListLegalMovesResponse(_message.Message):
    __slots__ = ["moves", "outcome", "position"]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedCompositeFieldContainer[_board_pb2.Move]
    outcome: _outcome_pb2.Outcome
    position: _board_pb2.Position
    def __init__(self, moves: _Optional[_Iterable[_Union[_board_pb2.Move, _Mapping]]] = ..., outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ..., position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ...) -> None: ...

class PerftRequest(_message.Message):
    __slots__ = ["depth", "divide", "position"]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    DIVIDE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    depth: int
    divide: bool
    position: _board_pb2.Position
    def __init__(self, position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., depth: _Optional[int] = ..., divide: bool = ...) -> None: ...

class PerftResponse(_message.Message):
    __slots__ = ["divisions", "nodes"]
    class Division(_message.Message):
        __slots__ = ["move", "nodes"]
        MOVE_FIELD_NUMBER: _ClassVar[int]
        NODES_FIELD_NUMBER: _ClassVar[int]
        move: str
        nodes: int
        def __init__(self, move: _Optional[str] = ..., nodes: _Optional[int] = ...) -> None: ...
    DIVISIONS_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    divisions: _containers.RepeatedCompositeFieldContainer[PerftResponse.Division]
    nodes: int
    def __init__(self, nodes: _Optional[int] = ..., divisions: _Optional[_Iterable[_Union[PerftResponse.Division, _Mapping]]] = ...) -> None: ...
