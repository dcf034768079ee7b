from damone.v1 import board_pb2 as _board_pb2
from damone.v1 import game_pb2 as _game_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Iterable as _Iterable, Mapping as _Mapping, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AnswerDrawOfferRequest(_message.Message):
    __slots__ = ["accept", "name", "request_id"]
    ACCEPT_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    accept: bool
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., accept: bool = ..., request_id: _Optional[str] = ...) -> None: ...

class AnswerDrawOfferResponse(_message.Message):
    __slots__ = ["game"]
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.Game
    def __init__(self, game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ...) -> None: ...

class CreateGameRequest(_message.Message):
    __slots__ = ["game", "request_id"]
    GAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.Game
    request_id: str
    def __init__(self, game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ..., request_id: _Optional[str] = ...) -> None: ...

class CreateGameResponse(_message.Message):
    __slots__ = ["black_token", "game", "red_token"]
    BLACK_TOKEN_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    RED_TOKEN_FIELD_NUMBER: _ClassVar[int]
    black_token: str
    game: _game_pb2.Game
    red_token: str
    def __init__(self, game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ..., red_token: _Optional[str] = ..., black_token: _Optional[str] = ...) -> None: ...

class ExportPdnRequest(_message.Message):
    __slots__ = ["name"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    name: str
    def __init__(self, name: _Optional[str] = ...) -> None: ...

class ExportPdnResponse(_message.Message):
    __slots__ = ["pdn"]
    PDN_FIELD_NUMBER: _ClassVar[int]
    pdn: str
    def __init__(self, pdn: _Optional[str] = ...) -> None: ...

class GetGameRequest(_message.Message):
    __slots__ = ["name", "view"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    name: str
    view: _game_pb2.GameView
    def __init__(self, name: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, str]] = ...) -> None: ...

class ListGamesRequest(_message.Message):
    __slots__ = ["page_size", "page_token", "status", "view"]
    PAGE_SIZE_FIELD_NUMBER: _ClassVar[int]
    PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    page_size: int
    page_token: str
    status: _game_pb2.GameStatus
    view: _game_pb2.GameView
    def __init__(self, page_size: _Optional[int] = ..., page_token: _Optional[str] = ..., status: _Optional[_Union[_game_pb2.GameStatus, str]] = ..., view: _Optional[_Union[_game_pb2.GameView, str]] = ...) -> None: ...

class ListGamesResponse(_message.Message):
    __slots__ = ["games", "next_page_token"]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    NEXT_PAGE_TOKEN_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedCompositeFieldContainer[_game_pb2.Game]
    next_page_token: str
    def __init__(self, games: _Optional[_Iterable[_Union[_game_pb2.Game, _Mapping]]] = ..., next_page_token: _Optional[str] = ...) -> None: ...

class MakeMoveRequest(_message.Message):
    __slots__ = ["etag", "expected_ply", "move", "name", "request_id", "view"]
    ETAG_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_PLY_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    VIEW_FIELD_NUMBER: _ClassVar[int]
    etag: str
    expected_ply: int
    move: str
    name: str
    request_id: str
    view: _game_pb2.GameView
    def __init__(self, name: _Optional[str] = ..., move: _Optional[str] = ..., etag: _Optional[str] = ..., expected_ply: _Optional[int] = ..., request_id: _Optional[str] = ..., view: _Optional[_Union[_game_pb2.GameView, str]] = ...) -> None: ...

class MakeMoveResponse(_message.Message):
    __slots__ = ["event_sequence", "game", "move"]
    EVENT_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    MOVE_FIELD_NUMBER: _ClassVar[int]
    event_sequence: int
    game: _game_pb2.Game
    move: _board_pb2.Move
    def __init__(self, move: _Optional[_Union[_board_pb2.Move, _Mapping]] = ..., game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ..., event_sequence: _Optional[int] = ...) -> None: ...

class OfferDrawRequest(_message.Message):
    __slots__ = ["name", "request_id"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class OfferDrawResponse(_message.Message):
    __slots__ = ["game"]
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.Game
    def __init__(self, game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ...) -> None: ...

class ResignRequest(_message.Message):
    __slots__ = ["name", "request_id"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    name: str
    request_id: str
    def __init__(self, name: _Optional[str] = ..., request_id: _Optional[str] = ...) -> None: ...

class ResignResponse(_message.Message):
    __slots__ = ["game"]
    GAME_FIELD_NUMBER: _ClassVar[int]
    game: _game_pb2.Game
    def __init__(self, game: _Optional[_Union[_game_pb2.Game, _Mapping]] = ...) -> None: ...

class WatchGameRequest(_message.Message):
    __slots__ = ["name", "since_sequence"]
    NAME_FIELD_NUMBER: _ClassVar[int]
    SINCE_SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    since_sequence: int
    def __init__(self, name: _Optional[str] = ..., since_sequence: _Optional[int] = ...) -> None: ...
