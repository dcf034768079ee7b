# A damone client in Ruby, over gRPC, with the generated code in gen/ruby and
# Debian's ruby-grpc and ruby-googleapis-common-protos-types:
#
#   ruby -I gen/ruby clients/ruby/example.rb 127.0.0.1:9090
#
# It creates a game, watches its events, handles an illegal move (reading
# its ErrorInfo reason), plays four plies from the legal moves the rules
# list, and resigns. Every write carries a request_id, so a write whose
# outcome is unknown is sent again safely (docs/api.md, Consistency and
# retries).
require 'securerandom'
require 'grpc'
require 'google/protobuf/well_known_types'
require 'google/rpc/error_details_pb'
require 'google/rpc/status_pb'
require 'damone/v1/game_service_services_pb'
require 'damone/v1/rules_service_services_pb'

addr = ARGV[0] || '127.0.0.1:9090'
games = Damone::V1::GameService::Stub.new(addr, :this_channel_is_insecure)
rules = Damone::V1::RulesService::Stub.new(addr, :this_channel_is_insecure)

def bearer(token)
  { 'authorization' => "Bearer #{token}" }
end

# Sends a write with a new request id, and again with the same id after an
# answer that leaves its outcome unknown; a replay returns the first answer.
def write(attempts: 4)
  request_id = SecureRandom.uuid
  attempts.times do |i|
    return yield(request_id)
  rescue GRPC::Unavailable, GRPC::DeadlineExceeded
    raise if i == attempts - 1

    sleep(rand * 0.1 * 2**i)
  end
end

# The google.rpc.ErrorInfo of a failed call, from the grpc-status-details-bin trailer.
def error_info(err)
  bin = err.metadata['grpc-status-details-bin'] or return nil
  Google::Rpc::Status.decode(bin).details.filter_map { |d| d.unpack(Google::Rpc::ErrorInfo) }.first
end

created = write { |id| games.create_game(Damone::V1::CreateGameRequest.new(request_id: id), deadline: Time.now + 5) }
game = created.game
tokens = { SIDE_RED: created.red_token, SIDE_BLACK: created.black_token }
puts "created #{game.name}: #{game.position.text}"

watcher = Thread.new do
  games.watch_game(Damone::V1::WatchGameRequest.new(name: game.name, since_sequence: 0)).each do |event|
    puts "  event ##{event.sequence} (#{event.event}), ply #{event.ply}: #{event.position.text}"
  end
end

begin
  games.make_move(Damone::V1::MakeMoveRequest.new(name: game.name, move: 'e2-e4'), metadata: bearer(tokens[:SIDE_RED]))
  raise 'e2-e4 was accepted'
rescue GRPC::FailedPrecondition => e
  info = error_info(e)
  raise unless info&.reason == 'ILLEGAL_MOVE'

  puts "e2-e4 refused: FAILED_PRECONDITION #{info.reason}; legal: #{info.metadata['legal_moves']}"
end

position = game.position
4.times do
  legal = rules.list_legal_moves(Damone::V1::ListLegalMovesRequest.new(
    position: Damone::V1::Position.new(text: position.text), variant: game.variant))
  move = legal.moves.first.notation
  played = write do |id|
    games.make_move(Damone::V1::MakeMoveRequest.new(name: game.name, move: move, request_id: id),
                    metadata: bearer(tokens[position.side_to_move]), deadline: Time.now + 5)
  end
  position = played.game.position
  puts "played #{move} (event ##{played.event_sequence})"
end

ended = write do |id|
  games.resign(Damone::V1::ResignRequest.new(name: game.name, request_id: id), metadata: bearer(tokens[:SIDE_BLACK]))
end.game
watcher.join
puts "result: #{ended.outcome.result} by #{ended.outcome.reason}"
