package main

// The validate scenarios of damone-bench load: whole games judged by
// RulesService.ValidateGame(s) over gRPC (a stream, or unary calls) and
// over the REST gateway (unary JSON, or one NDJSON stream per worker).
// The client is lean on purpose, as it shares the machine with the
// server: requests are encoded once before the run, and answers are
// checked by scanning their bytes for the few fields that matter (valid,
// the number of plies, the id) instead of decoding them whole.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/validation/benchgames"
)

const (
	scenarioValidateStream     = "validate-stream"
	scenarioValidateUnary      = "validate-unary"
	scenarioValidateREST       = "validate-rest"
	scenarioValidateRESTStream = "validate-rest-stream"
)

// The target of issue 12 that damone-bench load checks: server CPU per
// validated ply on the gRPC stream.
const targetValidateCPUPerPly = 2 * time.Microsecond

// validateGames is the load of the validate scenarios: each game in the
// wire form of every scenario, encoded once.
type validateGames struct {
	plies      int
	ids        [][]byte   // ids[k], the stream id of game k
	grpcStream []*rawMsg  // ValidateGamesRequest{id, game}
	grpcUnary  []*rawMsg  // ValidateGameRequest
	restUnary  [][]byte   // ValidateGameRequest as JSON
	restStream [][]byte   // {"id": ..., "game": ...} and a newline
	moves      [][]string // the games themselves
}

func newValidateGames(seed uint64, n, plies int) (*validateGames, error) {
	games, err := benchgames.Games(seed, n, plies)
	if err != nil {
		return nil, err
	}
	vg := &validateGames{plies: plies, moves: games}
	for k, moves := range games {
		id := strconv.Itoa(k)
		game := &damonev1.ValidateGameRequest{Moves: moves}
		s, err := (&damonev1.ValidateGamesRequest{Id: id, Game: game}).MarshalVT()
		if err != nil {
			return nil, err
		}
		u, err := game.MarshalVT()
		if err != nil {
			return nil, err
		}
		ju, _ := json.Marshal(map[string]any{"moves": moves})
		js, _ := json.Marshal(map[string]any{"id": id, "game": map[string]any{"moves": moves}})
		vg.ids = append(vg.ids, []byte(id))
		vg.grpcStream = append(vg.grpcStream, &rawMsg{s})
		vg.grpcUnary = append(vg.grpcUnary, &rawMsg{u})
		vg.restUnary = append(vg.restUnary, ju)
		vg.restStream = append(vg.restStream, append(js, '\n'))
	}
	return vg, nil
}

// rawMsg is a message already in its wire form, sent and received with
// rawCodec.
type rawMsg struct{ b []byte }

// rawCodec sends a rawMsg's bytes as they are and receives a message's
// bytes into a rawMsg, reusing its storage. Its name is "proto", so the
// server decodes what it sends with its protobuf codec.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.(*rawMsg).b)}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m := v.(*rawMsg)
	m.b = m.b[:0]
	for _, buf := range data {
		m.b = append(m.b, buf.ReadOnlyData()...)
	}
	return nil
}

// checkVerdictProto checks a ValidateGameResponse in wire form: valid,
// ply == plies and as many moves.
func checkVerdictProto(b []byte, plies int) error {
	var valid bool
	var ply, moves int
	var message string
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch {
		case num == 1 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			valid, b = v != 0, b[n:]
			continue
		case num == 9 && typ == protowire.VarintType:
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			ply, b = int(v), b[n:]
			continue
		case num == 8 && typ == protowire.BytesType:
			moves++
		case num == 6 && typ == protowire.BytesType:
			v, _ := protowire.ConsumeBytes(b)
			message = string(v)
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	if !valid || ply != plies || moves != plies {
		return fmt.Errorf("answer: valid %v, ply %d, %d moves; want valid, %d plies (%s)", valid, ply, moves, plies, message)
	}
	return nil
}

// checkStreamAnswerProto checks a ValidateGamesResponse in wire form: the
// id wanted and a verdict that passes checkVerdictProto.
func checkStreamAnswerProto(b, wantID []byte, plies int) error {
	var id []byte
	var result []byte
	var errMsg []byte
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		if typ == protowire.BytesType && num <= 3 {
			v, n := protowire.ConsumeBytes(b)
			if n < 0 {
				return protowire.ParseError(n)
			}
			switch num {
			case 1:
				id = v
			case 2:
				result = v
			case 3:
				errMsg = v
			}
			b = b[n:]
			continue
		}
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
	}
	switch {
	case errMsg != nil:
		var e damonev1.ValidationError
		_ = e.UnmarshalVT(errMsg)
		return fmt.Errorf("answer %q: error %s: %s", id, e.GetCode(), e.GetMessage())
	case !bytes.Equal(id, wantID):
		return fmt.Errorf("answer id %q, want %q (answers out of order)", id, wantID)
	case result == nil:
		return fmt.Errorf("answer %q: no result", id)
	}
	return checkVerdictProto(result, plies)
}

