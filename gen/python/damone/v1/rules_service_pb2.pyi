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

class ValidateGameRequest(_message.Message):
    __slots__ = ["include_positions", "moves", "pdn", "variant"]
    INCLUDE_POSITIONS_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PDN_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    include_positions: bool
    moves: _containers.RepeatedScalarFieldContainer[str]
    pdn: str
    variant: _variant_pb2.Variant
    def __init__(self, variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ..., moves: _Optional[_Iterable[str]] = ..., pdn: _Optional[str] = ..., include_positions: bool = ...) -> None: ...

class ValidateGameResponse(_message.Message):
    __slots__ = ["cause", "end_ply", "final_position", "first_illegal_ply", "illegal_move", "message", "metadata", "moves", "outcome", "ply", "positions", "reason", "valid"]
    class MetadataEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CAUSE_FIELD_NUMBER: _ClassVar[int]
    END_PLY_FIELD_NUMBER: _ClassVar[int]
    FINAL_POSITION_FIELD_NUMBER: _ClassVar[int]
    FIRST_ILLEGAL_PLY_FIELD_NUMBER: _ClassVar[int]
    ILLEGAL_MOVE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    PLY_FIELD_NUMBER: _ClassVar[int]
    POSITIONS_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    VALID_FIELD_NUMBER: _ClassVar[int]
    cause: str
    end_ply: int
    final_position: _board_pb2.Position
    first_illegal_ply: int
    illegal_move: str
    message: str
    metadata: _containers.ScalarMap[str, str]
    moves: _containers.RepeatedScalarFieldContainer[str]
    outcome: _outcome_pb2.Outcome
    ply: int
    positions: _containers.RepeatedCompositeFieldContainer[_board_pb2.Position]
    reason: str
    valid: bool
    def __init__(self, valid: bool = ..., first_illegal_ply: _Optional[int] = ..., illegal_move: _Optional[str] = ..., reason: _Optional[str] = ..., cause: _Optional[str] = ..., message: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ..., moves: _Optional[_Iterable[str]] = ..., ply: _Optional[int] = ..., outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ..., end_ply: _Optional[int] = ..., final_position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., positions: _Optional[_Iterable[_Union[_board_pb2.Position, _Mapping]]] = ...) -> None: ...

class ValidateGamesRequest(_message.Message):
    __slots__ = ["game", "id"]
    GAME_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    game: ValidateGameRequest
    id: str
    def __init__(self, id: _Optional[str] = ..., game: _Optional[_Union[ValidateGameRequest, _Mapping]] = ...) -> None: ...

class ValidateGamesResponse(_message.Message):
    __slots__ = ["error", "id", "result"]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    error: ValidationError
    id: str
    result: ValidateGameResponse
    def __init__(self, id: _Optional[str] = ..., result: _Optional[_Union[ValidateGameResponse, _Mapping]] = ..., error: _Optional[_Union[ValidationError, _Mapping]] = ...) -> None: ...

class ValidationError(_message.Message):
    __slots__ = ["code", "field", "message", "metadata", "reason"]
    class MetadataEntry(_message.Message):
        __slots__ = ["key", "value"]
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    CODE_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    code: str
    field: str
    message: str
    metadata: _containers.ScalarMap[str, str]
    reason: str
    def __init__(self, code: _Optional[str] = ..., reason: _Optional[str] = ..., field: _Optional[str] = ..., message: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...
