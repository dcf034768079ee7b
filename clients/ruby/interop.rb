# Runs the language-neutral interop cases (clients/interop/cases.json)
# against a damone server over gRPC, with the generated Ruby code in gen/ruby
# and Debian's ruby-grpc, and prints PASS or FAIL for each case:
#
#   ruby -I gen/ruby clients/ruby/interop.rb 127.0.0.1:9090 [CASES_FILE]
#
# A generic interpreter of the case file (clients/interop/README.md): a method
# is found by name among the generated services, requests are read from
# proto3 JSON and answers compared as proto3 JSON. Exits 1 if any case failed.
require 'json'
require 'securerandom'
require 'grpc'
require 'google/protobuf/well_known_types' # Any#unpack
require 'grpc/health/v1/health_services_pb' # ruby-grpc's
require 'google/rpc/error_details_pb'       # ruby-googleapis-common-protos-types
require 'google/rpc/status_pb'
require 'damone/v1/analysis_service_services_pb'
require 'damone/v1/game_service_services_pb'
require 'damone/v1/rules_service_services_pb'

TIMEOUT = 30 # seconds, for every call and stream
SERVICES = [Damone::V1::RulesService, Damone::V1::GameService, Damone::V1::AnalysisService, Grpc::Health::V1::Health]
  .to_h { |m| [m::Service.service_name, m] }
CODES = GRPC::Core::StatusCodes.constants.to_h { |c| [GRPC::Core::StatusCodes.const_get(c), c.to_s] }

class Failure < StandardError; end

def default?(v)
  [nil, false, 0, '', '0', [], {}].include?(v)
end