// jsonValue returns what follows the first "key": in a JSON text (white
// space skipped), or nil.
func jsonValue(b []byte, key string) []byte {
	i := bytes.Index(b, []byte(`"`+key+`"`))
	if i < 0 {
		return nil
	}
	b = bytes.TrimLeft(b[i+len(key)+2:], " \t\r\n")
	if len(b) == 0 || b[0] != ':' {
		return nil
	}
	return bytes.TrimLeft(b[1:], " \t\r\n")
}

// checkVerdictJSON checks a ValidateGameResponse (or a line of the NDJSON
// stream, with wantID) in the gateway's JSON: valid true, "ply": plies
// and, for a stream, the id wanted.
func checkVerdictJSON(b []byte, wantID []byte, plies int) error {
	if wantID != nil {
		if !bytes.HasPrefix(bytes.TrimLeft(b, " "), []byte(`{"result"`)) {
			return fmt.Errorf("stream line is not a result: %.300s", b)
		}
		id := jsonValue(b, "id")
		if len(id) < len(wantID)+2 || id[0] != '"' || !bytes.Equal(id[1:len(wantID)+1], wantID) || id[len(wantID)+1] != '"' {
			return fmt.Errorf("answer id %.20s, want %q (answers out of order?): %.300s", id, wantID, b)
		}
	}
	valid := jsonValue(b, "valid")
	ply := jsonValue(b, "ply")
	want := strconv.Itoa(plies)
	if !bytes.HasPrefix(valid, []byte("true")) || !bytes.HasPrefix(ply, []byte(want)) ||
		len(ply) == len(want) || ply[len(want)] >= '0' && ply[len(want)] <= '9' {
		return fmt.Errorf("answer not valid with %d plies: %.300s", plies, b)
	}
	return nil
}

// validateSamples are one validate scenario's figures over one or more
// measured windows.
type validateSamples struct {
	lat        []time.Duration // games sent and answered inside a window
	games      int             // games answered inside a window (valid)
	perAddr    []int           // of those, per server address
	errs       int
	firstErr   string
	measured   time.Duration
	serverCPU  []time.Duration // per server, over the windows
	clientCPU  time.Duration
	machineCPU time.Duration // busy CPU time of the whole machine (every process), if known
	cpuSources int           // servers whose CPU was read
	cpuErr     string
}

func (s *validateSamples) fail(err error) {
	if s.errs == 0 {
		s.firstErr = err.Error()
	}
	s.errs++
}

func (s *validateSamples) add(o *validateSamples) {
	s.lat = append(s.lat, o.lat...)
	s.games += o.games
	if s.perAddr == nil {
		s.perAddr = make([]int, len(o.perAddr))
		s.serverCPU = make([]time.Duration, len(o.serverCPU))
	}
	for i := range o.perAddr {
		s.perAddr[i] += o.perAddr[i]
	}
	for i := range o.serverCPU {
		s.serverCPU[i] += o.serverCPU[i]
	}
	if s.firstErr == "" {
		s.firstErr = o.firstErr
	}
	if s.cpuErr == "" {
		s.cpuErr = o.cpuErr
	}
	s.errs += o.errs
	s.measured += o.measured
	s.clientCPU += o.clientCPU
	s.machineCPU += o.machineCPU
	s.cpuSources = o.cpuSources
}

