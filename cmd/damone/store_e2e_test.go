package main

// End-to-end tests of the embedded store's operator commands (issue 14):
// damone store verify and damone store backup against files written by a
// real damone serve, the hot backup taken under load and restored into a
// new server, and the backup endpoint on the metrics port only.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// storeCLI runs the damone binary and returns its stdout, stderr and exit
// code.
func storeCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(svBin, args...)
	cmd.Env = svEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

// stopServer ends a server with SIGTERM and waits for it.
func stopServer(t *testing.T, s *svServer) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		t.Fatal("damone serve did not stop within 30s of SIGTERM")
	}
}

func fileHash(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// playOne makes a legal move in a game: the first in the list of legal
// moves of its position.
func playOne(ctx context.Context, c damonev1.GameServiceClient, g *damonev1.Game, red, black string) (*damonev1.Game, string, error) {
	p, err := engine.ParsePosition(g.GetPosition().GetText())
	if err != nil {
		return nil, "", err
	}
	legal := p.LegalMoves()
	if len(legal) == 0 {
		return g, "", nil
	}
	mv := legal[(int(g.GetPly())*7)%len(legal)].String()
	tok := red
	if p.SideToMove() == engine.Black {
		tok = black
	}
	resp, err := c.MakeMove(svAuth(ctx, tok), &damonev1.MakeMoveRequest{Name: g.GetName(), Move: mv})
	if err != nil {
		return nil, "", err
	}
	return resp.GetGame(), mv, nil
}

func gameMoves(g *damonev1.Game) []string {
	var out []string
	for _, m := range g.GetMoves() {
		out = append(out, m.GetNotation())
	}
	return out
}

// damone store verify: exit 0 with a summary on a sound file, 1 naming the
// file on a damaged or empty one (left unchanged) and on a file a running
// server holds, 2 on a usage mistake; damone serve refuses an empty file
// instead of starting a new store over it.
func TestStoreVerifyCommand(t *testing.T) {
	svSkip(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "damone.db")
	s := svStart(t, "--store", "embedded", "--data-dir", dir, "--admin-backup")
	ctx := svCtx(t)
	created, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := playOne(ctx, s.games, created.GetGame(), created.GetRedToken(), created.GetBlackToken()); err != nil {
		t.Fatal(err)
	}

	out, errOut, code := storeCLI(t, "store", "verify", "--data-dir", dir)
	if code != 1 || !strings.Contains(errOut, path) || !strings.Contains(errOut, "in use") || !strings.Contains(errOut, "store backup --from") {
		t.Errorf("verify of a store a server holds: exit %d, stdout %q, stderr %q; want 1, naming the file as in use and pointing at a hot backup", code, out, errOut)
	}
	out, errOut, code = storeCLI(t, "store", "backup", "--data-dir", dir, "--out", filepath.Join(t.TempDir(), "b.db"))
	if code != 1 || !strings.Contains(errOut, "in use") {
		t.Errorf("offline backup of a store a server holds: exit %d, %q %q; want 1, in use", code, out, errOut)
	}
	stopServer(t, s)

	// One game, its creation and one move: 2 events.
	out, errOut, code = storeCLI(t, "store", "verify", "--data-dir", dir)
	if code != 0 || !strings.HasPrefix(out, path+": sound: schema damone-") || !strings.Contains(out, " 1 games, 2 events, 0 requests") {
		t.Errorf("verify of a sound store: exit %d, stdout %q, stderr %q; want 0 and a summary of 1 game and 2 events", code, out, errOut)
	}

	before := fileHash(t, path)
	offline := filepath.Join(t.TempDir(), "offline.db")
	out, errOut, code = storeCLI(t, "store", "backup", "--data-dir", dir, "--out", offline)
	if code != 0 || !strings.HasPrefix(out, offline+": backup of "+path+", verified: schema damone-") || !strings.Contains(out, " 1 games, 2 events") {
		t.Errorf("offline backup: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if o, e, c := storeCLI(t, "store", "verify", "--file", offline); c != 0 || !strings.Contains(o, " 1 games, 2 events") {
		t.Errorf("verify of the offline backup: exit %d, %q %q", c, o, e)
	}
	if fileHash(t, path) != before {
		t.Error("verify or backup changed the store file")
	}

	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name    string
		content []byte
		want    string
	}{
		{"truncated", whole[:3*4096], "it was truncated"},
		{"empty", nil, "the file is empty (0 bytes)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ddir := t.TempDir()
			dpath := filepath.Join(ddir, "damone.db")
			if err := os.WriteFile(dpath, c.content, 0o600); err != nil {
				t.Fatal(err)
			}
			out, errOut, code := storeCLI(t, "store", "verify", "--file", dpath)
			if code != 1 || out != "" || !strings.Contains(errOut, dpath) || !strings.Contains(errOut, c.want) {
				t.Errorf("verify: exit %d, stdout %q, stderr %q; want 1 naming %s and %q", code, out, errOut, dpath, c.want)
			}
			cmd := exec.Command(svBin, "serve", "--data-dir", ddir, "--grpc-addr", "127.0.0.1:0",
				"--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0")
			cmd.Env = svEnv()
			serveOut, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(string(serveOut), dpath) || !strings.Contains(string(serveOut), c.want) {
				t.Errorf("serve: %v, output %q; want exit 1 naming %s and %q", err, serveOut, dpath, c.want)
			}
			if got, _ := os.ReadFile(dpath); !bytes.Equal(got, c.content) {
				t.Error("the damaged file was changed")
			}
		})
	}

	// Each mistake points to the --help of the command it was made in.
	for _, c := range []struct {
		args []string
		help string
	}{
		{[]string{"store", "verify", "--data-dir", dir, "--file", path}, "Run 'damone store verify --help'"},
		{[]string{"store", "verify", "extra"}, "Run 'damone store verify --help'"},
		{[]string{"store", "backup", "--out", filepath.Join(dir, "b.db")}, "Run 'damone store backup --help'"},
		{[]string{"store", "backup", "--data-dir", dir}, "Run 'damone store backup --help'"},
		{[]string{"store", "nope"}, "Run 'damone store --help'"},
	} {
		if out, errOut, code := storeCLI(t, c.args...); code != 2 || out != "" || !strings.Contains(errOut, c.help) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 and %q", c.args, code, out, errOut, c.help)
		}
	}
}