class Runner
  def initialize(addr, run)
    @addr = addr
    @vars = { 'run' => run }
    @streams = {}
    @stubs = {}
  end

  def sub(v)
    case v
    when String
      v.gsub(/\$\{([a-z0-9_]+)\}/) { @vars.fetch(Regexp.last_match(1)) { |n| raise Failure, "no variable ${#{n}}" } }
    when Array then v.map { |e| sub(e) }
    when Hash then v.transform_values { |e| sub(e) }
    else v
    end
  end

  # The call of the step's method on the generated stub, with its request.
  def prepare(step)
    svc, name = step['method'].to_s.split('/', 2)
    mod = SERVICES[svc]
    desc = mod && mod::Service.rpc_descs[name.to_s.to_sym]
    raise Failure, "no method #{step['method']} in the generated code" unless desc

    stub = (@stubs[svc] ||= mod::Stub.new(@addr, :this_channel_is_insecure))
    request = unstream(desc.input).decode_json(JSON.generate(sub(step['request'] || {})))
    metadata = (step['metadata'] || {}).transform_values { |v| sub(v) }
    [desc, -> { stub.public_send(GRPC::GenericService.underscore(name), request, metadata: metadata, deadline: Time.now + TIMEOUT) }]
  end

  def stream(step)
    desc, call = prepare(step)
    messages = []
    begin
      call.call.each { |m| messages << to_json(unstream(desc.output), m) }
    rescue GRPC::BadStatus => e
      return [messages, e]
    end
    [messages, nil]
  end

  def step(step)
    case step['kind']
    when 'call'
      desc, call = prepare(step)
      begin
        answer = call.call
      rescue GRPC::BadStatus => e
        return check_error(step['error'], e)
      end
      raise Failure, "succeeded; want #{step['error']['code']}" if step.key?('error')

      got = to_json(desc.output, answer)
      match(step['expect'], got, true, 'answer') if step.key?('expect')
      (step['save'] || {}).each do |name, path|
        v = path.split('.').reduce(got) { |o, k| o.is_a?(Hash) ? o[k] : nil }
        raise Failure, "save #{name}: the answer has no #{path}" unless v.is_a?(String) || v.is_a?(Integer)

        @vars[name] = v.to_s
      end
    when 'stream'
      check_stream(step, *stream(step))
    when 'start_stream'
      @streams[step['id']] = Thread.new { stream(step) }
    when 'await_stream'
      thread = @streams[step['id']] or raise Failure, "no stream #{step['id'].inspect} was started"
      raise Failure, "stream #{step['id'].inspect} did not end within #{TIMEOUT} s" unless thread.join(TIMEOUT)

      check_stream(step, *thread.value)
    else
      raise Failure, "unknown step kind #{step['kind'].inspect}"
    end
  end

  def check_stream(step, messages, err)
    if err
      begin
        check_error(step['error'], err)
      rescue Failure => e
        raise Failure, "after #{messages.size} messages: #{e.message}"
      end
    elsif step.key?('error')
      raise Failure, "stream ended with OK after #{messages.size} messages; want #{step['error']['code']}"
    end
    match(step['expect'], messages, true, 'messages') if step.key?('expect')
  end

  def check_error(want, err)
    code = CODES.fetch(err.code, err.code.to_s)
    raise Failure, "failed: #{code}: #{err.details}" unless want
    raise Failure, "failed with #{code} (#{err.details}); want #{want['code']}" if code != want['code']
    return unless want.key?('reason')

    bin = err.metadata['grpc-status-details-bin']
    details = bin ? Google::Rpc::Status.decode(bin).details : []
    infos = details.filter_map { |d| d.unpack(Google::Rpc::ErrorInfo) }
    fields = details.filter_map { |d| d.unpack(Google::Rpc::BadRequest) }.flat_map { |b| b.field_violations.map(&:field) }
    raise Failure, "#{infos.size} ErrorInfo details; want 1" unless infos.size == 1

    info = infos.first
    if info.domain != 'damone.v1' || info.reason != want['reason']
      raise Failure, "ErrorInfo #{info.domain}/#{info.reason}; want damone.v1/#{want['reason']}"
    end
    if want.key?('metadata') && info.metadata.to_h != sub(want['metadata'])
      raise Failure, "ErrorInfo metadata #{info.metadata.to_h}; want #{sub(want['metadata'])}"
    end
    return unless want.key?('field_violations') && fields != want['field_violations']

    raise Failure, "BadRequest fields #{fields}; want #{want['field_violations']}"
  end

  # Fails where got differs from want (clients/interop/README.md).
  def match(want, got, present, path)
    if want == '<set>'
      raise Failure, "#{path}: absent or default; want it set" if !present || default?(got)

      return
    end
    unless present
      if want.is_a?(Hash)
        want.each { |k, w| match(w, nil, false, "#{path}.#{k}") }
      elsif !default?(want)
        raise Failure, "#{path}: absent; want #{want.inspect}"
      end
      return
    end
    case want
    when Hash
      raise Failure, "#{path}: #{got.inspect}; want an object" unless got.is_a?(Hash)

      want.each { |k, w| match(w, got[k], got.key?(k), "#{path}.#{k}") }
    when Array
      unless got.is_a?(Array) && got.size == want.size
        raise Failure, "#{path}: #{got.inspect}; want #{want.size} elements #{want.inspect}"
      end

      want.each_with_index { |w, i| match(w, got[i], true, "#{path}[#{i}]") }
    when nil
      raise Failure, "#{path}: #{got.inspect}; want it unset" unless default?(got)
    when String
      raise Failure, "#{path}: #{got.inspect}; want #{sub(want).inspect}" unless got == sub(want)
    else
      raise Failure, "#{path}: #{got.inspect}; want #{want.inspect}" unless got == want && got.class == want.class
    end
  end

  # A stream's message class (rpc_descs wrap it).
  def unstream(type)
    type.is_a?(GRPC::RpcDesc::Stream) ? type.type : type
  end

  def to_json(klass, msg)
    JSON.parse(klass.encode_json(msg, preserve_proto_fieldnames: true))
  end
end

if ARGV.size < 1 || ARGV.size > 2
  warn 'usage: interop.rb HOST:PORT [CASES_FILE]'
  exit 2
end
cases = JSON.parse(File.read(ARGV[1] || 'clients/interop/cases.json'))['cases']
run = SecureRandom.hex(8)
failed = 0
cases.each do |c|
  runner = Runner.new(ARGV[0], run)
  begin
    c['steps'].each_with_index do |s, i|
      runner.step(s)
    rescue Failure => e
      raise Failure, "step #{i + 1} (#{s['kind']} #{s['method']}): #{e.message}"
    end
    puts "PASS #{c['name']}"
  rescue Failure => e
    failed += 1
    puts "FAIL #{c['name']}: #{e.message}"
  end
end
puts "#{cases.size - failed} passed, #{failed} failed"
exit(failed.positive? || cases.empty? ? 1 : 0)
