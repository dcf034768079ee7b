// A damone client in Java, over gRPC, with the generated code in gen/java
// and Debian's grpc-java (built by scripts/build-clients):
//
//   java -cp "$(cat build/java/classpath)" Example 127.0.0.1:9090
//
// It creates a game, watches its events, handles an illegal move (reading
// its ErrorInfo reason), plays four plies from the legal moves the rules
// list, and resigns. Every write carries a request_id, so a write whose
// outcome is unknown is sent again safely (docs/api.md, Consistency and
// retries).
import com.google.protobuf.Any;
import com.google.rpc.ErrorInfo;
import damone.v1.Board.Position;
import damone.v1.Board.Side;
import damone.v1.GameOuterClass.Game;
import damone.v1.GameOuterClass.GameEvent;
import damone.v1.GameServiceGrpc;
import damone.v1.GameServiceOuterClass.CreateGameRequest;
import damone.v1.GameServiceOuterClass.CreateGameResponse;
import damone.v1.GameServiceOuterClass.MakeMoveRequest;
import damone.v1.GameServiceOuterClass.MakeMoveResponse;
import damone.v1.GameServiceOuterClass.ResignRequest;
import damone.v1.GameServiceOuterClass.WatchGameRequest;
import damone.v1.RulesServiceGrpc;
import damone.v1.RulesServiceOuterClass.ListLegalMovesRequest;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.grpc.stub.MetadataUtils;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

public final class Example {
  static final Metadata.Key<String> AUTHORIZATION = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  /** A stub that acts for the side of {@code token}. */
  static GameServiceGrpc.GameServiceBlockingStub as(GameServiceGrpc.GameServiceBlockingStub stub, String token) {
    Metadata headers = new Metadata();
    headers.put(AUTHORIZATION, "Bearer " + token);
    return stub.withInterceptors(MetadataUtils.newAttachHeadersInterceptor(headers));
  }

  /** Sends a write with a new request id, and again with the same id after an answer that leaves its outcome unknown. */
  static <T> T write(Function<String, T> send) throws InterruptedException {
    String requestId = UUID.randomUUID().toString();
    for (int attempt = 1; ; attempt++) {
      try {
        return send.apply(requestId);
      } catch (StatusRuntimeException e) {
        Status.Code code = e.getStatus().getCode();
        if (attempt == 4 || (code != Status.Code.UNAVAILABLE && code != Status.Code.DEADLINE_EXCEEDED)) throw e;
        Thread.sleep((long) (Math.random() * 100 * (1 << attempt)));
      }
    }
  }

  public static void main(String[] args) throws Exception {
    ManagedChannel channel = ManagedChannelBuilder.forTarget(args.length > 0 ? args[0] : "127.0.0.1:9090").usePlaintext().build();
    var games = GameServiceGrpc.newBlockingStub(channel);
    var rules = RulesServiceGrpc.newBlockingStub(channel);

    CreateGameResponse created = write(id -> games.withDeadlineAfter(5, TimeUnit.SECONDS)
        .createGame(CreateGameRequest.newBuilder().setRequestId(id).build()));
    Game game = created.getGame();
    Map<Side, String> tokens = Map.of(Side.SIDE_RED, created.getRedToken(), Side.SIDE_BLACK, created.getBlackToken());
    System.out.println("created " + game.getName() + ": " + game.getPosition().getText());

    Thread watcher = new Thread(() -> games.watchGame(WatchGameRequest.newBuilder().setName(game.getName()).setSinceSequence(0).build())
        .forEachRemaining((GameEvent e) -> System.out.println("  event #" + e.getSequence() + " (" + e.getEventCase() + "), ply "
            + e.getPly() + ": " + e.getPosition().getText())));
    watcher.start();

    try {
      as(games, tokens.get(Side.SIDE_RED)).makeMove(MakeMoveRequest.newBuilder().setName(game.getName()).setMove("e2-e4").build());
      throw new IllegalStateException("e2-e4 was accepted");
    } catch (StatusRuntimeException e) {
      ErrorInfo info = null;
      for (Any d : StatusProto.fromThrowable(e).getDetailsList()) {
        if (d.is(ErrorInfo.class)) info = d.unpack(ErrorInfo.class);
      }
      if (e.getStatus().getCode() != Status.Code.FAILED_PRECONDITION || info == null || !info.getReason().equals("ILLEGAL_MOVE")) throw e;
      System.out.println("e2-e4 refused: FAILED_PRECONDITION " + info.getReason() + "; legal: " + info.getMetadataMap().get("legal_moves"));
    }

    Position position = game.getPosition();
    for (int i = 0; i < 4; i++) {
      String move = rules.listLegalMoves(ListLegalMovesRequest.newBuilder()
          .setPosition(Position.newBuilder().setText(position.getText())).setVariant(game.getVariant()).build()).getMoves(0).getNotation();
      String token = tokens.get(position.getSideToMove());
      MakeMoveResponse played = write(id -> as(games, token).withDeadlineAfter(5, TimeUnit.SECONDS)
          .makeMove(MakeMoveRequest.newBuilder().setName(game.getName()).setMove(move).setRequestId(id).build()));
      position = played.getGame().getPosition();
      System.out.println("played " + move + " (event #" + played.getEventSequence() + ")");
    }

    Game ended = write(id -> as(games, tokens.get(Side.SIDE_BLACK))
        .resign(ResignRequest.newBuilder().setName(game.getName()).setRequestId(id).build())).getGame();
    watcher.join();
    System.out.println("result: " + ended.getOutcome().getResult() + " by " + ended.getOutcome().getReason());
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }
}