// A hot backup taken while games are played holds every game and move
// acknowledged before it began; restored into a new server, it serves
// them. The server keeps acknowledging moves while the backup runs.
func TestHotBackupUnderLoadRestores(t *testing.T) {
	svSkip(t)
	dir := t.TempDir()
	s := svStart(t, "--store", "embedded", "--data-dir", dir, "--admin-backup")
	ctx := svCtx(t)

	var mu sync.Mutex
	acked := map[string][]string{} // game name -> moves acknowledged, in order
	ackCount := 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 4 {
		wg.Go(func() {
			for {
				created, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
				if err != nil {
					errs <- err
					return
				}
				g := created.GetGame()
				mu.Lock()
				acked[g.GetName()] = []string{}
				ackCount++
				mu.Unlock()
				for ply := 0; ply < 40 && g.GetStatus() == damonev1.GameStatus_GAME_STATUS_IN_PROGRESS; ply++ {
					select {
					case <-stop:
						return
					default:
					}
					var mv string
					if g, mv, err = playOne(ctx, s.games, g, created.GetRedToken(), created.GetBlackToken()); err != nil {
						errs <- err
						return
					}
					if mv == "" {
						break
					}
					mu.Lock()
					acked[g.GetName()] = append(acked[g.GetName()], mv)
					ackCount++
					mu.Unlock()
				}
			}
		})
	}
	time.Sleep(time.Second)

	mu.Lock()
	before := map[string][]string{}
	for name, moves := range acked {
		before[name] = slices.Clone(moves)
	}
	countAtStart := ackCount
	mu.Unlock()
	out := filepath.Join(t.TempDir(), "backup.db")
	stdout, stderr, code := storeCLI(t, "store", "backup", "--from", "http://"+s.metricsAddr, "--out", out)
	mu.Lock()
	during := ackCount - countAtStart
	mu.Unlock()
	time.Sleep(200 * time.Millisecond)
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("load: %v", err)
	}
	if code != 0 || !strings.Contains(stdout, out+": backup of http://"+s.metricsAddr+"/admin/backup, verified: schema damone-") {
		t.Fatalf("store backup: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if during == 0 {
		t.Error("no game or move was acknowledged while the backup was taken")
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("the backup's directory holds %d entries, want the backup alone (no temporary file left)", len(entries))
	}
	if o, e, c := storeCLI(t, "store", "verify", "--file", out); c != 0 {
		t.Fatalf("verify of the backup: exit %d, %q %q", c, o, e)
	}

	// Restore: the backup as the data directory's file of a new server.
	restored := t.TempDir()
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, "damone.db"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	r := svStart(t, "--store", "embedded", "--data-dir", restored)
	moves := 0
	for name, want := range before {
		g, err := r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
		if err != nil {
			t.Fatalf("%s, acknowledged before the backup began: %v", name, err)
		}
		got := gameMoves(g)
		if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
			t.Fatalf("%s after the restore: moves %v, want %v acknowledged before the backup began (and perhaps more)", name, got, want)
		}
		moves += len(want)
	}
	t.Logf("backup of %d bytes under load: %d games and %d moves acknowledged before it, all restored; %d acknowledged while it was taken",
		len(b), len(before), moves, during)
}

