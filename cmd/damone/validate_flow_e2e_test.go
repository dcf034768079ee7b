package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// flowGame is a legal opening of the standard game (RULES.md's start),
// long enough that an answer with every position is a few kilobytes.
// (a6xc4 promotes the Black Pedine on c4 to a Dama: RULES.md, Promotion).
var flowGame = []string{"e2-d3", "b5-c4", "d3xb5", "a6xc4", "f3-e4", "c6-b5", "e4-d5"}

// stalls waits until count stops growing for a second (at most 20 s) and
// returns its value then.
func stalls(t *testing.T, count *atomic.Int64) int64 {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	last := count.Load()
	for time.Now().Before(deadline) {
		time.Sleep(time.Second)
		now := count.Load()
		if now == last && now > 0 {
			return now
		}
		last = now
	}
	t.Fatalf("the sender never stalled: %d sent and still sending", count.Load())
	return 0
}

// TestValidateGamesFlowControl: a client that sends requests and does not
// read the answers is stopped by flow control after a bounded amount, and
// then gets every answer, in order, once it reads (docs/api.md,
// The ValidateGames stream).
func TestValidateGamesFlowControl(t *testing.T) {
	r := startReplica(t)
	// A fixed small window on the client, so the server's writes stall at
	// once when the client does not read.
	conn, err := grpc.NewClient(r.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithInitialWindowSize(64<<10), grpc.WithInitialConnWindowSize(64<<10))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	// Sanity: the game is legal, so a stalled sender is flow control, not
	// an error.
	one, err := damonev1.NewRulesServiceClient(conn).ValidateGame(context.Background(),
		&damonev1.ValidateGameRequest{Moves: flowGame})
	if err != nil || !one.GetValid() || one.GetPly() != int32(len(flowGame)) {
		t.Fatalf("ValidateGame(%v): valid %v, ply %d, %s, %v; want valid", flowGame, one.GetValid(), one.GetPly(), one.GetMessage(), err)
	}

	stream, err := damonev1.NewRulesServiceClient(conn).ValidateGames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	sendDone := make(chan error, 1)
	stop := make(chan struct{})
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				sendDone <- stream.CloseSend()
				return
			default:
			}
			req := &damonev1.ValidateGamesRequest{Id: fmt.Sprint(i),
				Game: &damonev1.ValidateGameRequest{Moves: flowGame, IncludePositions: true}}
			if err := stream.Send(req); err != nil {
				sendDone <- err
				return
			}
			sent.Add(1)
		}
	}()
	stalled := stalls(t, &sent)
	// Each request is about 60 bytes on the wire: what the stalled sender
	// got out is bounded by the windows between it and the server, not by
	// the test's patience.
	if stalled > 400_000 {
		t.Errorf("%d requests sent before the sender stalled: buffering looks unbounded", stalled)
	}
	t.Logf("the sender stalled after %d requests while nobody read", stalled)

	// Reading lets the sender go on; then every answer comes, in order.
	close(stop)
	var got int64
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("after %d answers: %v", got, err)
		}
		if resp.GetId() != fmt.Sprint(got) || !resp.GetResult().GetValid() || len(resp.GetResult().GetPositions()) != len(flowGame) {
			t.Fatalf("answer %d: id %q valid %v, want id %d, valid, with positions", got, resp.GetId(), resp.GetResult().GetValid(), got)
		}
		got++
	}
	if err := <-sendDone; err != nil {
		t.Fatal(err)
	}
	if got != sent.Load() || got <= stalled {
		t.Errorf("%d answers for %d requests (%d before the stall)", got, sent.Load(), stalled)
	}
}