// validateResult is one validate scenario's figures, as printed.
type validateResult struct {
	Scenario     string          `json:"scenario"`
	Games        int             `json:"games"`
	Errors       int             `json:"errors"`
	FirstError   string          `json:"first_error,omitempty"`
	GamesPerSec  float64         `json:"games_per_sec"`
	PliesPerSec  float64         `json:"plies_per_sec"`
	P50us        float64         `json:"p50_us_per_game"`
	P99us        float64         `json:"p99_us_per_game"`
	MaxUs        float64         `json:"max_us_per_game"`
	ServerCores  float64         `json:"server_cpu_cores,omitempty"`
	ServerNsPly  float64         `json:"server_cpu_ns_per_ply,omitempty"`
	ClientCores  float64         `json:"client_cpu_cores"`
	MachineCores float64         `json:"machine_busy_cores,omitempty"`
	ClientNsPly  float64         `json:"client_cpu_ns_per_ply"`
	CPUError     string          `json:"cpu_error,omitempty"`
	PerReplica   []replicaResult `json:"per_replica,omitempty"`
	measuredSecs float64
}

// replicaResult is a validate scenario's share of one server address.
type replicaResult struct {
	Addr        string  `json:"addr"`
	PliesPerSec float64 `json:"plies_per_sec"`
	ServerCores float64 `json:"server_cpu_cores,omitempty"`
	ServerNsPly float64 `json:"server_cpu_ns_per_ply,omitempty"`
}

func (s *validateSamples) result(name string, plies int, addrs []string) *validateResult {
	r := &validateResult{Scenario: name, Games: s.games, Errors: s.errs, FirstError: s.firstErr, CPUError: s.cpuErr}
	sec := s.measured.Seconds()
	r.measuredSecs = sec
	sum := summarize(s.lat)
	r.P50us, r.P99us, r.MaxUs = us(sum.p50), us(sum.p99), us(sum.max)
	if sec <= 0 {
		return r
	}
	r.GamesPerSec = float64(s.games) / sec
	r.PliesPerSec = r.GamesPerSec * float64(plies)
	totalPlies := float64(s.games * plies)
	r.ClientCores = s.clientCPU.Seconds() / sec
	r.MachineCores = s.machineCPU.Seconds() / sec
	if totalPlies > 0 {
		r.ClientNsPly = float64(s.clientCPU.Nanoseconds()) / totalPlies
	}
	if s.cpuSources > 0 && s.cpuErr == "" {
		var cpu time.Duration
		for _, c := range s.serverCPU {
			cpu += c
		}
		r.ServerCores = cpu.Seconds() / sec
		if totalPlies > 0 {
			r.ServerNsPly = float64(cpu.Nanoseconds()) / totalPlies
		}
	}
	if len(addrs) > 1 {
		for i, a := range addrs {
			rr := replicaResult{Addr: a, PliesPerSec: float64(s.perAddr[i]*plies) / sec}
			if s.cpuSources == len(addrs) && s.cpuErr == "" {
				rr.ServerCores = s.serverCPU[i].Seconds() / sec
				if s.perAddr[i] > 0 {
					rr.ServerNsPly = float64(s.serverCPU[i].Nanoseconds()) / float64(s.perAddr[i]*plies)
				}
			}
			r.PerReplica = append(r.PerReplica, rr)
		}
	}
	return r
}

// cpuReader reads the CPU time used so far by each server: from its
// process_cpu_seconds_total metric, or from /proc/PID/stat.
type cpuReader struct {
	metrics []string // metrics addresses, one per server
	pids    []int
	client  *http.Client
}

func (c *cpuReader) sources() int { return len(c.metrics) + len(c.pids) }

// read returns each server's CPU time so far.
func (c *cpuReader) read(ctx context.Context) ([]time.Duration, error) {
	out := make([]time.Duration, 0, c.sources())
	for _, a := range c.metrics {
		d, err := c.readMetric(ctx, a)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	for _, pid := range c.pids {
		d, err := procCPU(pid)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, nil
}

const cpuMetric = "process_cpu_seconds_total"

func (c *cpuReader) readMetric(ctx context.Context, addr string) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, cpuMetric+" "); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				return 0, fmt.Errorf("metrics at %s: %s: %v", addr, line, err)
			}
			return time.Duration(v * float64(time.Second)), nil
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("metrics at %s: no %s", addr, cpuMetric)
}

// procCPU reads a process's user and system CPU time from /proc (in
// clock ticks of 1/100 s, Linux's USER_HZ).
func procCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: no command name", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return 0, fmt.Errorf("/proc/%d/stat: %v", pid, err)
	}
	return time.Duration(ut+st) * 10 * time.Millisecond, nil
}