// The backup endpoint is on the metrics port only: the REST and gRPC ports
// do not serve it; a store without hot backups answers 501.
func TestBackupOnlyOnMetricsPort(t *testing.T) {
	svSkip(t)
	s := svStart(t, "--store", "embedded", "--data-dir", t.TempDir(), "--admin-backup")
	get := func(url string) (int, []byte, error) {
		resp, err := http.Get(url)
		if err != nil {
			return 0, nil, err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, body, nil
	}
	code, body, err := get("http://" + s.metricsAddr + "/admin/backup")
	if err != nil || code != 200 || len(body) < 8192 || !bytes.Equal(body[16:20], []byte{0xED, 0xDA, 0x0C, 0xED}) {
		t.Fatalf("metrics port: %d, %d bytes, %v; want 200 and a bbolt file (magic 0xED0CDAED at byte 16)", code, len(body), err)
	}
	for _, addr := range []string{s.httpAddr, s.grpcAddr} {
		code, body, err := get("http://" + addr + "/admin/backup")
		if err == nil && (code == 200 || bytes.Contains(body, []byte{0xED, 0xDA, 0x0C, 0xED})) {
			t.Errorf("%s/admin/backup: %d with %d bytes; the public ports must not serve the backup", addr, code, len(body))
		}
	}

	// Off unless asked for: whoever reaches the metrics port could read
	// every game.
	off := svStart(t, "--store", "embedded", "--data-dir", t.TempDir())
	if code, body, err := get("http://" + off.metricsAddr + "/admin/backup"); err != nil || code != 404 || !strings.Contains(string(body), "--admin-backup") {
		t.Errorf("without --admin-backup: %d %q %v; want 404 naming the flag", code, body, err)
	}

	m := svStart(t, "--admin-backup")
	code, body, err = get("http://" + m.metricsAddr + "/admin/backup")
	if err != nil || code != 501 || !strings.Contains(string(body), "only the embedded store") {
		t.Errorf("memory store: %d %q %v; want 501 saying only the embedded store serves a backup", code, body, err)
	}
	out := filepath.Join(t.TempDir(), "b.db")
	if o, e, c := storeCLI(t, "store", "backup", "--from", m.metricsAddr, "--out", out); c != 1 || !strings.Contains(e, "501") {
		t.Errorf("store backup from a memory store: exit %d, %q %q; want 1 with the 501", c, o, e)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed backup left %s: %v", out, err)
	}
}

// A backup never replaces a store: not the file of a running server (it
// would go on writing to a file with no name, and lose what it
// acknowledges after), not the --data-dir store it copies.
func TestBackupRefusesToReplaceAStore(t *testing.T) {
	svSkip(t)
	dir := t.TempDir()
	s := svStart(t, "--store", "embedded", "--data-dir", dir, "--admin-backup")
	live := filepath.Join(dir, "damone.db")
	sum := func() string {
		b, err := os.ReadFile(live)
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%x", sha256.Sum256(b))
	}
	before := sum()
	if o, e, c := storeCLI(t, "store", "backup", "--from", s.metricsAddr, "--out", live); c != 1 || !strings.Contains(e, "in use by another process") {
		t.Errorf("backup over the running server's file: exit %d, %q %q; want 1 saying it is in use", c, o, e)
	}
	if sum() != before {
		t.Error("the running server's store file was changed")
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	<-s.exited
	if o, e, c := storeCLI(t, "store", "backup", "--data-dir", dir, "--out", live); c != 1 || !strings.Contains(e, "is the store being copied") {
		t.Errorf("backup of a store onto itself: exit %d, %q %q; want 1 saying so", c, o, e)
	}
	if sum() != before {
		t.Error("the store file was replaced by its own copy")
	}
}
