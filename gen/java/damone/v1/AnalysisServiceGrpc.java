package damone.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * Analysis of positions by the engine's search (docs/engine.md):
 * iterative deepening alpha-beta that reports each completed depth as it
 * goes. Stateless, like RulesService; searching is CPU-bound, so the
 * server caps how long one analysis may run and how many run at once.
 * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed request;
 * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) when a server cap is reached, with
 * metadata `limit` (`analysis_time` or `analyses`) and `maximum`;
 * UNAVAILABLE while the server stops; CANCELLED when the client goes away.
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: damone/v1/analysis_service.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class AnalysisServiceGrpc {

  private AnalysisServiceGrpc() {}

  public static final String SERVICE_NAME = "damone.v1.AnalysisService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest,
      damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> getAnalyzePositionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "AnalyzePosition",
      requestType = damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest.class,
      responseType = damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
  public static io.grpc.MethodDescriptor<damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest,
      damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> getAnalyzePositionMethod() {
    io.grpc.MethodDescriptor<damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest, damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> getAnalyzePositionMethod;
    if ((getAnalyzePositionMethod = AnalysisServiceGrpc.getAnalyzePositionMethod) == null) {
      synchronized (AnalysisServiceGrpc.class) {
        if ((getAnalyzePositionMethod = AnalysisServiceGrpc.getAnalyzePositionMethod) == null) {
          AnalysisServiceGrpc.getAnalyzePositionMethod = getAnalyzePositionMethod =
              io.grpc.MethodDescriptor.<damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest, damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.SERVER_STREAMING)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "AnalyzePosition"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new AnalysisServiceMethodDescriptorSupplier("AnalyzePosition"))
              .build();
        }
      }
    }
    return getAnalyzePositionMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static AnalysisServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceStub>() {
        @java.lang.Override
        public AnalysisServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AnalysisServiceStub(channel, callOptions);
        }
      };
    return AnalysisServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static AnalysisServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceBlockingStub>() {
        @java.lang.Override
        public AnalysisServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AnalysisServiceBlockingStub(channel, callOptions);
        }
      };
    return AnalysisServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static AnalysisServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<AnalysisServiceFutureStub>() {
        @java.lang.Override
        public AnalysisServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new AnalysisServiceFutureStub(channel, callOptions);
        }
      };
    return AnalysisServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * Analysis of positions by the engine's search (docs/engine.md):
   * iterative deepening alpha-beta that reports each completed depth as it
   * goes. Stateless, like RulesService; searching is CPU-bound, so the
   * server caps how long one analysis may run and how many run at once.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed request;
   * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) when a server cap is reached, with
   * metadata `limit` (`analysis_time` or `analyses`) and `maximum`;
   * UNAVAILABLE while the server stops; CANCELLED when the client goes away.
   * </pre>
   */
  public static abstract class AnalysisServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Searches a position and streams one message per completed depth (the
     * depth, the nodes searched, the speed, the time and the best lines),
     * then a final message with `final` = true and the best move. The
     * search stops at its limit, when the client cancels the call, or at the
     * server's time cap; the stream then ends with the final message (none
     * if the client has gone). A position in which the game is over under
     * the variant's rules (as ListLegalMoves reports it: no pieces, no
     * Damone under capture-all-Damones, no legal move, or the no-progress
     * limit reached; RULES.md, End of the game) is not searched: the stream
     * is one final message with `outcome` set, depth 0, and no line and no
     * best move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or variant, no limit, `lines` outside 1..5, or a limit that
     * is not positive; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` =
     * `analysis_time` when `move_time` is above the server's cap, or
     * `analyses` when the server already runs its maximum of analyses.
     * HTTP: `POST /v1/analysis:analyzePosition`, the request as the JSON
     * body; the response is a stream of newline-delimited JSON objects, each
     * `{"result": &lt;AnalyzePositionResponse&gt;}`.
     * </pre>
     */
    public void analyzePosition(damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getAnalyzePositionMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getAnalyzePositionMethod(),
            io.grpc.stub.ServerCalls.asyncServerStreamingCall(
              new MethodHandlers<
                damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest,
                damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse>(
                  this, METHODID_ANALYZE_POSITION)))
          .build();
    }
  }

  /**
   * <pre>
   * Analysis of positions by the engine's search (docs/engine.md):
   * iterative deepening alpha-beta that reports each completed depth as it
   * goes. Stateless, like RulesService; searching is CPU-bound, so the
   * server caps how long one analysis may run and how many run at once.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed request;
   * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) when a server cap is reached, with
   * metadata `limit` (`analysis_time` or `analyses`) and `maximum`;
   * UNAVAILABLE while the server stops; CANCELLED when the client goes away.
   * </pre>
   */
  public static final class AnalysisServiceStub extends io.grpc.stub.AbstractAsyncStub<AnalysisServiceStub> {
    private AnalysisServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AnalysisServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AnalysisServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Searches a position and streams one message per completed depth (the
     * depth, the nodes searched, the speed, the time and the best lines),
     * then a final message with `final` = true and the best move. The
     * search stops at its limit, when the client cancels the call, or at the
     * server's time cap; the stream then ends with the final message (none
     * if the client has gone). A position in which the game is over under
     * the variant's rules (as ListLegalMoves reports it: no pieces, no
     * Damone under capture-all-Damones, no legal move, or the no-progress
     * limit reached; RULES.md, End of the game) is not searched: the stream
     * is one final message with `outcome` set, depth 0, and no line and no
     * best move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or variant, no limit, `lines` outside 1..5, or a limit that
     * is not positive; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` =
     * `analysis_time` when `move_time` is above the server's cap, or
     * `analyses` when the server already runs its maximum of analyses.
     * HTTP: `POST /v1/analysis:analyzePosition`, the request as the JSON
     * body; the response is a stream of newline-delimited JSON objects, each
     * `{"result": &lt;AnalyzePositionResponse&gt;}`.
     * </pre>
     */
    public void analyzePosition(damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest request,
        io.grpc.stub.StreamObserver<damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncServerStreamingCall(
          getChannel().newCall(getAnalyzePositionMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * Analysis of positions by the engine's search (docs/engine.md):
   * iterative deepening alpha-beta that reports each completed depth as it
   * goes. Stateless, like RulesService; searching is CPU-bound, so the
   * server caps how long one analysis may run and how many run at once.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed request;
   * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) when a server cap is reached, with
   * metadata `limit` (`analysis_time` or `analyses`) and `maximum`;
   * UNAVAILABLE while the server stops; CANCELLED when the client goes away.
   * </pre>
   */
  public static final class AnalysisServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<AnalysisServiceBlockingStub> {
    private AnalysisServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AnalysisServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AnalysisServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Searches a position and streams one message per completed depth (the
     * depth, the nodes searched, the speed, the time and the best lines),
     * then a final message with `final` = true and the best move. The
     * search stops at its limit, when the client cancels the call, or at the
     * server's time cap; the stream then ends with the final message (none
     * if the client has gone). A position in which the game is over under
     * the variant's rules (as ListLegalMoves reports it: no pieces, no
     * Damone under capture-all-Damones, no legal move, or the no-progress
     * limit reached; RULES.md, End of the game) is not searched: the stream
     * is one final message with `outcome` set, depth 0, and no line and no
     * best move.
     * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a missing or malformed
     * position or variant, no limit, `lines` outside 1..5, or a limit that
     * is not positive; RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) with `limit` =
     * `analysis_time` when `move_time` is above the server's cap, or
     * `analyses` when the server already runs its maximum of analyses.
     * HTTP: `POST /v1/analysis:analyzePosition`, the request as the JSON
     * body; the response is a stream of newline-delimited JSON objects, each
     * `{"result": &lt;AnalyzePositionResponse&gt;}`.
     * </pre>
     */
    public java.util.Iterator<damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse> analyzePosition(
        damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest request) {
      return io.grpc.stub.ClientCalls.blockingServerStreamingCall(
          getChannel(), getAnalyzePositionMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * Analysis of positions by the engine's search (docs/engine.md):
   * iterative deepening alpha-beta that reports each completed depth as it
   * goes. Stateless, like RulesService; searching is CPU-bound, so the
   * server caps how long one analysis may run and how many run at once.
   * Errors: INVALID_ARGUMENT (INVALID_REQUEST) for a malformed request;
   * RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) when a server cap is reached, with
   * metadata `limit` (`analysis_time` or `analyses`) and `maximum`;
   * UNAVAILABLE while the server stops; CANCELLED when the client goes away.
   * </pre>
   */
  public static final class AnalysisServiceFutureStub extends io.grpc.stub.AbstractFutureStub<AnalysisServiceFutureStub> {
    private AnalysisServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected AnalysisServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new AnalysisServiceFutureStub(channel, callOptions);
    }
  }

  private static final int METHODID_ANALYZE_POSITION = 0;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final AnalysisServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(AnalysisServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_ANALYZE_POSITION:
          serviceImpl.analyzePosition((damone.v1.AnalysisServiceOuterClass.AnalyzePositionRequest) request,
              (io.grpc.stub.StreamObserver<damone.v1.AnalysisServiceOuterClass.AnalyzePositionResponse>) responseObserver);
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

  private static abstract class AnalysisServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    AnalysisServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return damone.v1.AnalysisServiceOuterClass.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("AnalysisService");
    }
  }

  private static final class AnalysisServiceFileDescriptorSupplier
      extends AnalysisServiceBaseDescriptorSupplier {
    AnalysisServiceFileDescriptorSupplier() {}
  }

  private static final class AnalysisServiceMethodDescriptorSupplier
      extends AnalysisServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    AnalysisServiceMethodDescriptorSupplier(String methodName) {
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
      synchronized (AnalysisServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new AnalysisServiceFileDescriptorSupplier())
              .addMethod(getAnalyzePositionMethod())
              .build();
        }
      }
    }
    return result;
  }
}
