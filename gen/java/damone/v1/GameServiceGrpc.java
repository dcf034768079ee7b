package damone.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Games of Italian Damone, stored and refereed by the service. Anyone may
 * create, read, list and watch games; the moves, resignations and draw
 * offers of a side need that side's secret token.
 * Authentication: CreateGame returns one token per side, once. MakeMove,
 * Resign, OfferDraw and AnswerDrawOffer need the acting side's token as
 * gRPC metadata (HTTP header) `authorization: Bearer &lt;token&gt;`; the token
 * decides which side acts. A missing or malformed header is
 * UNAUTHENTICATED (reason MISSING_TOKEN); a token that is neither of the
 * game's tokens is PERMISSION_DENIED (reason WRONG_TOKEN).
 * Errors (see ErrorReason for every reason and its metadata): every method
 * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
 * for a malformed request, e.g. a `name` not of the form `games/{game}`;
 * every method on one game returns NOT_FOUND (GAME_NOT_FOUND) if it does
 * not exist. Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)
 * when a server limit is reached, UNAVAILABLE
 * while the server is starting or stopping (retry with backoff), and
 * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call. The checks are made
 * in this order: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
 * PERMISSION_DENIED, then a replayed `request_id`, which returns the first
 * response, then ABORTED, FAILED_PRECONDITION, RESOURCE_EXHAUSTED.
 * Retries (docs/api.md, Consistency and retries): every call that changes
 * a game (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) takes
 * an optional `request_id` (AIP-155). A call repeated with the same ID
 * returns the first call's response, once that call succeeded, and
 * changes nothing again; so a write whose outcome is unknown
 * (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, a broken connection) is
 * safe to retry with its ID, and only with it. The reads (GetGame,
 * ListGames, WatchGame, ExportPdn) are always safe to retry.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: damone/v1/game_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class GameServiceGrpc {

  private GameServiceGrpc() {}

  public static final String SERVICE_NAME = "damone.v1.GameService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.CreateGameRequest,
      damone.v1.GameServiceOuterClass.CreateGameResponse> getCreateGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "CreateGame",
      requestType = damone.v1.GameServiceOuterClass.CreateGameRequest.class,
      responseType = damone.v1.GameServiceOuterClass.CreateGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.CreateGameRequest,
      damone.v1.GameServiceOuterClass.CreateGameResponse> getCreateGameMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.CreateGameRequest, damone.v1.GameServiceOuterClass.CreateGameResponse> getCreateGameMethod;
    if ((getCreateGameMethod = GameServiceGrpc.getCreateGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getCreateGameMethod = GameServiceGrpc.getCreateGameMethod) == null) {
          GameServiceGrpc.getCreateGameMethod = getCreateGameMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.CreateGameRequest, damone.v1.GameServiceOuterClass.CreateGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "CreateGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.CreateGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.CreateGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("CreateGame"))
              .build();
        }
      }
    }
    return getCreateGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.GetGameRequest,
      damone.v1.GameOuterClass.Game> getGetGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetGame",
      requestType = damone.v1.GameServiceOuterClass.GetGameRequest.class,
      responseType = damone.v1.GameOuterClass.Game.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.GetGameRequest,
      damone.v1.GameOuterClass.Game> getGetGameMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.GetGameRequest, damone.v1.GameOuterClass.Game> getGetGameMethod;
    if ((getGetGameMethod = GameServiceGrpc.getGetGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getGetGameMethod = GameServiceGrpc.getGetGameMethod) == null) {
          GameServiceGrpc.getGetGameMethod = getGetGameMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.GetGameRequest, damone.v1.GameOuterClass.Game>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetGame"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.GetGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameOuterClass.Game.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("GetGame"))
              .build();
        }
      }
    }
    return getGetGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ListGamesRequest,
      damone.v1.GameServiceOuterClass.ListGamesResponse> getListGamesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGames",
      requestType = damone.v1.GameServiceOuterClass.ListGamesRequest.class,
      responseType = damone.v1.GameServiceOuterClass.ListGamesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ListGamesRequest,
      damone.v1.GameServiceOuterClass.ListGamesResponse> getListGamesMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ListGamesRequest, damone.v1.GameServiceOuterClass.ListGamesResponse> getListGamesMethod;
    if ((getListGamesMethod = GameServiceGrpc.getListGamesMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getListGamesMethod = GameServiceGrpc.getListGamesMethod) == null) {
          GameServiceGrpc.getListGamesMethod = getListGamesMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.ListGamesRequest, damone.v1.GameServiceOuterClass.ListGamesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGames"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ListGamesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ListGamesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("ListGames"))
              .build();
        }
      }
    }
    return getListGamesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.MakeMoveRequest,
      damone.v1.GameServiceOuterClass.MakeMoveResponse> getMakeMoveMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "MakeMove",
      requestType = damone.v1.GameServiceOuterClass.MakeMoveRequest.class,
      responseType = damone.v1.GameServiceOuterClass.MakeMoveResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.MakeMoveRequest,
      damone.v1.GameServiceOuterClass.MakeMoveResponse> getMakeMoveMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.MakeMoveRequest, damone.v1.GameServiceOuterClass.MakeMoveResponse> getMakeMoveMethod;
    if ((getMakeMoveMethod = GameServiceGrpc.getMakeMoveMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getMakeMoveMethod = GameServiceGrpc.getMakeMoveMethod) == null) {
          GameServiceGrpc.getMakeMoveMethod = getMakeMoveMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.MakeMoveRequest, damone.v1.GameServiceOuterClass.MakeMoveResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "MakeMove"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.MakeMoveRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.MakeMoveResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("MakeMove"))
              .build();
        }
      }
    }
    return getMakeMoveMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ResignRequest,
      damone.v1.GameServiceOuterClass.ResignResponse> getResignMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Resign",
      requestType = damone.v1.GameServiceOuterClass.ResignRequest.class,
      responseType = damone.v1.GameServiceOuterClass.ResignResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ResignRequest,
      damone.v1.GameServiceOuterClass.ResignResponse> getResignMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ResignRequest, damone.v1.GameServiceOuterClass.ResignResponse> getResignMethod;
    if ((getResignMethod = GameServiceGrpc.getResignMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getResignMethod = GameServiceGrpc.getResignMethod) == null) {
          GameServiceGrpc.getResignMethod = getResignMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.ResignRequest, damone.v1.GameServiceOuterClass.ResignResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Resign"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ResignRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ResignResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("Resign"))
              .build();
        }
      }
    }
    return getResignMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.OfferDrawRequest,
      damone.v1.GameServiceOuterClass.OfferDrawResponse> getOfferDrawMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "OfferDraw",
      requestType = damone.v1.GameServiceOuterClass.OfferDrawRequest.class,
      responseType = damone.v1.GameServiceOuterClass.OfferDrawResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.OfferDrawRequest,
      damone.v1.GameServiceOuterClass.OfferDrawResponse> getOfferDrawMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.OfferDrawRequest, damone.v1.GameServiceOuterClass.OfferDrawResponse> getOfferDrawMethod;
    if ((getOfferDrawMethod = GameServiceGrpc.getOfferDrawMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getOfferDrawMethod = GameServiceGrpc.getOfferDrawMethod) == null) {
          GameServiceGrpc.getOfferDrawMethod = getOfferDrawMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.OfferDrawRequest, damone.v1.GameServiceOuterClass.OfferDrawResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "OfferDraw"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.OfferDrawRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.OfferDrawResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("OfferDraw"))
              .build();
        }
      }
    }
    return getOfferDrawMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest,
      damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> getAnswerDrawOfferMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AnswerDrawOffer",
      requestType = damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest.class,
      responseType = damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest,
      damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> getAnswerDrawOfferMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest, damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> getAnswerDrawOfferMethod;
    if ((getAnswerDrawOfferMethod = GameServiceGrpc.getAnswerDrawOfferMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getAnswerDrawOfferMethod = GameServiceGrpc.getAnswerDrawOfferMethod) == null) {
          GameServiceGrpc.getAnswerDrawOfferMethod = getAnswerDrawOfferMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest, damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AnswerDrawOffer"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("AnswerDrawOffer"))
              .build();
        }
      }
    }
    return getAnswerDrawOfferMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.WatchGameRequest,
      damone.v1.GameOuterClass.GameEvent> getWatchGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "WatchGame",
      requestType = damone.v1.GameServiceOuterClass.WatchGameRequest.class,
      responseType = damone.v1.GameOuterClass.GameEvent.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.WatchGameRequest,
      damone.v1.GameOuterClass.GameEvent> getWatchGameMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.WatchGameRequest, damone.v1.GameOuterClass.GameEvent> getWatchGameMethod;
    if ((getWatchGameMethod = GameServiceGrpc.getWatchGameMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getWatchGameMethod = GameServiceGrpc.getWatchGameMethod) == null) {
          GameServiceGrpc.getWatchGameMethod = getWatchGameMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.WatchGameRequest, damone.v1.GameOuterClass.GameEvent>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "WatchGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.WatchGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameOuterClass.GameEvent.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("WatchGame"))
              .build();
        }
      }
    }
    return getWatchGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ExportPdnRequest,
      damone.v1.GameServiceOuterClass.ExportPdnResponse> getExportPdnMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ExportPdn",
      requestType = damone.v1.GameServiceOuterClass.ExportPdnRequest.class,
      responseType = damone.v1.GameServiceOuterClass.ExportPdnResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ExportPdnRequest,
      damone.v1.GameServiceOuterClass.ExportPdnResponse> getExportPdnMethod() {
    io.grpc.MethodDescriptor<damone.v1.GameServiceOuterClass.ExportPdnRequest, damone.v1.GameServiceOuterClass.ExportPdnResponse> getExportPdnMethod;
    if ((getExportPdnMethod = GameServiceGrpc.getExportPdnMethod) == null) {
      synchronized (GameServiceGrpc.class) {
        if ((getExportPdnMethod = GameServiceGrpc.getExportPdnMethod) == null) {
          GameServiceGrpc.getExportPdnMethod = getExportPdnMethod =
              io.grpc.MethodDescriptor.<damone.v1.GameServiceOuterClass.ExportPdnRequest, damone.v1.GameServiceOuterClass.ExportPdnResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ExportPdn"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ExportPdnRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.GameServiceOuterClass.ExportPdnResponse.getDefaultInstance()))
              .setSchemaDescriptor(new GameServiceMethodDescriptorSupplier("ExportPdn"))
              .build();
        }
      }
    }
    return getExportPdnMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static GameServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceStub>() {
        @java.lang.Override
        public GameServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceStub(channel, callOptions);
        }
      };
    return GameServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static GameServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceBlockingStub>() {
        @java.lang.Override
        public GameServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceBlockingStub(channel, callOptions);
        }
      };
    return GameServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static GameServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<GameServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<GameServiceFutureStub>() {
        @java.lang.Override
        public GameServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new GameServiceFutureStub(channel, callOptions);
        }
      };
    return GameServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Games of Italian Damone, stored and refereed by the service. Anyone may
   * create, read, list and watch games; the moves, resignations and draw
   * offers of a side need that side's secret token.
   * Authentication: CreateGame returns one token per side, once. MakeMove,
   * Resign, OfferDraw and AnswerDrawOffer need the acting side's token as
   * gRPC metadata (HTTP header) `authorization: Bearer &lt;token&gt;`; the token
   * decides which side acts. A missing or malformed header is
   * UNAUTHENTICATED (reason MISSING_TOKEN); a token that is neither of the
   * game's tokens is PERMISSION_DENIED (reason WRONG_TOKEN).
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, e.g. a `name` not of the form `games/{game}`;
   * every method on one game returns NOT_FOUND (GAME_NOT_FOUND) if it does
   * not exist. Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)
   * when a server limit is reached, UNAVAILABLE
   * while the server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call. The checks are made
   * in this order: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
   * PERMISSION_DENIED, then a replayed `request_id`, which returns the first
   * response, then ABORTED, FAILED_PRECONDITION, RESOURCE_EXHAUSTED.
   * Retries (docs/api.md, Consistency and retries): every call that changes
   * a game (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) takes
   * an optional `request_id` (AIP-155). A call repeated with the same ID
   * returns the first call's response, once that call succeeded, and
   * changes nothing again; so a write whose outcome is unknown
   * (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, a broken connection) is
   * safe to retry with its ID, and only with it. The reads (GetGame,
   * ListGames, WatchGame, ExportPdn) are always safe to retry.
   * </pre>
   */
  public static abstract class GameServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Creates a game with the given rule settings and returns it, with the
     * secret token of each side. The tokens are returned only here, once:
     * the service cannot show them again. A game with a `time_control` has
     * clocks the server keeps (docs/api.md, Clocks): a side that runs out of
     * time loses (OUTCOME_REASON_TIMEOUT) and a first move that never comes
     * aborts the game (OUTCOME_REASON_ABORTED), with or without a client.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * engine opponent or time control (the field violation names the field,
     * e.g. `game.time_control.initial` out of the server's bounds);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` = `engine_queue` for a
     * game against the engine that moves first while as many engine moves
     * wait as the server allows, then with `limit` = `games` when the
     * service stores as many games as it may.
     * If `request_id` is set and a CreateGame with that ID already succeeded,
     * its first response is returned again, tokens included, and no game is
     * created (see CreateGameRequest.request_id); the replay comes after the
     * INVALID_ARGUMENT checks and before RESOURCE_EXHAUSTED. The same ID with
     * different settings is INVALID_ARGUMENT (INVALID_REQUEST, field
     * `request_id`).
     * HTTP: `POST /v1/games`, the `game` field as the JSON body (`{}` for a
     * standard game), the request ID as the query parameter `request_id`,
     * e.g. `POST /v1/games?request_id=4c1e0f7a-2b9d-4e5f-8a6c-3d7b1e9f0a25`.
     * </pre>
     */
    public void createGame(damone.v1.GameServiceOuterClass.CreateGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.CreateGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getCreateGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns a game: its settings, moves (in the full view, the default) and
     * current state.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or an
     * unknown `view`; NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}`.
     * </pre>
     */
    public void getGame(damone.v1.GameServiceOuterClass.GetGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.Game> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists games, oldest first, a page at a time, optionally only those with
     * a given status.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a negative `page_size`,
     * an unknown `view`, or a `page_token` that this service did not return
     * for the same filter.
     * HTTP: `GET /v1/games`, the fields as query parameters, e.g.
     * `GET /v1/games?page_size=10&amp;status=GAME_STATUS_IN_PROGRESS`.
     * </pre>
     */
    public void listGames(damone.v1.GameServiceOuterClass.ListGamesRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ListGamesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGamesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Plays a move for the side whose token is given, and returns the move in
     * full and the updated game. If the move ends the game, the game is
     * finished in the same call. If `request_id` is set and a request of the
     * same side with the same ID already succeeded on this game, the first
     * response is returned again and nothing is played (see
     * MakeMoveRequest.request_id).
     * Errors, in the order they are checked: INVALID_ARGUMENT
     * (INVALID_REQUEST) for malformed move notation, a malformed
     * `request_id` or an unknown `view`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN: the token is neither
     * side's; the token alone decides the acting side, whoever's piece the
     * move names); INVALID_ARGUMENT (INVALID_REQUEST) for a `request_id` the
     * same side already used with a different move; ABORTED (ETAG_MISMATCH
     * or PLY_MISMATCH) when the game changed since the given `etag` or
     * `expected_ply`; FAILED_PRECONDITION with reason GAME_OVER (the game is
     * finished) or NOT_YOUR_TURN (the token's side is not to move);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `game_plies`) when the
     * game has as many plies as the server allows (it can still end by
     * resignation or an agreed draw); FAILED_PRECONDITION with reason
     * ILLEGAL_MOVE (not a legal move here, e.g. cause OPPONENT_PIECE for the
     * other side's piece, as RulesService.ApplyMove answers; the message
     * says why and the metadata lists the legal moves) or AMBIGUOUS_MOVE (a
     * short-form capture matches several legal moves); RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `engine_queue`) when the engine would answer
     * the move and as many engine moves wait as the server allows (nothing
     * is played; retry later).
     * HTTP: `POST /v1/{name=games/&#42;}:move`, the other fields as the JSON
     * body.
     * </pre>
     */
    public void makeMove(damone.v1.GameServiceOuterClass.MakeMoveRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.MakeMoveResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getMakeMoveMethod(), responseObserver);
    }

    /**
     * <pre>
     * Resigns the game for the side whose token is given: the other side
     * wins (OUTCOME_REASON_RESIGNATION). A side may resign on either side's
     * turn.
     * A replayed `request_id` (see ResignRequest.request_id) returns the
     * first response, even though the game is now over.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION (GAME_OVER).
     * HTTP: `POST /v1/{name=games/&#42;}:resign`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public void resign(damone.v1.GameServiceOuterClass.ResignRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ResignResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getResignMethod(), responseObserver);
    }

    /**
     * <pre>
     * Offers a draw to the opponent for the side whose token is given, on
     * either side's turn. The offer stays pending (Game.draw_offer) until the
     * opponent answers it with AnswerDrawOffer, the opponent makes a move
     * (which declines it), or the game ends.
     * A replayed `request_id` (see OfferDrawRequest.request_id) returns the
     * first response, not DRAW_ALREADY_OFFERED.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION with reason
     * GAME_OVER or DRAW_ALREADY_OFFERED (an offer by either side is already
     * pending).
     * HTTP: `POST /v1/{name=games/&#42;}:offerDraw`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public void offerDraw(damone.v1.GameServiceOuterClass.OfferDrawRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.OfferDrawResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getOfferDrawMethod(), responseObserver);
    }

    /**
     * <pre>
     * Accepts or declines the opponent's pending draw offer, for the side
     * whose token is given. Accepting ends the game as a draw
     * (OUTCOME_REASON_AGREED_DRAW).
     * A replayed `request_id` (see AnswerDrawOfferRequest.request_id)
     * returns the first response, not NO_DRAW_OFFER or GAME_OVER.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request (another call, or the other `accept`);
     * FAILED_PRECONDITION with reason GAME_OVER or NO_DRAW_OFFER (the
     * opponent has no pending offer; a side cannot answer its own offer).
     * HTTP: `POST /v1/{name=games/&#42;}:answerDrawOffer`, the other fields as
     * the JSON body, e.g. `{"accept": true}`.
     * </pre>
     */
    public void answerDrawOffer(damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAnswerDrawOfferMethod(), responseObserver);
    }

    /**
     * <pre>
     * Streams a game's events: first every stored event with a sequence
     * above `since_sequence`, in order, then each new event as it happens.
     * The stream ends (status OK) right after the `game_ended` event, or at
     * once if that event is at or below `since_sequence`. If the stream
     * breaks for any other reason, call again with `since_sequence` = the
     * last sequence received: no event is lost or repeated.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or a
     * negative `since_sequence`; NOT_FOUND (GAME_NOT_FOUND); OUT_OF_RANGE
     * (SEQUENCE_OUT_OF_RANGE) if `since_sequence` is above the game's latest
     * sequence; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `watchers`) if
     * too many streams are open; UNAVAILABLE when the server shuts down
     * (resume as above).
     * HTTP: `GET /v1/{name=games/&#42;}:watch?since_sequence=N`; the response is
     * a stream of newline-delimited JSON objects, each `{"result": &lt;event&gt;}`
     * (or `{"error": &lt;status&gt;}` if the stream fails).
     * </pre>
     */
    public void watchGame(damone.v1.GameServiceOuterClass.WatchGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.GameEvent> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getWatchGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns a game as a PDN game record (docs/notation.md, PDN): the seven
     * standard tags, `GameType` naming Italian Damone, `SetUp` and `FEN` for a
     * custom start, the variant's settings as tags, and the moves with move
     * numbers and the result token. A finished game's reason is a comment
     * after the last move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name;
     * NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}:exportPdn`.
     * </pre>
     */
    public void exportPdn(damone.v1.GameServiceOuterClass.ExportPdnRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ExportPdnResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getExportPdnMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getCreateGameMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.CreateGameRequest,
                damone.v1.GameServiceOuterClass.CreateGameResponse>(
                  this, METHODID_CREATE_GAME)))
          .addMethod(
            getGetGameMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.GetGameRequest,
                damone.v1.GameOuterClass.Game>(
                  this, METHODID_GET_GAME)))
          .addMethod(
            getListGamesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.ListGamesRequest,
                damone.v1.GameServiceOuterClass.ListGamesResponse>(
                  this, METHODID_LIST_GAMES)))
          .addMethod(
            getMakeMoveMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.MakeMoveRequest,
                damone.v1.GameServiceOuterClass.MakeMoveResponse>(
                  this, METHODID_MAKE_MOVE)))
          .addMethod(
            getResignMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.ResignRequest,
                damone.v1.GameServiceOuterClass.ResignResponse>(
                  this, METHODID_RESIGN)))
          .addMethod(
            getOfferDrawMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.OfferDrawRequest,
                damone.v1.GameServiceOuterClass.OfferDrawResponse>(
                  this, METHODID_OFFER_DRAW)))
          .addMethod(
            getAnswerDrawOfferMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest,
                damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse>(
                  this, METHODID_ANSWER_DRAW_OFFER)))
          .addMethod(
            getWatchGameMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.WatchGameRequest,
                damone.v1.GameOuterClass.GameEvent>(
                  this, METHODID_WATCH_GAME)))
          .addMethod(
            getExportPdnMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.GameServiceOuterClass.ExportPdnRequest,
                damone.v1.GameServiceOuterClass.ExportPdnResponse>(
                  this, METHODID_EXPORT_PDN)))
          .build();
    }
  }

  /**
   * <pre>
   * Games of Italian Damone, stored and refereed by the service. Anyone may
   * create, read, list and watch games; the moves, resignations and draw
   * offers of a side need that side's secret token.
   * Authentication: CreateGame returns one token per side, once. MakeMove,
   * Resign, OfferDraw and AnswerDrawOffer need the acting side's token as
   * gRPC metadata (HTTP header) `authorization: Bearer &lt;token&gt;`; the token
   * decides which side acts. A missing or malformed header is
   * UNAUTHENTICATED (reason MISSING_TOKEN); a token that is neither of the
   * game's tokens is PERMISSION_DENIED (reason WRONG_TOKEN).
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, e.g. a `name` not of the form `games/{game}`;
   * every method on one game returns NOT_FOUND (GAME_NOT_FOUND) if it does
   * not exist. Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)
   * when a server limit is reached, UNAVAILABLE
   * while the server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call. The checks are made
   * in this order: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
   * PERMISSION_DENIED, then a replayed `request_id`, which returns the first
   * response, then ABORTED, FAILED_PRECONDITION, RESOURCE_EXHAUSTED.
   * Retries (docs/api.md, Consistency and retries): every call that changes
   * a game (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) takes
   * an optional `request_id` (AIP-155). A call repeated with the same ID
   * returns the first call's response, once that call succeeded, and
   * changes nothing again; so a write whose outcome is unknown
   * (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, a broken connection) is
   * safe to retry with its ID, and only with it. The reads (GetGame,
   * ListGames, WatchGame, ExportPdn) are always safe to retry.
   * </pre>
   */
  public static final class GameServiceStub extends io.grpc.stub.AbstractAsyncStub<GameServiceStub> {
    private GameServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a game with the given rule settings and returns it, with the
     * secret token of each side. The tokens are returned only here, once:
     * the service cannot show them again. A game with a `time_control` has
     * clocks the server keeps (docs/api.md, Clocks): a side that runs out of
     * time loses (OUTCOME_REASON_TIMEOUT) and a first move that never comes
     * aborts the game (OUTCOME_REASON_ABORTED), with or without a client.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * engine opponent or time control (the field violation names the field,
     * e.g. `game.time_control.initial` out of the server's bounds);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` = `engine_queue` for a
     * game against the engine that moves first while as many engine moves
     * wait as the server allows, then with `limit` = `games` when the
     * service stores as many games as it may.
     * If `request_id` is set and a CreateGame with that ID already succeeded,
     * its first response is returned again, tokens included, and no game is
     * created (see CreateGameRequest.request_id); the replay comes after the
     * INVALID_ARGUMENT checks and before RESOURCE_EXHAUSTED. The same ID with
     * different settings is INVALID_ARGUMENT (INVALID_REQUEST, field
     * `request_id`).
     * HTTP: `POST /v1/games`, the `game` field as the JSON body (`{}` for a
     * standard game), the request ID as the query parameter `request_id`,
     * e.g. `POST /v1/games?request_id=4c1e0f7a-2b9d-4e5f-8a6c-3d7b1e9f0a25`.
     * </pre>
     */
    public void createGame(damone.v1.GameServiceOuterClass.CreateGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.CreateGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getCreateGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns a game: its settings, moves (in the full view, the default) and
     * current state.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or an
     * unknown `view`; NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}`.
     * </pre>
     */
    public void getGame(damone.v1.GameServiceOuterClass.GetGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.Game> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists games, oldest first, a page at a time, optionally only those with
     * a given status.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a negative `page_size`,
     * an unknown `view`, or a `page_token` that this service did not return
     * for the same filter.
     * HTTP: `GET /v1/games`, the fields as query parameters, e.g.
     * `GET /v1/games?page_size=10&amp;status=GAME_STATUS_IN_PROGRESS`.
     * </pre>
     */
    public void listGames(damone.v1.GameServiceOuterClass.ListGamesRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ListGamesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Plays a move for the side whose token is given, and returns the move in
     * full and the updated game. If the move ends the game, the game is
     * finished in the same call. If `request_id` is set and a request of the
     * same side with the same ID already succeeded on this game, the first
     * response is returned again and nothing is played (see
     * MakeMoveRequest.request_id).
     * Errors, in the order they are checked: INVALID_ARGUMENT
     * (INVALID_REQUEST) for malformed move notation, a malformed
     * `request_id` or an unknown `view`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN: the token is neither
     * side's; the token alone decides the acting side, whoever's piece the
     * move names); INVALID_ARGUMENT (INVALID_REQUEST) for a `request_id` the
     * same side already used with a different move; ABORTED (ETAG_MISMATCH
     * or PLY_MISMATCH) when the game changed since the given `etag` or
     * `expected_ply`; FAILED_PRECONDITION with reason GAME_OVER (the game is
     * finished) or NOT_YOUR_TURN (the token's side is not to move);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `game_plies`) when the
     * game has as many plies as the server allows (it can still end by
     * resignation or an agreed draw); FAILED_PRECONDITION with reason
     * ILLEGAL_MOVE (not a legal move here, e.g. cause OPPONENT_PIECE for the
     * other side's piece, as RulesService.ApplyMove answers; the message
     * says why and the metadata lists the legal moves) or AMBIGUOUS_MOVE (a
     * short-form capture matches several legal moves); RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `engine_queue`) when the engine would answer
     * the move and as many engine moves wait as the server allows (nothing
     * is played; retry later).
     * HTTP: `POST /v1/{name=games/&#42;}:move`, the other fields as the JSON
     * body.
     * </pre>
     */
    public void makeMove(damone.v1.GameServiceOuterClass.MakeMoveRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.MakeMoveResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getMakeMoveMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Resigns the game for the side whose token is given: the other side
     * wins (OUTCOME_REASON_RESIGNATION). A side may resign on either side's
     * turn.
     * A replayed `request_id` (see ResignRequest.request_id) returns the
     * first response, even though the game is now over.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION (GAME_OVER).
     * HTTP: `POST /v1/{name=games/&#42;}:resign`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public void resign(damone.v1.GameServiceOuterClass.ResignRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ResignResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getResignMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Offers a draw to the opponent for the side whose token is given, on
     * either side's turn. The offer stays pending (Game.draw_offer) until the
     * opponent answers it with AnswerDrawOffer, the opponent makes a move
     * (which declines it), or the game ends.
     * A replayed `request_id` (see OfferDrawRequest.request_id) returns the
     * first response, not DRAW_ALREADY_OFFERED.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION with reason
     * GAME_OVER or DRAW_ALREADY_OFFERED (an offer by either side is already
     * pending).
     * HTTP: `POST /v1/{name=games/&#42;}:offerDraw`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public void offerDraw(damone.v1.GameServiceOuterClass.OfferDrawRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.OfferDrawResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getOfferDrawMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Accepts or declines the opponent's pending draw offer, for the side
     * whose token is given. Accepting ends the game as a draw
     * (OUTCOME_REASON_AGREED_DRAW).
     * A replayed `request_id` (see AnswerDrawOfferRequest.request_id)
     * returns the first response, not NO_DRAW_OFFER or GAME_OVER.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request (another call, or the other `accept`);
     * FAILED_PRECONDITION with reason GAME_OVER or NO_DRAW_OFFER (the
     * opponent has no pending offer; a side cannot answer its own offer).
     * HTTP: `POST /v1/{name=games/&#42;}:answerDrawOffer`, the other fields as
     * the JSON body, e.g. `{"accept": true}`.
     * </pre>
     */
    public void answerDrawOffer(damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getAnswerDrawOfferMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Streams a game's events: first every stored event with a sequence
     * above `since_sequence`, in order, then each new event as it happens.
     * The stream ends (status OK) right after the `game_ended` event, or at
     * once if that event is at or below `since_sequence`. If the stream
     * breaks for any other reason, call again with `since_sequence` = the
     * last sequence received: no event is lost or repeated.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or a
     * negative `since_sequence`; NOT_FOUND (GAME_NOT_FOUND); OUT_OF_RANGE
     * (SEQUENCE_OUT_OF_RANGE) if `since_sequence` is above the game's latest
     * sequence; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `watchers`) if
     * too many streams are open; UNAVAILABLE when the server shuts down
     * (resume as above).
     * HTTP: `GET /v1/{name=games/&#42;}:watch?since_sequence=N`; the response is
     * a stream of newline-delimited JSON objects, each `{"result": &lt;event&gt;}`
     * (or `{"error": &lt;status&gt;}` if the stream fails).
     * </pre>
     */
    public void watchGame(damone.v1.GameServiceOuterClass.WatchGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.GameEvent> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getWatchGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns a game as a PDN game record (docs/notation.md, PDN): the seven
     * standard tags, `GameType` naming Italian Damone, `SetUp` and `FEN` for a
     * custom start, the variant's settings as tags, and the moves with move
     * numbers and the result token. A finished game's reason is a comment
     * after the last move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name;
     * NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}:exportPdn`.
     * </pre>
     */
    public void exportPdn(damone.v1.GameServiceOuterClass.ExportPdnRequest request,
        io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ExportPdnResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getExportPdnMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Games of Italian Damone, stored and refereed by the service. Anyone may
   * create, read, list and watch games; the moves, resignations and draw
   * offers of a side need that side's secret token.
   * Authentication: CreateGame returns one token per side, once. MakeMove,
   * Resign, OfferDraw and AnswerDrawOffer need the acting side's token as
   * gRPC metadata (HTTP header) `authorization: Bearer &lt;token&gt;`; the token
   * decides which side acts. A missing or malformed header is
   * UNAUTHENTICATED (reason MISSING_TOKEN); a token that is neither of the
   * game's tokens is PERMISSION_DENIED (reason WRONG_TOKEN).
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, e.g. a `name` not of the form `games/{game}`;
   * every method on one game returns NOT_FOUND (GAME_NOT_FOUND) if it does
   * not exist. Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)
   * when a server limit is reached, UNAVAILABLE
   * while the server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call. The checks are made
   * in this order: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
   * PERMISSION_DENIED, then a replayed `request_id`, which returns the first
   * response, then ABORTED, FAILED_PRECONDITION, RESOURCE_EXHAUSTED.
   * Retries (docs/api.md, Consistency and retries): every call that changes
   * a game (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) takes
   * an optional `request_id` (AIP-155). A call repeated with the same ID
   * returns the first call's response, once that call succeeded, and
   * changes nothing again; so a write whose outcome is unknown
   * (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, a broken connection) is
   * safe to retry with its ID, and only with it. The reads (GetGame,
   * ListGames, WatchGame, ExportPdn) are always safe to retry.
   * </pre>
   */
  public static final class GameServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<GameServiceBlockingStub> {
    private GameServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a game with the given rule settings and returns it, with the
     * secret token of each side. The tokens are returned only here, once:
     * the service cannot show them again. A game with a `time_control` has
     * clocks the server keeps (docs/api.md, Clocks): a side that runs out of
     * time loses (OUTCOME_REASON_TIMEOUT) and a first move that never comes
     * aborts the game (OUTCOME_REASON_ABORTED), with or without a client.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * engine opponent or time control (the field violation names the field,
     * e.g. `game.time_control.initial` out of the server's bounds);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` = `engine_queue` for a
     * game against the engine that moves first while as many engine moves
     * wait as the server allows, then with `limit` = `games` when the
     * service stores as many games as it may.
     * If `request_id` is set and a CreateGame with that ID already succeeded,
     * its first response is returned again, tokens included, and no game is
     * created (see CreateGameRequest.request_id); the replay comes after the
     * INVALID_ARGUMENT checks and before RESOURCE_EXHAUSTED. The same ID with
     * different settings is INVALID_ARGUMENT (INVALID_REQUEST, field
     * `request_id`).
     * HTTP: `POST /v1/games`, the `game` field as the JSON body (`{}` for a
     * standard game), the request ID as the query parameter `request_id`,
     * e.g. `POST /v1/games?request_id=4c1e0f7a-2b9d-4e5f-8a6c-3d7b1e9f0a25`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.CreateGameResponse createGame(damone.v1.GameServiceOuterClass.CreateGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getCreateGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a game: its settings, moves (in the full view, the default) and
     * current state.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or an
     * unknown `view`; NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}`.
     * </pre>
     */
    public damone.v1.GameOuterClass.Game getGame(damone.v1.GameServiceOuterClass.GetGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists games, oldest first, a page at a time, optionally only those with
     * a given status.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a negative `page_size`,
     * an unknown `view`, or a `page_token` that this service did not return
     * for the same filter.
     * HTTP: `GET /v1/games`, the fields as query parameters, e.g.
     * `GET /v1/games?page_size=10&amp;status=GAME_STATUS_IN_PROGRESS`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.ListGamesResponse listGames(damone.v1.GameServiceOuterClass.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGamesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Plays a move for the side whose token is given, and returns the move in
     * full and the updated game. If the move ends the game, the game is
     * finished in the same call. If `request_id` is set and a request of the
     * same side with the same ID already succeeded on this game, the first
     * response is returned again and nothing is played (see
     * MakeMoveRequest.request_id).
     * Errors, in the order they are checked: INVALID_ARGUMENT
     * (INVALID_REQUEST) for malformed move notation, a malformed
     * `request_id` or an unknown `view`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN: the token is neither
     * side's; the token alone decides the acting side, whoever's piece the
     * move names); INVALID_ARGUMENT (INVALID_REQUEST) for a `request_id` the
     * same side already used with a different move; ABORTED (ETAG_MISMATCH
     * or PLY_MISMATCH) when the game changed since the given `etag` or
     * `expected_ply`; FAILED_PRECONDITION with reason GAME_OVER (the game is
     * finished) or NOT_YOUR_TURN (the token's side is not to move);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `game_plies`) when the
     * game has as many plies as the server allows (it can still end by
     * resignation or an agreed draw); FAILED_PRECONDITION with reason
     * ILLEGAL_MOVE (not a legal move here, e.g. cause OPPONENT_PIECE for the
     * other side's piece, as RulesService.ApplyMove answers; the message
     * says why and the metadata lists the legal moves) or AMBIGUOUS_MOVE (a
     * short-form capture matches several legal moves); RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `engine_queue`) when the engine would answer
     * the move and as many engine moves wait as the server allows (nothing
     * is played; retry later).
     * HTTP: `POST /v1/{name=games/&#42;}:move`, the other fields as the JSON
     * body.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.MakeMoveResponse makeMove(damone.v1.GameServiceOuterClass.MakeMoveRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getMakeMoveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Resigns the game for the side whose token is given: the other side
     * wins (OUTCOME_REASON_RESIGNATION). A side may resign on either side's
     * turn.
     * A replayed `request_id` (see ResignRequest.request_id) returns the
     * first response, even though the game is now over.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION (GAME_OVER).
     * HTTP: `POST /v1/{name=games/&#42;}:resign`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.ResignResponse resign(damone.v1.GameServiceOuterClass.ResignRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getResignMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Offers a draw to the opponent for the side whose token is given, on
     * either side's turn. The offer stays pending (Game.draw_offer) until the
     * opponent answers it with AnswerDrawOffer, the opponent makes a move
     * (which declines it), or the game ends.
     * A replayed `request_id` (see OfferDrawRequest.request_id) returns the
     * first response, not DRAW_ALREADY_OFFERED.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION with reason
     * GAME_OVER or DRAW_ALREADY_OFFERED (an offer by either side is already
     * pending).
     * HTTP: `POST /v1/{name=games/&#42;}:offerDraw`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.OfferDrawResponse offerDraw(damone.v1.GameServiceOuterClass.OfferDrawRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getOfferDrawMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Accepts or declines the opponent's pending draw offer, for the side
     * whose token is given. Accepting ends the game as a draw
     * (OUTCOME_REASON_AGREED_DRAW).
     * A replayed `request_id` (see AnswerDrawOfferRequest.request_id)
     * returns the first response, not NO_DRAW_OFFER or GAME_OVER.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request (another call, or the other `accept`);
     * FAILED_PRECONDITION with reason GAME_OVER or NO_DRAW_OFFER (the
     * opponent has no pending offer; a side cannot answer its own offer).
     * HTTP: `POST /v1/{name=games/&#42;}:answerDrawOffer`, the other fields as
     * the JSON body, e.g. `{"accept": true}`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse answerDrawOffer(damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getAnswerDrawOfferMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Streams a game's events: first every stored event with a sequence
     * above `since_sequence`, in order, then each new event as it happens.
     * The stream ends (status OK) right after the `game_ended` event, or at
     * once if that event is at or below `since_sequence`. If the stream
     * breaks for any other reason, call again with `since_sequence` = the
     * last sequence received: no event is lost or repeated.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or a
     * negative `since_sequence`; NOT_FOUND (GAME_NOT_FOUND); OUT_OF_RANGE
     * (SEQUENCE_OUT_OF_RANGE) if `since_sequence` is above the game's latest
     * sequence; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `watchers`) if
     * too many streams are open; UNAVAILABLE when the server shuts down
     * (resume as above).
     * HTTP: `GET /v1/{name=games/&#42;}:watch?since_sequence=N`; the response is
     * a stream of newline-delimited JSON objects, each `{"result": &lt;event&gt;}`
     * (or `{"error": &lt;status&gt;}` if the stream fails).
     * </pre>
     */
    public java.util.Iterator<damone.v1.GameOuterClass.GameEvent> watchGame(
        damone.v1.GameServiceOuterClass.WatchGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getWatchGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns a game as a PDN game record (docs/notation.md, PDN): the seven
     * standard tags, `GameType` naming Italian Damone, `SetUp` and `FEN` for a
     * custom start, the variant's settings as tags, and the moves with move
     * numbers and the result token. A finished game's reason is a comment
     * after the last move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name;
     * NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}:exportPdn`.
     * </pre>
     */
    public damone.v1.GameServiceOuterClass.ExportPdnResponse exportPdn(damone.v1.GameServiceOuterClass.ExportPdnRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getExportPdnMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Games of Italian Damone, stored and refereed by the service. Anyone may
   * create, read, list and watch games; the moves, resignations and draw
   * offers of a side need that side's secret token.
   * Authentication: CreateGame returns one token per side, once. MakeMove,
   * Resign, OfferDraw and AnswerDrawOffer need the acting side's token as
   * gRPC metadata (HTTP header) `authorization: Bearer &lt;token&gt;`; the token
   * decides which side acts. A missing or malformed header is
   * UNAUTHENTICATED (reason MISSING_TOKEN); a token that is neither of the
   * game's tokens is PERMISSION_DENIED (reason WRONG_TOKEN).
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, e.g. a `name` not of the form `games/{game}`;
   * every method on one game returns NOT_FOUND (GAME_NOT_FOUND) if it does
   * not exist. Any method may return RESOURCE_EXHAUSTED (LIMIT_EXCEEDED)
   * when a server limit is reached, UNAVAILABLE
   * while the server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call. The checks are made
   * in this order: INVALID_ARGUMENT, UNAUTHENTICATED, NOT_FOUND,
   * PERMISSION_DENIED, then a replayed `request_id`, which returns the first
   * response, then ABORTED, FAILED_PRECONDITION, RESOURCE_EXHAUSTED.
   * Retries (docs/api.md, Consistency and retries): every call that changes
   * a game (CreateGame, MakeMove, Resign, OfferDraw, AnswerDrawOffer) takes
   * an optional `request_id` (AIP-155). A call repeated with the same ID
   * returns the first call's response, once that call succeeded, and
   * changes nothing again; so a write whose outcome is unknown
   * (UNAVAILABLE, DEADLINE_EXCEEDED, CANCELLED, a broken connection) is
   * safe to retry with its ID, and only with it. The reads (GetGame,
   * ListGames, WatchGame, ExportPdn) are always safe to retry.
   * </pre>
   */
  public static final class GameServiceFutureStub extends io.grpc.stub.AbstractFutureStub<GameServiceFutureStub> {
    private GameServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected GameServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new GameServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Creates a game with the given rule settings and returns it, with the
     * secret token of each side. The tokens are returned only here, once:
     * the service cannot show them again. A game with a `time_control` has
     * clocks the server keeps (docs/api.md, Clocks): a side that runs out of
     * time loses (OUTCOME_REASON_TIMEOUT) and a first move that never comes
     * aborts the game (OUTCOME_REASON_ABORTED), with or without a client.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * engine opponent or time control (the field violation names the field,
     * e.g. `game.time_control.initial` out of the server's bounds);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` = `engine_queue` for a
     * game against the engine that moves first while as many engine moves
     * wait as the server allows, then with `limit` = `games` when the
     * service stores as many games as it may.
     * If `request_id` is set and a CreateGame with that ID already succeeded,
     * its first response is returned again, tokens included, and no game is
     * created (see CreateGameRequest.request_id); the replay comes after the
     * INVALID_ARGUMENT checks and before RESOURCE_EXHAUSTED. The same ID with
     * different settings is INVALID_ARGUMENT (INVALID_REQUEST, field
     * `request_id`).
     * HTTP: `POST /v1/games`, the `game` field as the JSON body (`{}` for a
     * standard game), the request ID as the query parameter `request_id`,
     * e.g. `POST /v1/games?request_id=4c1e0f7a-2b9d-4e5f-8a6c-3d7b1e9f0a25`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.CreateGameResponse> createGame(
        damone.v1.GameServiceOuterClass.CreateGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getCreateGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns a game: its settings, moves (in the full view, the default) and
     * current state.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name or an
     * unknown `view`; NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameOuterClass.Game> getGame(
        damone.v1.GameServiceOuterClass.GetGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists games, oldest first, a page at a time, optionally only those with
     * a given status.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a negative `page_size`,
     * an unknown `view`, or a `page_token` that this service did not return
     * for the same filter.
     * HTTP: `GET /v1/games`, the fields as query parameters, e.g.
     * `GET /v1/games?page_size=10&amp;status=GAME_STATUS_IN_PROGRESS`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.ListGamesResponse> listGames(
        damone.v1.GameServiceOuterClass.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Plays a move for the side whose token is given, and returns the move in
     * full and the updated game. If the move ends the game, the game is
     * finished in the same call. If `request_id` is set and a request of the
     * same side with the same ID already succeeded on this game, the first
     * response is returned again and nothing is played (see
     * MakeMoveRequest.request_id).
     * Errors, in the order they are checked: INVALID_ARGUMENT
     * (INVALID_REQUEST) for malformed move notation, a malformed
     * `request_id` or an unknown `view`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN: the token is neither
     * side's; the token alone decides the acting side, whoever's piece the
     * move names); INVALID_ARGUMENT (INVALID_REQUEST) for a `request_id` the
     * same side already used with a different move; ABORTED (ETAG_MISMATCH
     * or PLY_MISMATCH) when the game changed since the given `etag` or
     * `expected_ply`; FAILED_PRECONDITION with reason GAME_OVER (the game is
     * finished) or NOT_YOUR_TURN (the token's side is not to move);
     * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED, `limit` = `game_plies`) when the
     * game has as many plies as the server allows (it can still end by
     * resignation or an agreed draw); FAILED_PRECONDITION with reason
     * ILLEGAL_MOVE (not a legal move here, e.g. cause OPPONENT_PIECE for the
     * other side's piece, as RulesService.ApplyMove answers; the message
     * says why and the metadata lists the legal moves) or AMBIGUOUS_MOVE (a
     * short-form capture matches several legal moves); RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `engine_queue`) when the engine would answer
     * the move and as many engine moves wait as the server allows (nothing
     * is played; retry later).
     * HTTP: `POST /v1/{name=games/&#42;}:move`, the other fields as the JSON
     * body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.MakeMoveResponse> makeMove(
        damone.v1.GameServiceOuterClass.MakeMoveRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getMakeMoveMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Resigns the game for the side whose token is given: the other side
     * wins (OUTCOME_REASON_RESIGNATION). A side may resign on either side's
     * turn.
     * A replayed `request_id` (see ResignRequest.request_id) returns the
     * first response, even though the game is now over.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION (GAME_OVER).
     * HTTP: `POST /v1/{name=games/&#42;}:resign`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.ResignResponse> resign(
        damone.v1.GameServiceOuterClass.ResignRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getResignMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Offers a draw to the opponent for the side whose token is given, on
     * either side's turn. The offer stays pending (Game.draw_offer) until the
     * opponent answers it with AnswerDrawOffer, the opponent makes a move
     * (which declines it), or the game ends.
     * A replayed `request_id` (see OfferDrawRequest.request_id) returns the
     * first response, not DRAW_ALREADY_OFFERED.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request; FAILED_PRECONDITION with reason
     * GAME_OVER or DRAW_ALREADY_OFFERED (an offer by either side is already
     * pending).
     * HTTP: `POST /v1/{name=games/&#42;}:offerDraw`, body `{}` or
     * `{"request_id": "..."}`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.OfferDrawResponse> offerDraw(
        damone.v1.GameServiceOuterClass.OfferDrawRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getOfferDrawMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Accepts or declines the opponent's pending draw offer, for the side
     * whose token is given. Accepting ends the game as a draw
     * (OUTCOME_REASON_AGREED_DRAW).
     * A replayed `request_id` (see AnswerDrawOfferRequest.request_id)
     * returns the first response, not NO_DRAW_OFFER or GAME_OVER.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed
     * `request_id`; UNAUTHENTICATED (MISSING_TOKEN); NOT_FOUND
     * (GAME_NOT_FOUND); PERMISSION_DENIED (WRONG_TOKEN); INVALID_ARGUMENT
     * (INVALID_REQUEST) for a `request_id` the same side already used on
     * this game for another request (another call, or the other `accept`);
     * FAILED_PRECONDITION with reason GAME_OVER or NO_DRAW_OFFER (the
     * opponent has no pending offer; a side cannot answer its own offer).
     * HTTP: `POST /v1/{name=games/&#42;}:answerDrawOffer`, the other fields as
     * the JSON body, e.g. `{"accept": true}`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse> answerDrawOffer(
        damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getAnswerDrawOfferMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns a game as a PDN game record (docs/notation.md, PDN): the seven
     * standard tags, `GameType` naming Italian Damone, `SetUp` and `FEN` for a
     * custom start, the variant's settings as tags, and the moves with move
     * numbers and the result token. A finished game's reason is a comment
     * after the last move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed name;
     * NOT_FOUND (GAME_NOT_FOUND).
     * HTTP: `GET /v1/{name=games/&#42;}:exportPdn`.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.GameServiceOuterClass.ExportPdnResponse> exportPdn(
        damone.v1.GameServiceOuterClass.ExportPdnRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getExportPdnMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_CREATE_GAME = 0;
  private static final int METHODID_GET_GAME = 1;
  private static final int METHODID_LIST_GAMES = 2;
  private static final int METHODID_MAKE_MOVE = 3;
  private static final int METHODID_RESIGN = 4;
  private static final int METHODID_OFFER_DRAW = 5;
  private static final int METHODID_ANSWER_DRAW_OFFER = 6;
  private static final int METHODID_WATCH_GAME = 7;
  private static final int METHODID_EXPORT_PDN = 8;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final GameServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(GameServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_CREATE_GAME:
          serviceImpl.createGame((damone.v1.GameServiceOuterClass.CreateGameRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.CreateGameResponse>) responseObserver);
          break;
        case METHODID_GET_GAME:
          serviceImpl.getGame((damone.v1.GameServiceOuterClass.GetGameRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.Game>) responseObserver);
          break;
        case METHODID_LIST_GAMES:
          serviceImpl.listGames((damone.v1.GameServiceOuterClass.ListGamesRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ListGamesResponse>) responseObserver);
          break;
        case METHODID_MAKE_MOVE:
          serviceImpl.makeMove((damone.v1.GameServiceOuterClass.MakeMoveRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.MakeMoveResponse>) responseObserver);
          break;
        case METHODID_RESIGN:
          serviceImpl.resign((damone.v1.GameServiceOuterClass.ResignRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ResignResponse>) responseObserver);
          break;
        case METHODID_OFFER_DRAW:
          serviceImpl.offerDraw((damone.v1.GameServiceOuterClass.OfferDrawRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.OfferDrawResponse>) responseObserver);
          break;
        case METHODID_ANSWER_DRAW_OFFER:
          serviceImpl.answerDrawOffer((damone.v1.GameServiceOuterClass.AnswerDrawOfferRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.AnswerDrawOfferResponse>) responseObserver);
          break;
        case METHODID_WATCH_GAME:
          serviceImpl.watchGame((damone.v1.GameServiceOuterClass.WatchGameRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameOuterClass.GameEvent>) responseObserver);
          break;
        case METHODID_EXPORT_PDN:
          serviceImpl.exportPdn((damone.v1.GameServiceOuterClass.ExportPdnRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.GameServiceOuterClass.ExportPdnResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class GameServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    GameServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return damone.v1.GameServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("GameService");
    }
  }

  private static final class GameServiceFileDescriptorSupplier
      extends GameServiceBaseDescriptorSupplier {
    GameServiceFileDescriptorSupplier() {}
  }

  private static final class GameServiceMethodDescriptorSupplier
      extends GameServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    GameServiceMethodDescriptorSupplier(String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (GameServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new GameServiceFileDescriptorSupplier())
              .addMethod(getCreateGameMethod())
              .addMethod(getGetGameMethod())
              .addMethod(getListGamesMethod())
              .addMethod(getMakeMoveMethod())
              .addMethod(getResignMethod())
              .addMethod(getOfferDrawMethod())
              .addMethod(getAnswerDrawOfferMethod())
              .addMethod(getWatchGameMethod())
              .addMethod(getExportPdnMethod())
              .build();
        }
      }
    }
    return result;
  }
}
