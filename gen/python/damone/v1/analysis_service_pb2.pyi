from damone.v1 import board_pb2 as _board_pb2
from damone.v1 import outcome_pb2 as _outcome_pb2
from damone.v1 import tablebase_service_pb2 as _tablebase_service_pb2
from damone.v1 import variant_pb2 as _variant_pb2
from google.protobuf import duration_pb2 as _duration_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AnalysisLine(_message.Message):
    __slots__ = ["moves", "score"]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    moves: _containers.RepeatedScalarFieldContainer[str]
    score: Score
    def __init__(self, score: _Optional[_Union[Score, _Mapping]] = ..., moves: _Optional[_Iterable[str]] = ...) -> None: ...

class AnalyzePositionRequest(_message.Message):
    __slots__ = ["depth", "infinite", "lines", "move_time", "nodes", "position", "variant"]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    INFINITE_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    depth: int
    infinite: bool
    lines: int
    move_time: _duration_pb2.Duration
    nodes: int
    position: _board_pb2.Position
    variant: _variant_pb2.Variant
    def __init__(self, position: _Optional[_Union[_board_pb2.Position, _Mapping]] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ..., depth: _Optional[int] = ..., nodes: _Optional[int] = ..., move_time: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., infinite: bool = ..., lines: _Optional[int] = ...) -> None: ...

class AnalyzePositionResponse(_message.Message):
    __slots__ = ["best_move", "depth", "elapsed", "final", "lines", "nodes", "nodes_per_second", "outcome", "tablebase"]
    BEST_MOVE_FIELD_NUMBER: _ClassVar[int]
    DEPTH_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_FIELD_NUMBER: _ClassVar[int]
    FINAL_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    NODES_FIELD_NUMBER: _ClassVar[int]
    NODES_PER_SECOND_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    TABLEBASE_FIELD_NUMBER: _ClassVar[int]
    best_move: _board_pb2.Move
    depth: int
    elapsed: _duration_pb2.Duration
    final: bool
    lines: _containers.RepeatedCompositeFieldContainer[AnalysisLine]
    nodes: int
    nodes_per_second: int
    outcome: _outcome_pb2.Outcome
    tablebase: TablebaseVerdict
    def __init__(self, depth: _Optional[int] = ..., nodes: _Optional[int] = ..., nodes_per_second: _Optional[int] = ..., elapsed: _Optional[_Union[_duration_pb2.Duration, _Mapping]] = ..., lines: _Optional[_Iterable[_Union[AnalysisLine, _Mapping]]] = ..., final: bool = ..., best_move: _Optional[_Union[_board_pb2.Move, _Mapping]] = ..., outcome: _Optional[_Union[_outcome_pb2.Outcome, _Mapping]] = ..., tablebase: _Optional[_Union[TablebaseVerdict, _Mapping]] = ...) -> None: ...

class Score(_message.Message):
    __slots__ = ["centipedines", "loss_in_plies", "win_in_plies"]
    CENTIPEDINES_FIELD_NUMBER: _ClassVar[int]
    LOSS_IN_PLIES_FIELD_NUMBER: _ClassVar[int]
    WIN_IN_PLIES_FIELD_NUMBER: _ClassVar[int]
    centipedines: int
    loss_in_plies: int
    win_in_plies: int
    def __init__(self, centipedines: _Optional[int] = ..., win_in_plies: _Optional[int] = ..., loss_in_plies: _Optional[int] = ...) -> None: ...

class TablebaseVerdict(_message.Message):
    __slots__ = ["category", "dtc", "plies_to_spare"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DTC_FIELD_NUMBER: _ClassVar[int]
    PLIES_TO_SPARE_FIELD_NUMBER: _ClassVar[int]
    category: _tablebase_service_pb2.TablebaseCategory
    dtc: int
    plies_to_spare: int
    def __init__(self, category: _Optional[_Union[_tablebase_service_pb2.TablebaseCategory, str]] = ..., dtc: _Optional[int] = ..., plies_to_spare: _Optional[int] = ...) -> None: ...