// machineBusy is the CPU time the whole machine has spent busy (every
// process, user and system) so far, from /proc/stat; 0 where there is
// none.
func machineBusy() time.Duration {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0
	}
	line, _, _ := bytes.Cut(b, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 8 || f[0] != "cpu" {
		return 0
	}
	var ticks int64
	for i, v := range f[1:] {
		if i == 3 || i == 4 { // idle, iowait
			continue
		}
		if i >= 8 { // guest time is already in user time
			break
		}
		n, _ := strconv.ParseInt(v, 10, 64)
		ticks += n
	}
	return time.Duration(ticks) * 10 * time.Millisecond
}

// selfCPU is the load generator's own CPU time so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// validateWindow is one measured window of a validate scenario: workers
// record each answered game with recordGame.
type validateWindow struct {
	start, end time.Time
	mu         sync.Mutex
	s          *validateSamples
}

// record counts a game sent at t0 and answered at t1 by server addr:
// counted (throughput, CPU per ply) if answered inside the window, its
// latency kept if also sent inside it. A wrong answer or a failed call is
// an error whenever it happens, warm-up included, and never throughput.
func (w *validateWindow) record(addr int, t0, t1 time.Time, err error) {
	if err == nil && (t1.Before(w.start) || t1.After(w.end)) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if err != nil {
		w.s.fail(err)
		return
	}
	w.s.games++
	w.s.perAddr[addr]++
	if !t0.Before(w.start) {
		w.s.lat = append(w.s.lat, t1.Sub(t0))
	}
}

// runValidate runs one window of a validate scenario: run(ctx, window,
// deadline) keeps sending until deadline and returns when every answer
// is in; the CPU of the servers and of the load generator is read at the
// window's start and end.
func runValidate(ctx context.Context, cpu *cpuReader, nAddrs int, warmup, duration time.Duration,
	run func(ctx context.Context, w *validateWindow)) *validateSamples {
	s := &validateSamples{perAddr: make([]int, nAddrs), serverCPU: make([]time.Duration, cpu.sources()), measured: duration, cpuSources: cpu.sources()}
	win := &validateWindow{start: time.Now().Add(warmup), s: s}
	win.end = win.start.Add(duration)
	var cpuWG sync.WaitGroup
	cpuWG.Add(1)
	go func() {
		defer cpuWG.Done()
		sleepUntil(ctx, win.start)
		c0, err := cpu.read(ctx)
		s0, m0 := selfCPU(), machineBusy()
		sleepUntil(ctx, win.end)
		c1, err1 := cpu.read(ctx)
		s.clientCPU, s.machineCPU = selfCPU()-s0, machineBusy()-m0
		if err = errors.Join(err, err1); err != nil {
			s.cpuErr = err.Error()
			return
		}
		for i := range c1 {
			s.serverCPU[i] = c1[i] - c0[i]
		}
	}()
	run(ctx, win)
	cpuWG.Wait()
	return s
}

func sleepUntil(ctx context.Context, t time.Time) {
	select {
	case <-time.After(time.Until(t)):
	case <-ctx.Done():
	}
}

// inFlight is one stream's game sent and not yet answered.
type inFlight struct {
	game int
	t0   time.Time
}

// streamConn is one open stream of a stream scenario: send sends game k,
// closeSend ends the requests, recv receives the next answer and checks
// it against game k, and finish waits for the end of the answers.
type streamConn struct {
	send      func(k int) error
	closeSend func()
	recv      func(k int) error
	finish    func() error
}

// runStreams keeps streams streams open, each with at most window games
// in flight (sent, not yet answered; answers come in order), sending
// games back to back until the window's end; stream s goes to server
// s % nAddrs.
func runStreams(ctx context.Context, w *validateWindow, streams, window, nAddrs, nGames int,
	open func(ctx context.Context, stream int) (*streamConn, error)) {
	var wg sync.WaitGroup
	for st := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithCancel(ctx)
			defer cancel()
			c, err := open(ctx, st)
			if err != nil {
				w.record(st%nAddrs, w.end, w.end, fmt.Errorf("opening stream: %w", err))
				return
			}
			// The receiver holds one game; the channel the others.
			pending := make(chan inFlight, window-1)
			go func() {
				defer close(pending)
				defer c.closeSend()
				for k := st * 7919; ; k++ {
					t0 := time.Now()
					if !t0.Before(w.end) || ctx.Err() != nil {
						return
					}
					select {
					case pending <- inFlight{k % nGames, t0}:
					case <-ctx.Done():
						return
					}
					if c.send(k%nGames) != nil {
						return // recv reports why
					}
				}
			}()
			for f := range pending {
				err := c.recv(f.game)
				w.record(st%nAddrs, f.t0, time.Now(), err)
				if err != nil {
					cancel()
					for range pending {
					}
					return
				}
			}
			if err := c.finish(); err != nil {
				w.record(st%nAddrs, w.end, w.end, fmt.Errorf("closing stream: %w", err))
			}
		}()
	}
	wg.Wait()
}

