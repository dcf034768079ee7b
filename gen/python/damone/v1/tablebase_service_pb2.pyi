from damone.v1 import variant_pb2 as _variant_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
TABLEBASE_CATEGORY_BLESSED_LOSS: TablebaseCategory
TABLEBASE_CATEGORY_CURSED_WIN: TablebaseCategory
TABLEBASE_CATEGORY_DRAW: TablebaseCategory
TABLEBASE_CATEGORY_LOSS: TablebaseCategory
TABLEBASE_CATEGORY_UNKNOWN: TablebaseCategory
TABLEBASE_CATEGORY_UNSPECIFIED: TablebaseCategory
TABLEBASE_CATEGORY_WIN: TablebaseCategory

class GetMainlineRequest(_message.Message):
    __slots__ = ["position", "variant"]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    position: str
    variant: _variant_pb2.Variant
    def __init__(self, position: _Optional[str] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ...) -> None: ...

class GetMainlineResponse(_message.Message):
    __slots__ = ["category", "final_position", "moves"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    FINAL_POSITION_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    category: TablebaseCategory
    final_position: str
    moves: _containers.RepeatedCompositeFieldContainer[TablebaseMove]
    def __init__(self, category: _Optional[_Union[TablebaseCategory, str]] = ..., moves: _Optional[_Iterable[_Union[TablebaseMove, _Mapping]]] = ..., final_position: _Optional[str] = ...) -> None: ...

class ProbePositionRequest(_message.Message):
    __slots__ = ["position", "variant"]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    position: str
    variant: _variant_pb2.Variant
    def __init__(self, position: _Optional[str] = ..., variant: _Optional[_Union[_variant_pb2.Variant, _Mapping]] = ...) -> None: ...

class ProbePositionResponse(_message.Message):
    __slots__ = ["category", "dtc", "moves", "plies_to_spare"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    DTC_FIELD_NUMBER: _ClassVar[int]
    MOVES_FIELD_NUMBER: _ClassVar[int]
    PLIES_TO_SPARE_FIELD_NUMBER: _ClassVar[int]
    category: TablebaseCategory
    dtc: int
    moves: _containers.RepeatedCompositeFieldContainer[TablebaseMove]
    plies_to_spare: int
    def __init__(self, category: _Optional[_Union[TablebaseCategory, str]] = ..., dtc: _Optional[int] = ..., plies_to_spare: _Optional[int] = ..., moves: _Optional[_Iterable[_Union[TablebaseMove, _Mapping]]] = ...) -> None: ...

class TablebaseMove(_message.Message):
    __slots__ = ["category", "conversion", "dtc", "notation"]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    CONVERSION_FIELD_NUMBER: _ClassVar[int]
    DTC_FIELD_NUMBER: _ClassVar[int]
    NOTATION_FIELD_NUMBER: _ClassVar[int]
    category: TablebaseCategory
    conversion: bool
    dtc: int
    notation: str
    def __init__(self, notation: _Optional[str] = ..., conversion: bool = ..., category: _Optional[_Union[TablebaseCategory, str]] = ..., dtc: _Optional[int] = ...) -> None: ...

class TablebaseCategory(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
