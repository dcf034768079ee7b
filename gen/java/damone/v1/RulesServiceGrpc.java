package damone.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * The rules of Italian Damone as a stateless service: every request carries
 * the position it is about, and nothing is stored. Use it to validate and
 * explore positions; use GameService to play games.
 * Errors (see ErrorReason for every reason and its metadata): every method
 * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
 * for a malformed request, and may return RESOURCE_EXHAUSTED (reason
 * LIMIT_EXCEEDED) when a server limit is reached, UNAVAILABLE while the
 * server is starting or stopping (retry with backoff), and
 * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call.
 * Every method is marked `idempotency_level = NO_SIDE_EFFECTS`: a client
 * may retry any call on UNAVAILABLE, on the same or another replica (the
 * service config in docs/deploy.md does so).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: damone/v1/rules_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class RulesServiceGrpc {

  private RulesServiceGrpc() {}

  public static final String SERVICE_NAME = "damone.v1.RulesService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.GetInitialPositionRequest,
      damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> getGetInitialPositionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetInitialPosition",
      requestType = damone.v1.RulesServiceOuterClass.GetInitialPositionRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.GetInitialPositionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.GetInitialPositionRequest,
      damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> getGetInitialPositionMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.GetInitialPositionRequest, damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> getGetInitialPositionMethod;
    if ((getGetInitialPositionMethod = RulesServiceGrpc.getGetInitialPositionMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getGetInitialPositionMethod = RulesServiceGrpc.getGetInitialPositionMethod) == null) {
          RulesServiceGrpc.getGetInitialPositionMethod = getGetInitialPositionMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.GetInitialPositionRequest, damone.v1.RulesServiceOuterClass.GetInitialPositionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetInitialPosition"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.GetInitialPositionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.GetInitialPositionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("GetInitialPosition"))
              .build();
        }
      }
    }
    return getGetInitialPositionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ListLegalMovesRequest,
      damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> getListLegalMovesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListLegalMoves",
      requestType = damone.v1.RulesServiceOuterClass.ListLegalMovesRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.ListLegalMovesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ListLegalMovesRequest,
      damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> getListLegalMovesMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ListLegalMovesRequest, damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> getListLegalMovesMethod;
    if ((getListLegalMovesMethod = RulesServiceGrpc.getListLegalMovesMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getListLegalMovesMethod = RulesServiceGrpc.getListLegalMovesMethod) == null) {
          RulesServiceGrpc.getListLegalMovesMethod = getListLegalMovesMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.ListLegalMovesRequest, damone.v1.RulesServiceOuterClass.ListLegalMovesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListLegalMoves"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ListLegalMovesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ListLegalMovesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("ListLegalMoves"))
              .build();
        }
      }
    }
    return getListLegalMovesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ApplyMoveRequest,
      damone.v1.RulesServiceOuterClass.ApplyMoveResponse> getApplyMoveMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ApplyMove",
      requestType = damone.v1.RulesServiceOuterClass.ApplyMoveRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.ApplyMoveResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ApplyMoveRequest,
      damone.v1.RulesServiceOuterClass.ApplyMoveResponse> getApplyMoveMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ApplyMoveRequest, damone.v1.RulesServiceOuterClass.ApplyMoveResponse> getApplyMoveMethod;
    if ((getApplyMoveMethod = RulesServiceGrpc.getApplyMoveMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getApplyMoveMethod = RulesServiceGrpc.getApplyMoveMethod) == null) {
          RulesServiceGrpc.getApplyMoveMethod = getApplyMoveMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.ApplyMoveRequest, damone.v1.RulesServiceOuterClass.ApplyMoveResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ApplyMove"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ApplyMoveRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ApplyMoveResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("ApplyMove"))
              .build();
        }
      }
    }
    return getApplyMoveMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.PerftRequest,
      damone.v1.RulesServiceOuterClass.PerftResponse> getPerftMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Perft",
      requestType = damone.v1.RulesServiceOuterClass.PerftRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.PerftResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.PerftRequest,
      damone.v1.RulesServiceOuterClass.PerftResponse> getPerftMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.PerftRequest, damone.v1.RulesServiceOuterClass.PerftResponse> getPerftMethod;
    if ((getPerftMethod = RulesServiceGrpc.getPerftMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getPerftMethod = RulesServiceGrpc.getPerftMethod) == null) {
          RulesServiceGrpc.getPerftMethod = getPerftMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.PerftRequest, damone.v1.RulesServiceOuterClass.PerftResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Perft"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.PerftRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.PerftResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("Perft"))
              .build();
        }
      }
    }
    return getPerftMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGameRequest,
      damone.v1.RulesServiceOuterClass.ValidateGameResponse> getValidateGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ValidateGame",
      requestType = damone.v1.RulesServiceOuterClass.ValidateGameRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.ValidateGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGameRequest,
      damone.v1.RulesServiceOuterClass.ValidateGameResponse> getValidateGameMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGameRequest, damone.v1.RulesServiceOuterClass.ValidateGameResponse> getValidateGameMethod;
    if ((getValidateGameMethod = RulesServiceGrpc.getValidateGameMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getValidateGameMethod = RulesServiceGrpc.getValidateGameMethod) == null) {
          RulesServiceGrpc.getValidateGameMethod = getValidateGameMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.ValidateGameRequest, damone.v1.RulesServiceOuterClass.ValidateGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ValidateGame"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ValidateGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ValidateGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("ValidateGame"))
              .build();
        }
      }
    }
    return getValidateGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGamesRequest,
      damone.v1.RulesServiceOuterClass.ValidateGamesResponse> getValidateGamesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ValidateGames",
      requestType = damone.v1.RulesServiceOuterClass.ValidateGamesRequest.class,
      responseType = damone.v1.RulesServiceOuterClass.ValidateGamesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
  public static io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGamesRequest,
      damone.v1.RulesServiceOuterClass.ValidateGamesResponse> getValidateGamesMethod() {
    io.grpc.MethodDescriptor<damone.v1.RulesServiceOuterClass.ValidateGamesRequest, damone.v1.RulesServiceOuterClass.ValidateGamesResponse> getValidateGamesMethod;
    if ((getValidateGamesMethod = RulesServiceGrpc.getValidateGamesMethod) == null) {
      synchronized (RulesServiceGrpc.class) {
        if ((getValidateGamesMethod = RulesServiceGrpc.getValidateGamesMethod) == null) {
          RulesServiceGrpc.getValidateGamesMethod = getValidateGamesMethod =
              io.grpc.MethodDescriptor.<damone.v1.RulesServiceOuterClass.ValidateGamesRequest, damone.v1.RulesServiceOuterClass.ValidateGamesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.BIDI_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ValidateGames"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ValidateGamesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.RulesServiceOuterClass.ValidateGamesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RulesServiceMethodDescriptorSupplier("ValidateGames"))
              .build();
        }
      }
    }
    return getValidateGamesMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RulesServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceStub>() {
        @java.lang.Override
        public RulesServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceStub(channel, callOptions);
        }
      };
    return RulesServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RulesServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceBlockingStub>() {
        @java.lang.Override
        public RulesServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceBlockingStub(channel, callOptions);
        }
      };
    return RulesServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RulesServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RulesServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RulesServiceFutureStub>() {
        @java.lang.Override
        public RulesServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RulesServiceFutureStub(channel, callOptions);
        }
      };
    return RulesServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * The rules of Italian Damone as a stateless service: every request carries
   * the position it is about, and nothing is stored. Use it to validate and
   * explore positions; use GameService to play games.
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, and may return RESOURCE_EXHAUSTED (reason
   * LIMIT_EXCEEDED) when a server limit is reached, UNAVAILABLE while the
   * server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call.
   * Every method is marked `idempotency_level = NO_SIDE_EFFECTS`: a client
   * may retry any call on UNAVAILABLE, on the same or another replica (the
   * service config in docs/deploy.md does so).
   * </pre>
   */
  public static abstract class RulesServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Returns the starting position of a variant: the standard or no-Damone
     * setup with its first player, or the custom start position normalised
     * (both forms, canonical text).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant, e.g.
     * a malformed `start_position`, a `first_player` that contradicts it, or
     * WIN_CONDITION_CAPTURE_ALL_DAMONES without a Damone on each side.
     * HTTP: `POST /v1/rules:getInitialPosition`, the request as the JSON body.
     * </pre>
     */
    public void getInitialPosition(damone.v1.RulesServiceOuterClass.GetInitialPositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetInitialPositionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Lists every legal move in a position, or, if the game is over there,
     * no move and the outcome. Capture priority and the compulsory capture are
     * applied, and equivalent capture paths are listed once.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or an invalid variant.
     * HTTP: `POST /v1/rules:listLegalMoves`, the request as the JSON body.
     * </pre>
     */
    public void listLegalMoves(damone.v1.RulesServiceOuterClass.ListLegalMovesRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListLegalMovesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Plays one move in a position and returns the move in full, the
     * position after it and, if the move ends the game, the outcome.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position, variant or move notation (e.g. `e2-e9`, or a light square);
     * FAILED_PRECONDITION with reason ILLEGAL_MOVE (the move is not legal
     * here; the message says why and the metadata lists the legal moves),
     * AMBIGUOUS_MOVE (a short-form capture matches several legal moves), or
     * GAME_OVER (the game is already over in the given position).
     * HTTP: `POST /v1/rules:applyMove`, the request as the JSON body.
     * </pre>
     */
    public void applyMove(damone.v1.RulesServiceOuterClass.ApplyMoveRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ApplyMoveResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApplyMoveMethod(), responseObserver);
    }

    /**
     * <pre>
     * Counts the leaf nodes of the legal move tree to a given depth (perft),
     * optionally divided by first move, to check move generators against each
     * other. Distinct legal moves are counted (equivalent capture paths once),
     * and no game-over rule applies other than "no legal move".
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or a depth below 1; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED,
     * `limit` = `perft_depth`, `maximum` = the cap) for a depth above the
     * server's cap; DEADLINE_EXCEEDED if the count takes longer than the
     * call's deadline (the server stops counting).
     * HTTP: `POST /v1/rules:perft`, the request as the JSON body.
     * </pre>
     */
    public void perft(damone.v1.RulesServiceOuterClass.PerftRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.PerftResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getPerftMethod(), responseObserver);
    }

    /**
     * <pre>
     * Validates a whole game played elsewhere: plays its moves from the
     * variant's start and reports whether every move was legal, where the
     * first illegal move is and why, and where and how the game ended under
     * the variant's rules, repetition and the no-progress rule included. An
     * illegal or unfinished game is a normal answer (`valid` = false, or no
     * `outcome`), not an error. A start that is already decided is over at
     * ply 0 (RULES.md, End of the game).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * both or neither of `moves` and `pdn` (an empty game needs `moves`
     * empty and `pdn` unset: that is "no moves"), PDN that does not parse, or
     * a PDN start that contradicts `variant`; RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `game_plies`) for a game with more moves
     * than the server's limit, (`limit` = `position_plies`) for
     * `include_positions` with more moves than the server's limit for it, or
     * (`limit` = `request_bytes`) for a request above the size limit.
     * HTTP: `POST /v1/rules:validateGame`, the request as the JSON body.
     * </pre>
     */
    public void validateGame(damone.v1.RulesServiceOuterClass.ValidateGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getValidateGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Validates a stream of games: each request is one ValidateGame request
     * with a client-chosen `id`, and each response carries that `id` and the
     * verdict ValidateGame would give, or the error it would return (a bad
     * game does not end the stream). Responses come in the order of the
     * requests. The server reads a request only when it has room to answer
     * it: a client that stops reading responses stops the server's reading
     * of requests (HTTP/2 flow control), so nothing is buffered without
     * bound. The stream ends when the client closes its side and every
     * answer is sent.
     * Errors (of the whole stream): INVALID_ARGUMENT (INVALID_REQUEST) for a
     * request that does not decode; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) for a
     * request above the size limit; UNAVAILABLE when the server shuts down
     * (send again the requests not answered).
     * HTTP: `POST /v1/rules:validateGames` with newline-delimited JSON
     * requests as the body (`Content-Type: application/x-ndjson`); the
     * response is newline-delimited JSON, one `{"result": &lt;response&gt;}` per
     * request (or a final `{"error": &lt;status&gt;}` if the stream fails). Over
     * HTTP/1.1 the server answers while still reading the body.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGamesRequest> validateGames(
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGamesResponse> responseObserver) {
      return io.grpc.stub.ServerCalls.asyncUnimplementedStreamingCall(getValidateGamesMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getGetInitialPositionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.GetInitialPositionRequest,
                damone.v1.RulesServiceOuterClass.GetInitialPositionResponse>(
                  this, METHODID_GET_INITIAL_POSITION)))
          .addMethod(
            getListLegalMovesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.ListLegalMovesRequest,
                damone.v1.RulesServiceOuterClass.ListLegalMovesResponse>(
                  this, METHODID_LIST_LEGAL_MOVES)))
          .addMethod(
            getApplyMoveMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.ApplyMoveRequest,
                damone.v1.RulesServiceOuterClass.ApplyMoveResponse>(
                  this, METHODID_APPLY_MOVE)))
          .addMethod(
            getPerftMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.PerftRequest,
                damone.v1.RulesServiceOuterClass.PerftResponse>(
                  this, METHODID_PERFT)))
          .addMethod(
            getValidateGameMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.ValidateGameRequest,
                damone.v1.RulesServiceOuterClass.ValidateGameResponse>(
                  this, METHODID_VALIDATE_GAME)))
          .addMethod(
            getValidateGamesMethod(),
            io.grpc.stub.ServerCalls.asyncBidiStreamingCall(
              new MethodHandlers<
                damone.v1.RulesServiceOuterClass.ValidateGamesRequest,
                damone.v1.RulesServiceOuterClass.ValidateGamesResponse>(
                  this, METHODID_VALIDATE_GAMES)))
          .build();
    }
  }

  /**
   * <pre>
   * The rules of Italian Damone as a stateless service: every request carries
   * the position it is about, and nothing is stored. Use it to validate and
   * explore positions; use GameService to play games.
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, and may return RESOURCE_EXHAUSTED (reason
   * LIMIT_EXCEEDED) when a server limit is reached, UNAVAILABLE while the
   * server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call.
   * Every method is marked `idempotency_level = NO_SIDE_EFFECTS`: a client
   * may retry any call on UNAVAILABLE, on the same or another replica (the
   * service config in docs/deploy.md does so).
   * </pre>
   */
  public static final class RulesServiceStub extends io.grpc.stub.AbstractAsyncStub<RulesServiceStub> {
    private RulesServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the starting position of a variant: the standard or no-Damone
     * setup with its first player, or the custom start position normalised
     * (both forms, canonical text).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant, e.g.
     * a malformed `start_position`, a `first_player` that contradicts it, or
     * WIN_CONDITION_CAPTURE_ALL_DAMONES without a Damone on each side.
     * HTTP: `POST /v1/rules:getInitialPosition`, the request as the JSON body.
     * </pre>
     */
    public void getInitialPosition(damone.v1.RulesServiceOuterClass.GetInitialPositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetInitialPositionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Lists every legal move in a position, or, if the game is over there,
     * no move and the outcome. Capture priority and the compulsory capture are
     * applied, and equivalent capture paths are listed once.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or an invalid variant.
     * HTTP: `POST /v1/rules:listLegalMoves`, the request as the JSON body.
     * </pre>
     */
    public void listLegalMoves(damone.v1.RulesServiceOuterClass.ListLegalMovesRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListLegalMovesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Plays one move in a position and returns the move in full, the
     * position after it and, if the move ends the game, the outcome.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position, variant or move notation (e.g. `e2-e9`, or a light square);
     * FAILED_PRECONDITION with reason ILLEGAL_MOVE (the move is not legal
     * here; the message says why and the metadata lists the legal moves),
     * AMBIGUOUS_MOVE (a short-form capture matches several legal moves), or
     * GAME_OVER (the game is already over in the given position).
     * HTTP: `POST /v1/rules:applyMove`, the request as the JSON body.
     * </pre>
     */
    public void applyMove(damone.v1.RulesServiceOuterClass.ApplyMoveRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ApplyMoveResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApplyMoveMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Counts the leaf nodes of the legal move tree to a given depth (perft),
     * optionally divided by first move, to check move generators against each
     * other. Distinct legal moves are counted (equivalent capture paths once),
     * and no game-over rule applies other than "no legal move".
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or a depth below 1; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED,
     * `limit` = `perft_depth`, `maximum` = the cap) for a depth above the
     * server's cap; DEADLINE_EXCEEDED if the count takes longer than the
     * call's deadline (the server stops counting).
     * HTTP: `POST /v1/rules:perft`, the request as the JSON body.
     * </pre>
     */
    public void perft(damone.v1.RulesServiceOuterClass.PerftRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.PerftResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getPerftMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Validates a whole game played elsewhere: plays its moves from the
     * variant's start and reports whether every move was legal, where the
     * first illegal move is and why, and where and how the game ended under
     * the variant's rules, repetition and the no-progress rule included. An
     * illegal or unfinished game is a normal answer (`valid` = false, or no
     * `outcome`), not an error. A start that is already decided is over at
     * ply 0 (RULES.md, End of the game).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * both or neither of `moves` and `pdn` (an empty game needs `moves`
     * empty and `pdn` unset: that is "no moves"), PDN that does not parse, or
     * a PDN start that contradicts `variant`; RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `game_plies`) for a game with more moves
     * than the server's limit, (`limit` = `position_plies`) for
     * `include_positions` with more moves than the server's limit for it, or
     * (`limit` = `request_bytes`) for a request above the size limit.
     * HTTP: `POST /v1/rules:validateGame`, the request as the JSON body.
     * </pre>
     */
    public void validateGame(damone.v1.RulesServiceOuterClass.ValidateGameRequest request,
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getValidateGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Validates a stream of games: each request is one ValidateGame request
     * with a client-chosen `id`, and each response carries that `id` and the
     * verdict ValidateGame would give, or the error it would return (a bad
     * game does not end the stream). Responses come in the order of the
     * requests. The server reads a request only when it has room to answer
     * it: a client that stops reading responses stops the server's reading
     * of requests (HTTP/2 flow control), so nothing is buffered without
     * bound. The stream ends when the client closes its side and every
     * answer is sent.
     * Errors (of the whole stream): INVALID_ARGUMENT (INVALID_REQUEST) for a
     * request that does not decode; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) for a
     * request above the size limit; UNAVAILABLE when the server shuts down
     * (send again the requests not answered).
     * HTTP: `POST /v1/rules:validateGames` with newline-delimited JSON
     * requests as the body (`Content-Type: application/x-ndjson`); the
     * response is newline-delimited JSON, one `{"result": &lt;response&gt;}` per
     * request (or a final `{"error": &lt;status&gt;}` if the stream fails). Over
     * HTTP/1.1 the server answers while still reading the body.
     * </pre>
     */
    public io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGamesRequest> validateGames(
        io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGamesResponse> responseObserver) {
      return io.grpc.stub.ClientCalls.asyncBidiStreamingCall(
          getChannel().newCall(getValidateGamesMethod(), getCallOptions()), responseObserver);
    }
  }

  /**
   * <pre>
   * The rules of Italian Damone as a stateless service: every request carries
   * the position it is about, and nothing is stored. Use it to validate and
   * explore positions; use GameService to play games.
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, and may return RESOURCE_EXHAUSTED (reason
   * LIMIT_EXCEEDED) when a server limit is reached, UNAVAILABLE while the
   * server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call.
   * Every method is marked `idempotency_level = NO_SIDE_EFFECTS`: a client
   * may retry any call on UNAVAILABLE, on the same or another replica (the
   * service config in docs/deploy.md does so).
   * </pre>
   */
  public static final class RulesServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<RulesServiceBlockingStub> {
    private RulesServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the starting position of a variant: the standard or no-Damone
     * setup with its first player, or the custom start position normalised
     * (both forms, canonical text).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant, e.g.
     * a malformed `start_position`, a `first_player` that contradicts it, or
     * WIN_CONDITION_CAPTURE_ALL_DAMONES without a Damone on each side.
     * HTTP: `POST /v1/rules:getInitialPosition`, the request as the JSON body.
     * </pre>
     */
    public damone.v1.RulesServiceOuterClass.GetInitialPositionResponse getInitialPosition(damone.v1.RulesServiceOuterClass.GetInitialPositionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetInitialPositionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Lists every legal move in a position, or, if the game is over there,
     * no move and the outcome. Capture priority and the compulsory capture are
     * applied, and equivalent capture paths are listed once.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or an invalid variant.
     * HTTP: `POST /v1/rules:listLegalMoves`, the request as the JSON body.
     * </pre>
     */
    public damone.v1.RulesServiceOuterClass.ListLegalMovesResponse listLegalMoves(damone.v1.RulesServiceOuterClass.ListLegalMovesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListLegalMovesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Plays one move in a position and returns the move in full, the
     * position after it and, if the move ends the game, the outcome.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position, variant or move notation (e.g. `e2-e9`, or a light square);
     * FAILED_PRECONDITION with reason ILLEGAL_MOVE (the move is not legal
     * here; the message says why and the metadata lists the legal moves),
     * AMBIGUOUS_MOVE (a short-form capture matches several legal moves), or
     * GAME_OVER (the game is already over in the given position).
     * HTTP: `POST /v1/rules:applyMove`, the request as the JSON body.
     * </pre>
     */
    public damone.v1.RulesServiceOuterClass.ApplyMoveResponse applyMove(damone.v1.RulesServiceOuterClass.ApplyMoveRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApplyMoveMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Counts the leaf nodes of the legal move tree to a given depth (perft),
     * optionally divided by first move, to check move generators against each
     * other. Distinct legal moves are counted (equivalent capture paths once),
     * and no game-over rule applies other than "no legal move".
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or a depth below 1; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED,
     * `limit` = `perft_depth`, `maximum` = the cap) for a depth above the
     * server's cap; DEADLINE_EXCEEDED if the count takes longer than the
     * call's deadline (the server stops counting).
     * HTTP: `POST /v1/rules:perft`, the request as the JSON body.
     * </pre>
     */
    public damone.v1.RulesServiceOuterClass.PerftResponse perft(damone.v1.RulesServiceOuterClass.PerftRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getPerftMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Validates a whole game played elsewhere: plays its moves from the
     * variant's start and reports whether every move was legal, where the
     * first illegal move is and why, and where and how the game ended under
     * the variant's rules, repetition and the no-progress rule included. An
     * illegal or unfinished game is a normal answer (`valid` = false, or no
     * `outcome`), not an error. A start that is already decided is over at
     * ply 0 (RULES.md, End of the game).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * both or neither of `moves` and `pdn` (an empty game needs `moves`
     * empty and `pdn` unset: that is "no moves"), PDN that does not parse, or
     * a PDN start that contradicts `variant`; RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `game_plies`) for a game with more moves
     * than the server's limit, (`limit` = `position_plies`) for
     * `include_positions` with more moves than the server's limit for it, or
     * (`limit` = `request_bytes`) for a request above the size limit.
     * HTTP: `POST /v1/rules:validateGame`, the request as the JSON body.
     * </pre>
     */
    public damone.v1.RulesServiceOuterClass.ValidateGameResponse validateGame(damone.v1.RulesServiceOuterClass.ValidateGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getValidateGameMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * The rules of Italian Damone as a stateless service: every request carries
   * the position it is about, and nothing is stored. Use it to validate and
   * explore positions; use GameService to play games.
   * Errors (see ErrorReason for every reason and its metadata): every method
   * returns INVALID_ARGUMENT (reason INVALID_REQUEST, with field violations)
   * for a malformed request, and may return RESOURCE_EXHAUSTED (reason
   * LIMIT_EXCEEDED) when a server limit is reached, UNAVAILABLE while the
   * server is starting or stopping (retry with backoff), and
   * DEADLINE_EXCEEDED or CANCELLED as in any gRPC call.
   * Every method is marked `idempotency_level = NO_SIDE_EFFECTS`: a client
   * may retry any call on UNAVAILABLE, on the same or another replica (the
   * service config in docs/deploy.md does so).
   * </pre>
   */
  public static final class RulesServiceFutureStub extends io.grpc.stub.AbstractFutureStub<RulesServiceFutureStub> {
    private RulesServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RulesServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RulesServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the starting position of a variant: the standard or no-Damone
     * setup with its first player, or the custom start position normalised
     * (both forms, canonical text).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant, e.g.
     * a malformed `start_position`, a `first_player` that contradicts it, or
     * WIN_CONDITION_CAPTURE_ALL_DAMONES without a Damone on each side.
     * HTTP: `POST /v1/rules:getInitialPosition`, the request as the JSON body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.RulesServiceOuterClass.GetInitialPositionResponse> getInitialPosition(
        damone.v1.RulesServiceOuterClass.GetInitialPositionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetInitialPositionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Lists every legal move in a position, or, if the game is over there,
     * no move and the outcome. Capture priority and the compulsory capture are
     * applied, and equivalent capture paths are listed once.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or an invalid variant.
     * HTTP: `POST /v1/rules:listLegalMoves`, the request as the JSON body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.RulesServiceOuterClass.ListLegalMovesResponse> listLegalMoves(
        damone.v1.RulesServiceOuterClass.ListLegalMovesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListLegalMovesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Plays one move in a position and returns the move in full, the
     * position after it and, if the move ends the game, the outcome.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position, variant or move notation (e.g. `e2-e9`, or a light square);
     * FAILED_PRECONDITION with reason ILLEGAL_MOVE (the move is not legal
     * here; the message says why and the metadata lists the legal moves),
     * AMBIGUOUS_MOVE (a short-form capture matches several legal moves), or
     * GAME_OVER (the game is already over in the given position).
     * HTTP: `POST /v1/rules:applyMove`, the request as the JSON body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.RulesServiceOuterClass.ApplyMoveResponse> applyMove(
        damone.v1.RulesServiceOuterClass.ApplyMoveRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApplyMoveMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Counts the leaf nodes of the legal move tree to a given depth (perft),
     * optionally divided by first move, to check move generators against each
     * other. Distinct legal moves are counted (equivalent capture paths once),
     * and no game-over rule applies other than "no legal move".
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or a depth below 1; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED,
     * `limit` = `perft_depth`, `maximum` = the cap) for a depth above the
     * server's cap; DEADLINE_EXCEEDED if the count takes longer than the
     * call's deadline (the server stops counting).
     * HTTP: `POST /v1/rules:perft`, the request as the JSON body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.RulesServiceOuterClass.PerftResponse> perft(
        damone.v1.RulesServiceOuterClass.PerftRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getPerftMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Validates a whole game played elsewhere: plays its moves from the
     * variant's start and reports whether every move was legal, where the
     * first illegal move is and why, and where and how the game ended under
     * the variant's rules, repetition and the no-progress rule included. An
     * illegal or unfinished game is a normal answer (`valid` = false, or no
     * `outcome`), not an error. A start that is already decided is over at
     * ply 0 (RULES.md, End of the game).
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for an invalid variant,
     * both or neither of `moves` and `pdn` (an empty game needs `moves`
     * empty and `pdn` unset: that is "no moves"), PDN that does not parse, or
     * a PDN start that contradicts `variant`; RESOURCE_EXHAUSTED
     * (LIMIT_EXCEEDED, `limit` = `game_plies`) for a game with more moves
     * than the server's limit, (`limit` = `position_plies`) for
     * `include_positions` with more moves than the server's limit for it, or
     * (`limit` = `request_bytes`) for a request above the size limit.
     * HTTP: `POST /v1/rules:validateGame`, the request as the JSON body.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.RulesServiceOuterClass.ValidateGameResponse> validateGame(
        damone.v1.RulesServiceOuterClass.ValidateGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getValidateGameMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_GET_INITIAL_POSITION = 0;
  private static final int METHODID_LIST_LEGAL_MOVES = 1;
  private static final int METHODID_APPLY_MOVE = 2;
  private static final int METHODID_PERFT = 3;
  private static final int METHODID_VALIDATE_GAME = 4;
  private static final int METHODID_VALIDATE_GAMES = 5;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final RulesServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(RulesServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_GET_INITIAL_POSITION:
          serviceImpl.getInitialPosition((damone.v1.RulesServiceOuterClass.GetInitialPositionRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.GetInitialPositionResponse>) responseObserver);
          break;
        case METHODID_LIST_LEGAL_MOVES:
          serviceImpl.listLegalMoves((damone.v1.RulesServiceOuterClass.ListLegalMovesRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ListLegalMovesResponse>) responseObserver);
          break;
        case METHODID_APPLY_MOVE:
          serviceImpl.applyMove((damone.v1.RulesServiceOuterClass.ApplyMoveRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ApplyMoveResponse>) responseObserver);
          break;
        case METHODID_PERFT:
          serviceImpl.perft((damone.v1.RulesServiceOuterClass.PerftRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.PerftResponse>) responseObserver);
          break;
        case METHODID_VALIDATE_GAME:
          serviceImpl.validateGame((damone.v1.RulesServiceOuterClass.ValidateGameRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGameResponse>) responseObserver);
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
        case METHODID_VALIDATE_GAMES:
          return (io.grpc.stub.StreamObserver<Req>) serviceImpl.validateGames(
              (io.grpc.stub.StreamObserver<damone.v1.RulesServiceOuterClass.ValidateGamesResponse>) responseObserver);
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class RulesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RulesServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return damone.v1.RulesServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RulesService");
    }
  }

  private static final class RulesServiceFileDescriptorSupplier
      extends RulesServiceBaseDescriptorSupplier {
    RulesServiceFileDescriptorSupplier() {}
  }

  private static final class RulesServiceMethodDescriptorSupplier
      extends RulesServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    RulesServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (RulesServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RulesServiceFileDescriptorSupplier())
              .addMethod(getGetInitialPositionMethod())
              .addMethod(getListLegalMovesMethod())
              .addMethod(getApplyMoveMethod())
              .addMethod(getPerftMethod())
              .addMethod(getValidateGameMethod())
              .addMethod(getValidateGamesMethod())
              .build();
        }
      }
    }
    return result;
  }
}