// runUnaryValidate keeps concurrency workers calling call until the
// window's end; worker w calls server w % nAddrs.
func runUnaryValidate(ctx context.Context, w *validateWindow, concurrency, nAddrs, nGames int,
	call func(ctx context.Context, worker, k int) error) {
	var wg sync.WaitGroup
	for wk := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := wk * 7919; ; k++ {
				t0 := time.Now()
				if !t0.Before(w.end) || ctx.Err() != nil {
					return
				}
				err := call(ctx, wk, k%nGames)
				w.record(wk%nAddrs, t0, time.Now(), err)
			}
		}()
	}
	wg.Wait()
}

// validateRunner returns the function that runs one window of scenario
// sc, and a function that releases its connections.
func validateRunner(sc string, cfg benchConfig, vg *validateGames, conns []*grpc.ClientConn) (func(ctx context.Context, w *validateWindow), func()) {
	nAddrs, nGames := len(cfg.grpcAddrs), len(vg.moves)
	switch sc {
	case scenarioValidateStream:
		desc := &grpc.StreamDesc{StreamName: "ValidateGames", ClientStreams: true, ServerStreams: true}
		method := damonev1.RulesService_ValidateGames_FullMethodName
		return func(ctx context.Context, w *validateWindow) {
			runStreams(ctx, w, cfg.streams, cfg.inFlight, nAddrs, nGames, func(ctx context.Context, st int) (*streamConn, error) {
				cs, err := conns[st%len(conns)].NewStream(ctx, desc, method, grpc.ForceCodecV2(rawCodec{}))
				if err != nil {
					return nil, err
				}
				var in rawMsg
				return &streamConn{
					send:      func(k int) error { return cs.SendMsg(vg.grpcStream[k]) },
					closeSend: func() { cs.CloseSend() },
					recv: func(k int) error {
						if err := cs.RecvMsg(&in); err != nil {
							return err
						}
						return checkStreamAnswerProto(in.b, vg.ids[k], vg.plies)
					},
					finish: func() error {
						if err := cs.RecvMsg(&in); !errors.Is(err, io.EOF) {
							return fmt.Errorf("an answer too many, or %v", err)
						}
						return nil
					},
				}, nil
			})
		}, func() {}
	case scenarioValidateUnary:
		method := damonev1.RulesService_ValidateGame_FullMethodName
		ins := make([]rawMsg, cfg.concurrency)
		return func(ctx context.Context, w *validateWindow) {
			runUnaryValidate(ctx, w, cfg.concurrency, nAddrs, nGames, func(ctx context.Context, wk, k int) error {
				in := &ins[wk]
				if err := conns[wk%len(conns)].Invoke(ctx, method, vg.grpcUnary[k], in, grpc.ForceCodecV2(rawCodec{})); err != nil {
					return err
				}
				return checkVerdictProto(in.b, vg.plies)
			})
		}, func() {}
	case scenarioValidateREST:
		clients := make([]*fasthttp.HostClient, len(cfg.httpAddrs))
		for i, a := range cfg.httpAddrs {
			clients[i] = &fasthttp.HostClient{Addr: a, MaxConns: cfg.concurrency, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second,
				MaxResponseBodySize: 64 << 20}
		}
		reqs := make([]*fasthttp.Request, cfg.concurrency)
		resps := make([]*fasthttp.Response, cfg.concurrency)
		for wk := range reqs {
			reqs[wk], resps[wk] = new(fasthttp.Request), new(fasthttp.Response)
			reqs[wk].SetRequestURI("http://" + cfg.httpAddrs[wk%len(cfg.httpAddrs)] + "/v1/rules:validateGame")
			reqs[wk].Header.SetMethod(http.MethodPost)
			reqs[wk].Header.SetContentType("application/json")
		}
		return func(ctx context.Context, w *validateWindow) {
				runUnaryValidate(ctx, w, cfg.concurrency, nAddrs, nGames, func(_ context.Context, wk, k int) error {
					req, resp := reqs[wk], resps[wk]
					req.SetBodyRaw(vg.restUnary[k])
					if err := clients[wk%len(clients)].Do(req, resp); err != nil {
						return err
					}
					if resp.StatusCode() != http.StatusOK {
						return fmt.Errorf("HTTP %d: %.300s", resp.StatusCode(), resp.Body())
					}
					return checkVerdictJSON(resp.Body(), nil, vg.plies)
				})
			}, func() {
				for _, c := range clients {
					c.CloseIdleConnections()
				}
			}
	case scenarioValidateRESTStream:
		tr := &http.Transport{MaxIdleConnsPerHost: cfg.streams, DisableCompression: true, IdleConnTimeout: time.Minute}
		client := &http.Client{Transport: tr}
		return func(ctx context.Context, w *validateWindow) {
			runStreams(ctx, w, cfg.streams, cfg.inFlight, nAddrs, nGames, func(ctx context.Context, st int) (*streamConn, error) {
				return openNDJSONStream(ctx, client, "http://"+cfg.httpAddrs[st%len(cfg.httpAddrs)]+"/v1/rules:validateGames", vg)
			})
		}, tr.CloseIdleConnections
	}
	panic("unknown validate scenario " + sc)
}