// TestValidateGamesRESTFlowControl: the same over REST with NDJSON: a
// client that writes its body and does not read the answers is stopped by
// TCP after a bounded amount, and gets every answer in order once it reads.
func TestValidateGamesRESTFlowControl(t *testing.T) {
	r := startReplica(t)
	c, err := net.Dial("tcp", r.httpAddr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/rules:validateGames HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-ndjson\r\nTransfer-Encoding: chunked\r\n\r\n", r.httpAddr)
	moves, _ := json.Marshal(flowGame)
	var written atomic.Int64
	stop := make(chan struct{})
	writeDone := make(chan error, 1)
	go func() {
		w := bufio.NewWriter(c)
		for i := 0; ; i++ {
			select {
			case <-stop:
				_, err := w.WriteString("0\r\n\r\n")
				if err == nil {
					err = w.Flush()
				}
				writeDone <- err
				return
			default:
			}
			line := fmt.Sprintf(`{"id": "%d", "game": {"moves": %s}}`+"\n", i, moves)
			fmt.Fprintf(w, "%x\r\n%s\r\n", len(line), line)
			if err := w.Flush(); err != nil {
				writeDone <- err
				return
			}
			written.Add(1)
		}
	}()
	stalled := stalls(t, &written)
	if stalled > 400_000 {
		t.Errorf("%d lines written before the writer stalled: buffering looks unbounded", stalled)
	}
	t.Logf("the REST writer stalled after %d lines while nobody read", stalled)

	close(stop)
	br := bufio.NewReaderSize(c, 1<<20)
	status, err := br.ReadString('\n')
	if err != nil || !strings.HasPrefix(status, "HTTP/1.1 200") {
		t.Fatalf("status line %q, %v", status, err)
	}
	chunked := false
	for {
		h, err := br.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.EqualFold(strings.TrimSpace(h), "Transfer-Encoding: chunked") {
			chunked = true
		}
		if h == "\r\n" {
			break
		}
	}
	if !chunked {
		t.Fatal("the answer stream is not chunked")
	}
	// Undo the chunking by hand: net/http's reader would want the whole
	// response first.
	var got int64
	var pending string
	for {
		var size int
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d answers: %v", got, err)
		}
		if _, err := fmt.Sscanf(strings.TrimSpace(line), "%x", &size); err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if size == 0 {
			break
		}
		buf := make([]byte, size+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			t.Fatal(err)
		}
		pending += string(buf[:size])
		for {
			i := strings.IndexByte(pending, '\n')
			if i < 0 {
				break
			}
			var ans struct {
				Result struct {
					ID     string `json:"id"`
					Result struct {
						Valid bool     `json:"valid"`
						Moves []string `json:"moves"`
					} `json:"result"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(pending[:i]), &ans); err != nil {
				t.Fatalf("answer %d %q: %v", got, pending[:i], err)
			}
			if ans.Result.ID != fmt.Sprint(got) || !ans.Result.Result.Valid || len(ans.Result.Result.Moves) != len(flowGame) {
				t.Fatalf("answer %d: %.300s", got, pending[:i])
			}
			got++
			pending = pending[i+1:]
		}
	}
	if err := <-writeDone; err != nil {
		t.Fatal(err)
	}
	if got != written.Load() || got <= stalled {
		t.Errorf("%d answers for %d lines (%d before the stall)", got, written.Load(), stalled)
	}
}

// TestValidateGamesEndOnShutdown: at SIGTERM an open ValidateGames stream
// ends with UNAVAILABLE at once (gRPC, and a final {"error": ...} line
// over REST), not at the end of the drain timeout, and the server exits
// well before that timeout (docs/api.md, The ValidateGames stream).
func TestValidateGamesEndOnShutdown(t *testing.T) {
	r := startReplica(t, "--drain-timeout", "20s")
	stream, err := r.rules.ValidateGames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&damonev1.ValidateGamesRequest{Id: "g1", Game: &damonev1.ValidateGameRequest{Moves: flowGame}}); err != nil {
		t.Fatal(err)
	}
	if resp, err := stream.Recv(); err != nil || !resp.GetResult().GetValid() {
		t.Fatalf("first answer %v, %v", resp, err)
	}
	// The REST stream, open with one answer read.
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := http.NewRequest("POST", "http://"+r.httpAddr+"/v1/rules:validateGames", pr)
	req.Header.Set("Content-Type", "application/x-ndjson")
	respc := make(chan *http.Response, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			close(respc)
			return
		}
		respc <- resp
	}()
	moves, _ := json.Marshal(flowGame)
	fmt.Fprintf(pw, `{"id": "r1", "game": {"moves": %s}}`+"\n", moves)
	resp := <-respc
	if resp == nil {
		t.Fatal("no REST response")
	}
	defer resp.Body.Close()
	lines := bufio.NewScanner(resp.Body)
	if !lines.Scan() || !strings.Contains(lines.Text(), `"id":"r1"`) {
		t.Fatalf("first REST answer %q", lines.Text())
	}

	sent := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_, err = stream.Recv()
	if status.Code(err) != codes.Unavailable {
		t.Errorf("gRPC stream after SIGTERM: %v, want UNAVAILABLE", err)
	}
	if !lines.Scan() || !strings.Contains(lines.Text(), `"error"`) || !strings.Contains(lines.Text(), `"code":14`) {
		t.Errorf("REST stream after SIGTERM: %q, want a final {\"error\": ...} line with code 14", lines.Text())
	}
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		t.Fatal("the server still runs 10 s after SIGTERM, with the drain timeout at 20 s")
	}
	if took := time.Since(sent); took > 5*time.Second {
		t.Errorf("exit took %v after SIGTERM; open streams must not hold the drain", took)
	}
}

// TestValidateGamesLineLimit: over REST each request line may be up to
// --max-request-bytes long, its line ending not counted; one byte more is
// 413 LIMIT_EXCEEDED (docs/api.md, The ValidateGames stream).
func TestValidateGamesLineLimit(t *testing.T) {
	r := startReplica(t, "--max-request-bytes", "2048")
	line := func(n int) string { // a valid request of exactly n bytes, padded with spaces
		head, tail := `{"id": "a",`, ` "game": {"moves": ["e2-d3"]}}`
		return head + strings.Repeat(" ", n-len(head)-len(tail)) + tail
	}
	for _, c := range []struct {
		body   string
		status int
	}{
		{line(2048) + "\n", 200},
		{line(2048) + "\r\n", 200},
		{line(2048), 200},
		{line(2049) + "\n", 413},
	} {
		resp, err := http.Post("http://"+r.httpAddr+"/v1/rules:validateGames", "application/x-ndjson", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || (c.status == 200 && !strings.Contains(string(body), `"valid":true`)) {
			t.Errorf("a line of %d bytes (%q ending): %d %.200s, want %d", len(strings.TrimRight(c.body, "\r\n")),
				c.body[len(strings.TrimRight(c.body, "\r\n")):], resp.StatusCode, body, c.status)
		}
	}
}

// TestValidateGameBounds: every position of a game is returned only up to
// --max-position-plies moves (RESOURCE_EXHAUSTED, limit position_plies,
// above it), and a REST stream line holding invalid UTF-8 ends the stream
// with an {"error": ...} line after the answers before it, the lines after
// it unanswered but not lost silently (docs/api.md, The ValidateGames
// stream).
func TestValidateGameBounds(t *testing.T) {
	r := startReplica(t, "--max-position-plies", "4")
	ctx := context.Background()
	four := []string{"e2-d3", "b5-c4", "d3xb5", "a6xc4"}
	got, err := r.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: four, IncludePositions: true})
	if err != nil || len(got.GetPositions()) != 4 {
		t.Errorf("4 moves with positions under a cap of 4: %d positions, %v", len(got.GetPositions()), err)
	}
	_, err = r.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: append(four, "f3-e4"), IncludePositions: true})
	if status.Code(err) != codes.ResourceExhausted || limitOf(err) != "position_plies" {
		t.Errorf("5 moves with positions under a cap of 4: %v, want RESOURCE_EXHAUSTED with limit position_plies", err)
	}
	if got, err := r.rules.ValidateGame(ctx, &damonev1.ValidateGameRequest{Moves: append(four, "f3-e4")}); err != nil || !got.GetValid() {
		t.Errorf("5 moves without positions: %v, %v", got, err)
	}

	body := "{\"id\": \"ok\", \"game\": {}}\n{\"id\": \"a\", \"game\": {\"moves\": [\"e2-d3\xe9\"]}}\n{\"id\": \"later\", \"game\": {}}\n"
	resp, err := http.Post("http://"+r.httpAddr+"/v1/rules:validateGames", "application/x-ndjson", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"id":"ok"`) || !strings.Contains(lines[1], `"error"`) ||
		!strings.Contains(lines[1], "line 2") || !strings.Contains(lines[1], `"code":3`) {
		t.Errorf("a stream whose line 2 holds invalid UTF-8: %q, want the answer to line 1, then an INVALID_ARGUMENT error line naming line 2", lines)
	}
}
