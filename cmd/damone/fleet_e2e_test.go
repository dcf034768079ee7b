package main

// End-to-end test of a balanced rules fleet (docs/deploy.md, Balancing gRPC
// clients): three `damone serve --services rules` replicas, one client
// channel with the repository's service config (k8s/grpc-service-config.json:
// round_robin, retries on UNAVAILABLE) over the three addresses, and one
// replica killed in the middle of the load. Every call must still succeed
// with the reference verdict, and every replica must have served its share.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/stats"
	"google.golang.org/protobuf/encoding/protojson"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/refgames"
)

// fleetCase is one reference game as a request, with its expected verdict.
type fleetCase struct {
	id   string
	req  *damonev1.ValidateGameRequest
	want refgames.Expected
}

func fleetCases(t *testing.T) []fleetCase {
	t.Helper()
	games, err := refgames.Load()
	if err != nil {
		t.Fatal(err)
	}
	cases := make([]fleetCase, len(games))
	for i, g := range games {
		v := &damonev1.Variant{}
		if err := protojson.Unmarshal(g.Variant, v); err != nil {
			t.Fatalf("game %s: variant %s: %v", g.ID, g.Variant, err)
		}
		cases[i] = fleetCase{id: g.ID, req: &damonev1.ValidateGameRequest{Variant: v, Moves: g.Moves}, want: g.Expected}
	}
	return cases
}

// fleetDiff describes how a verdict differs from the expected one ("" if
// it does not).
func fleetDiff(got *damonev1.ValidateGameResponse, want refgames.Expected) string {
	type verdict struct {
		Valid                bool
		FirstIllegalPly, Ply int
		Moves                int // len(moves): ply says how many
		EndPly               string
		Result, Reason       string
		FinalPosition        string
	}
	w := verdict{Valid: want.Valid, FirstIllegalPly: want.FirstIllegalPly, Ply: want.Ply, Moves: want.Ply,
		EndPly: "unset", FinalPosition: want.FinalPosition}
	if want.EndPly != nil {
		w.EndPly = fmt.Sprint(*want.EndPly)
	}
	if want.Outcome != nil {
		w.Result, w.Reason = want.Outcome.Result, want.Outcome.Reason
	}
	g := verdict{Valid: got.GetValid(), FirstIllegalPly: int(got.GetFirstIllegalPly()), Ply: int(got.GetPly()),
		Moves: len(got.GetMoves()), EndPly: "unset", FinalPosition: got.GetFinalPosition().GetText()}
	if got.EndPly != nil {
		g.EndPly = fmt.Sprint(got.GetEndPly())
	}
	if o := got.GetOutcome(); o != nil {
		g.Result, g.Reason = o.GetResult().String(), o.GetReason().String()
	}
	if g == w {
		return ""
	}
	return fmt.Sprintf("got %+v, want %+v", g, w)
}

// fleetAttempts counts the attempts of the client's calls, retries included.
type fleetAttempts struct{ n atomic.Int64 }

func (a *fleetAttempts) TagRPC(ctx context.Context, _ *stats.RPCTagInfo) context.Context { return ctx }
func (a *fleetAttempts) HandleRPC(_ context.Context, s stats.RPCStats) {
	if b, ok := s.(*stats.Begin); ok && b.Client {
		a.n.Add(1)
	}
}
func (a *fleetAttempts) TagConn(ctx context.Context, _ *stats.ConnTagInfo) context.Context {
	return ctx
}
func (a *fleetAttempts) HandleConn(context.Context, stats.ConnStats) {}

// fleetServed is how many ValidateGame calls a replica answered OK, from
// its own /metrics. (No t.Fatal: the killer goroutine calls it too.)
func fleetServed(r *replica) (float64, error) {
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + r.metricsAddr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/metrics: %d %v", resp.StatusCode, err)
	}
	n, _ := svMetric(string(body), "grpc_server_handled_total",
		map[string]string{"grpc_service": "damone.v1.RulesService", "grpc_method": "ValidateGame", "grpc_code": "OK"})
	return n, nil
}

