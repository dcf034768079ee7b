package damone.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Exact answers from the server's endgame tables for positions with few
 * pieces. Answers are for the position alone: its counter of plies without
 * a capture or promotion is the position text's, and the game's history
 * (repetitions) is ignored, as repetition never changes a game's value.
 * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
 * position or an invalid variant; FAILED_PRECONDITION (NOT_IN_TABLEBASE)
 * for a position the tables do not hold (more pieces than they have, a win
 * condition they were not built for, or no tables served); UNAVAILABLE
 * (TABLEBASE_LOADING) while the tables are still loading (retry with
 * backoff).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: damone/v1/tablebase_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class TablebaseServiceGrpc {

  private TablebaseServiceGrpc() {}

  public static final String SERVICE_NAME = "damone.v1.TablebaseService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.ProbePositionRequest,
      damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> getProbePositionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ProbePosition",
      requestType = damone.v1.TablebaseServiceOuterClass.ProbePositionRequest.class,
      responseType = damone.v1.TablebaseServiceOuterClass.ProbePositionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.ProbePositionRequest,
      damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> getProbePositionMethod() {
    io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.ProbePositionRequest, damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> getProbePositionMethod;
    if ((getProbePositionMethod = TablebaseServiceGrpc.getProbePositionMethod) == null) {
      synchronized (TablebaseServiceGrpc.class) {
        if ((getProbePositionMethod = TablebaseServiceGrpc.getProbePositionMethod) == null) {
          TablebaseServiceGrpc.getProbePositionMethod = getProbePositionMethod =
              io.grpc.MethodDescriptor.<damone.v1.TablebaseServiceOuterClass.ProbePositionRequest, damone.v1.TablebaseServiceOuterClass.ProbePositionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ProbePosition"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.TablebaseServiceOuterClass.ProbePositionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.TablebaseServiceOuterClass.ProbePositionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TablebaseServiceMethodDescriptorSupplier("ProbePosition"))
              .build();
        }
      }
    }
    return getProbePositionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.GetMainlineRequest,
      damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> getGetMainlineMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "GetMainline",
      requestType = damone.v1.TablebaseServiceOuterClass.GetMainlineRequest.class,
      responseType = damone.v1.TablebaseServiceOuterClass.GetMainlineResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.GetMainlineRequest,
      damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> getGetMainlineMethod() {
    io.grpc.MethodDescriptor<damone.v1.TablebaseServiceOuterClass.GetMainlineRequest, damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> getGetMainlineMethod;
    if ((getGetMainlineMethod = TablebaseServiceGrpc.getGetMainlineMethod) == null) {
      synchronized (TablebaseServiceGrpc.class) {
        if ((getGetMainlineMethod = TablebaseServiceGrpc.getGetMainlineMethod) == null) {
          TablebaseServiceGrpc.getGetMainlineMethod = getGetMainlineMethod =
              io.grpc.MethodDescriptor.<damone.v1.TablebaseServiceOuterClass.GetMainlineRequest, damone.v1.TablebaseServiceOuterClass.GetMainlineResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "GetMainline"))
              .setSafe(true)
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.TablebaseServiceOuterClass.GetMainlineRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.TablebaseServiceOuterClass.GetMainlineResponse.getDefaultInstance()))
              .setSchemaDescriptor(new TablebaseServiceMethodDescriptorSupplier("GetMainline"))
              .build();
        }
      }
    }
    return getGetMainlineMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static TablebaseServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceStub>() {
        @java.lang.Override
        public TablebaseServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TablebaseServiceStub(channel, callOptions);
        }
      };
    return TablebaseServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static TablebaseServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceBlockingStub>() {
        @java.lang.Override
        public TablebaseServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TablebaseServiceBlockingStub(channel, callOptions);
        }
      };
    return TablebaseServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static TablebaseServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<TablebaseServiceFutureStub>() {
        @java.lang.Override
        public TablebaseServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new TablebaseServiceFutureStub(channel, callOptions);
        }
      };
    return TablebaseServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Exact answers from the server's endgame tables for positions with few
   * pieces. Answers are for the position alone: its counter of plies without
   * a capture or promotion is the position text's, and the game's history
   * (repetitions) is ignored, as repetition never changes a game's value.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
   * position or an invalid variant; FAILED_PRECONDITION (NOT_IN_TABLEBASE)
   * for a position the tables do not hold (more pieces than they have, a win
   * condition they were not built for, or no tables served); UNAVAILABLE
   * (TABLEBASE_LOADING) while the tables are still loading (retry with
   * backoff).
   * </pre>
   */
  public static abstract class TablebaseServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Returns the category and DTC of a position for its side to move, and
     * every legal move with the category and DTC of the position after it
     * (for the side then to move), best first.
     * HTTP: `GET /v1/tablebase:probe?position=TEXT`, the variant's settings
     * as query parameters (e.g. `variant.no_progress_limit=0`).
     * </pre>
     */
    public void probePosition(damone.v1.TablebaseServiceOuterClass.ProbePositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getProbePositionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Returns the optimal line from a position: the best move of each
     * position in turn, to the end of the game or, for a drawn position, to
     * the no-progress draw (at most the variant's limit in plies for a draw).
     * HTTP: `GET /v1/tablebase:mainline?position=TEXT`, the variant's
     * settings as query parameters.
     * </pre>
     */
    public void getMainline(damone.v1.TablebaseServiceOuterClass.GetMainlineRequest request,
        io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getGetMainlineMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getProbePositionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.TablebaseServiceOuterClass.ProbePositionRequest,
                damone.v1.TablebaseServiceOuterClass.ProbePositionResponse>(
                  this, METHODID_PROBE_POSITION)))
          .addMethod(
            getGetMainlineMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                damone.v1.TablebaseServiceOuterClass.GetMainlineRequest,
                damone.v1.TablebaseServiceOuterClass.GetMainlineResponse>(
                  this, METHODID_GET_MAINLINE)))
          .build();
    }
  }

  /**
   * <pre>
   * Exact answers from the server's endgame tables for positions with few
   * pieces. Answers are for the position alone: its counter of plies without
   * a capture or promotion is the position text's, and the game's history
   * (repetitions) is ignored, as repetition never changes a game's value.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
   * position or an invalid variant; FAILED_PRECONDITION (NOT_IN_TABLEBASE)
   * for a position the tables do not hold (more pieces than they have, a win
   * condition they were not built for, or no tables served); UNAVAILABLE
   * (TABLEBASE_LOADING) while the tables are still loading (retry with
   * backoff).
   * </pre>
   */
  public static final class TablebaseServiceStub extends io.grpc.stub.AbstractAsyncStub<TablebaseServiceStub> {
    private TablebaseServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TablebaseServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TablebaseServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the category and DTC of a position for its side to move, and
     * every legal move with the category and DTC of the position after it
     * (for the side then to move), best first.
     * HTTP: `GET /v1/tablebase:probe?position=TEXT`, the variant's settings
     * as query parameters (e.g. `variant.no_progress_limit=0`).
     * </pre>
     */
    public void probePosition(damone.v1.TablebaseServiceOuterClass.ProbePositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getProbePositionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Returns the optimal line from a position: the best move of each
     * position in turn, to the end of the game or, for a drawn position, to
     * the no-progress draw (at most the variant's limit in plies for a draw).
     * HTTP: `GET /v1/tablebase:mainline?position=TEXT`, the variant's
     * settings as query parameters.
     * </pre>
     */
    public void getMainline(damone.v1.TablebaseServiceOuterClass.GetMainlineRequest request,
        io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getGetMainlineMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Exact answers from the server's endgame tables for positions with few
   * pieces. Answers are for the position alone: its counter of plies without
   * a capture or promotion is the position text's, and the game's history
   * (repetitions) is ignored, as repetition never changes a game's value.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
   * position or an invalid variant; FAILED_PRECONDITION (NOT_IN_TABLEBASE)
   * for a position the tables do not hold (more pieces than they have, a win
   * condition they were not built for, or no tables served); UNAVAILABLE
   * (TABLEBASE_LOADING) while the tables are still loading (retry with
   * backoff).
   * </pre>
   */
  public static final class TablebaseServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<TablebaseServiceBlockingStub> {
    private TablebaseServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TablebaseServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TablebaseServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the category and DTC of a position for its side to move, and
     * every legal move with the category and DTC of the position after it
     * (for the side then to move), best first.
     * HTTP: `GET /v1/tablebase:probe?position=TEXT`, the variant's settings
     * as query parameters (e.g. `variant.no_progress_limit=0`).
     * </pre>
     */
    public damone.v1.TablebaseServiceOuterClass.ProbePositionResponse probePosition(damone.v1.TablebaseServiceOuterClass.ProbePositionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getProbePositionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Returns the optimal line from a position: the best move of each
     * position in turn, to the end of the game or, for a drawn position, to
     * the no-progress draw (at most the variant's limit in plies for a draw).
     * HTTP: `GET /v1/tablebase:mainline?position=TEXT`, the variant's
     * settings as query parameters.
     * </pre>
     */
    public damone.v1.TablebaseServiceOuterClass.GetMainlineResponse getMainline(damone.v1.TablebaseServiceOuterClass.GetMainlineRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getGetMainlineMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Exact answers from the server's endgame tables for positions with few
   * pieces. Answers are for the position alone: its counter of plies without
   * a capture or promotion is the position text's, and the game's history
   * (repetitions) is ignored, as repetition never changes a game's value.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
   * position or an invalid variant; FAILED_PRECONDITION (NOT_IN_TABLEBASE)
   * for a position the tables do not hold (more pieces than they have, a win
   * condition they were not built for, or no tables served); UNAVAILABLE
   * (TABLEBASE_LOADING) while the tables are still loading (retry with
   * backoff).
   * </pre>
   */
  public static final class TablebaseServiceFutureStub extends io.grpc.stub.AbstractFutureStub<TablebaseServiceFutureStub> {
    private TablebaseServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected TablebaseServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new TablebaseServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Returns the category and DTC of a position for its side to move, and
     * every legal move with the category and DTC of the position after it
     * (for the side then to move), best first.
     * HTTP: `GET /v1/tablebase:probe?position=TEXT`, the variant's settings
     * as query parameters (e.g. `variant.no_progress_limit=0`).
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.TablebaseServiceOuterClass.ProbePositionResponse> probePosition(
        damone.v1.TablebaseServiceOuterClass.ProbePositionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getProbePositionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Returns the optimal line from a position: the best move of each
     * position in turn, to the end of the game or, for a drawn position, to
     * the no-progress draw (at most the variant's limit in plies for a draw).
     * HTTP: `GET /v1/tablebase:mainline?position=TEXT`, the variant's
     * settings as query parameters.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<damone.v1.TablebaseServiceOuterClass.GetMainlineResponse> getMainline(
        damone.v1.TablebaseServiceOuterClass.GetMainlineRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getGetMainlineMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_PROBE_POSITION = 0;
  private static final int METHODID_GET_MAINLINE = 1;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final TablebaseServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(TablebaseServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_PROBE_POSITION:
          serviceImpl.probePosition((damone.v1.TablebaseServiceOuterClass.ProbePositionRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.ProbePositionResponse>) responseObserver);
          break;
        case METHODID_GET_MAINLINE:
          serviceImpl.getMainline((damone.v1.TablebaseServiceOuterClass.GetMainlineRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.TablebaseServiceOuterClass.GetMainlineResponse>) responseObserver);
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

  private static abstract class TablebaseServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    TablebaseServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return damone.v1.TablebaseServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("TablebaseService");
    }
  }

  private static final class TablebaseServiceFileDescriptorSupplier
      extends TablebaseServiceBaseDescriptorSupplier {
    TablebaseServiceFileDescriptorSupplier() {}
  }

  private static final class TablebaseServiceMethodDescriptorSupplier
      extends TablebaseServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    TablebaseServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (TablebaseServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new TablebaseServiceFileDescriptorSupplier())
              .addMethod(getProbePositionMethod())
              .addMethod(getGetMainlineMethod())
              .build();
        }
      }
    }
    return result;
  }
}