// openNDJSONStream posts one NDJSON request whose body is written while
// the answers are read (HTTP/1.1, full duplex).
func openNDJSONStream(ctx context.Context, client *http.Client, url string, vg *validateGames) (*streamConn, error) {
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-ndjson")
	// The server sends its headers with the first answer, so the response
	// is awaited while the first lines are written.
	type respOrErr struct {
		resp *http.Response
		err  error
	}
	respc := make(chan respOrErr, 1)
	go func() {
		resp, err := client.Do(req)
		respc <- respOrErr{resp, err}
	}()
	var br *bufio.Reader
	var body io.ReadCloser
	// response waits for the response's headers, once.
	response := func() error {
		if br != nil {
			return nil
		}
		r := <-respc
		if r.err != nil {
			pr.CloseWithError(r.err)
			return r.err
		}
		body = r.resp.Body
		context.AfterFunc(ctx, func() { body.Close() })
		if r.resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(io.LimitReader(body, 300))
			pr.CloseWithError(errors.New("refused"))
			return fmt.Errorf("HTTP %d: %s", r.resp.StatusCode, b)
		}
		br = bufio.NewReaderSize(body, 256<<10)
		return nil
	}
	return &streamConn{
		send: func(k int) error {
			_, err := pw.Write(vg.restStream[k])
			return err
		},
		closeSend: func() { pw.Close() },
		recv: func(k int) error {
			if err := response(); err != nil {
				return err
			}
			line, err := br.ReadSlice('\n')
			if errors.Is(err, bufio.ErrBufferFull) {
				return fmt.Errorf("answer line longer than %d bytes", br.Size())
			}
			if err != nil {
				pr.CloseWithError(err)
				return fmt.Errorf("reading answers: %w", err)
			}
			return checkVerdictJSON(line, vg.ids[k], vg.plies)
		},
		finish: func() error {
			if err := response(); err != nil {
				return err
			}
			rest, err := io.ReadAll(br)
			if err == nil && len(bytes.TrimSpace(rest)) > 0 {
				err = fmt.Errorf("data after the last answer: %.300s", rest)
			}
			body.Close()
			return err
		},
	}, nil
}

// checkValidateTargets checks issue 12's target on the gRPC stream.
func checkValidateTargets(stream *validateResult) []targetCheck {
	if stream == nil || stream.ServerNsPly == 0 {
		return nil
	}
	return []targetCheck{{
		Issue:    12,
		Target:   fmt.Sprintf("validate-stream <= %v server CPU per validated ply", targetValidateCPUPerPly),
		Measured: fmt.Sprintf("%.2fµs (%d games, %d errors)", stream.ServerNsPly/1000, stream.Games, stream.Errors),
		Met:      stream.Errors == 0 && stream.Games > 0 && stream.ServerNsPly <= float64(targetValidateCPUPerPly.Nanoseconds()),
	}}
}