func TestRulesFleetBalancesAndSurvivesAKill(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end")
	}
	const (
		calls   = 20000
		workers = 8
		killAt  = 7000 // completions before one replica is killed
	)
	cases := fleetCases(t)
	serviceConfig, err := os.ReadFile(filepath.Join("..", "..", "k8s", "grpc-service-config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var reps []*replica
	for range 3 {
		reps = append(reps, startReplica(t, "--services", "rules"))
	}
	victim := reps[1]

	// The three addresses stand in for the A records of the headless
	// Service; grpc-go's round_robin and retries do the rest.
	r := manual.NewBuilderWithScheme("fleet")
	var eps []resolver.Endpoint
	for _, rep := range reps {
		eps = append(eps, resolver.Endpoint{Addresses: []resolver.Address{{Addr: rep.grpcAddr}}})
	}
	r.InitialState(resolver.State{Endpoints: eps})
	attempts := &fleetAttempts{}
	conn, err := grpc.NewClient(r.Scheme()+":///damone-rules", grpc.WithResolvers(r),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(string(serviceConfig)),
		grpc.WithStatsHandler(attempts))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	client := damonev1.NewRulesServiceClient(conn)

	var (
		next, done atomic.Int64
		killNow    = make(chan struct{})
		mu         sync.Mutex
		failures   []string // the first few, for the report
		failed     int
	)
	report := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		if failed++; len(failures) < 20 {
			failures = append(failures, fmt.Sprintf(format, args...))
		}
	}

	// The killer: reads the victim's count, then SIGKILLs it mid-load.
	var (
		victimServed, doneAtKill float64
		scrapeErr                error
	)
	killed := make(chan struct{})
	go func() {
		defer close(killed)
		<-killNow
		victimServed, scrapeErr = fleetServed(victim)
		// Read after the scrape: every call the victim had answered by
		// then, bar the few still on their way back, is counted here.
		doneAtKill = float64(done.Load())
		victim.kill()
	}()

	start := time.Now()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= calls {
					return
				}
				c := cases[int(i)%len(cases)]
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				resp, err := client.ValidateGame(ctx, c.req)
				cancel()
				switch {
				case err != nil:
					report("call %d, game %s: %v", i, c.id, err)
				default:
					if d := fleetDiff(resp, c.want); d != "" {
						report("call %d, game %s: %s", i, c.id, d)
					}
				}
				if done.Add(1) == killAt {
					close(killNow)
				}
			}
		})
	}
	wg.Wait()
	<-killed
	elapsed := time.Since(start)

	for _, f := range failures {
		t.Error(f)
	}
	if failed > 0 {
		t.Fatalf("%d of %d calls failed or gave a verdict other than the reference game's", failed, calls)
	}
	if scrapeErr != nil {
		t.Fatalf("the victim's metrics before the kill: %v", scrapeErr)
	}
	select {
	case <-victim.exited:
	default:
		t.Fatal("the victim replica is still running")
	}
	if doneAtKill > calls/2 {
		t.Fatalf("the kill came after %.0f of %d calls: too late to test the calls after it", doneAtKill, calls)
	}

	// Each replica's share of the calls it could have had: the victim's
	// until it was killed, the others' of every call. round_robin gives
	// each about a third; 10% catches a client pinned to one pod.
	served := []float64{0, victimServed, 0}
	for _, i := range []int{0, 2} {
		if served[i], err = fleetServed(reps[i]); err != nil {
			t.Fatal(err)
		}
	}
	could := []float64{calls, doneAtKill, calls}
	for i, n := range served {
		t.Logf("replica %d served %.0f ValidateGame calls OK (%.0f%% of the %.0f it could have had)", i, n, 100*n/could[i], could[i])
		if n <= 0.10*could[i] {
			t.Errorf("replica %d served %.0f of %.0f calls: not balanced", i, n, could[i])
		}
	}
	if sum := served[0] + served[2]; sum < calls-doneAtKill {
		t.Errorf("the two surviving replicas served %.0f calls, fewer than the %.0f made after the kill", sum, calls-doneAtKill)
	}
	t.Logf("%d calls from %d goroutines in %v; %d attempts (retries included)", calls, workers, elapsed.Round(time.Millisecond), attempts.n.Load())
}
