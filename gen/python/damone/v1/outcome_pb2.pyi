from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor
OUTCOME_REASON_ABORTED: OutcomeReason
OUTCOME_REASON_AGREED_DRAW: OutcomeReason
OUTCOME_REASON_ALL_DAMONES_CAPTURED: OutcomeReason
OUTCOME_REASON_ALL_PIECES_CAPTURED: OutcomeReason
OUTCOME_REASON_NO_PROGRESS: OutcomeReason
OUTCOME_REASON_REPETITION: OutcomeReason
OUTCOME_REASON_RESIGNATION: OutcomeReason
OUTCOME_REASON_STALEMATE: OutcomeReason
OUTCOME_REASON_TIMEOUT: OutcomeReason
OUTCOME_REASON_UNSPECIFIED: OutcomeReason
OUTCOME_RESULT_BLACK_WINS: OutcomeResult
OUTCOME_RESULT_DRAW: OutcomeResult
OUTCOME_RESULT_NO_RESULT: OutcomeResult
OUTCOME_RESULT_RED_WINS: OutcomeResult
OUTCOME_RESULT_UNSPECIFIED: OutcomeResult

class Outcome(_message.Message):
    __slots__ = ["reason", "result"]
    REASON_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    reason: OutcomeReason
    result: OutcomeResult
    def __init__(self, result: _Optional[_Union[OutcomeResult, str]] = ..., reason: _Optional[_Union[OutcomeReason, str]] = ...) -> None: ...

class OutcomeResult(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []

class OutcomeReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = []
