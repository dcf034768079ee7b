package bolt

// Issue 14: no store file may crash the process or be changed by opening
// it. A real store is built through the games service, then copies of it
// are damaged in seeded ways (the four reports, then truncations
// at random offsets, zeroed random pages, flipped random bytes and swapped
// pages) and opened. Each must either open with every acknowledged game
// as it was (the damage hit unused space), or be refused with a
// *DamageError naming the file; either way the file is byte for byte as
// it was. The opens run in a child process (this test binary again), so
// a crash fails the case instead of killing the test.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

const (
	damageChildEnv = "DAMONE_TEST_DAMAGE_DIR" // the child's work directory (pristine file and golden records)
	damageFromEnv  = "DAMONE_TEST_DAMAGE_FROM"
	damageRandom   = 240 // seeded random damages, after the four
)

// golden is a game as read back from the undamaged file, in the codec's
// form.
type golden struct {
	ID     string   `json:"id"`
	Game   []byte   `json:"game"`
	Events [][]byte `json:"events"`
}

func TestDamagedCopiesRefusedOrIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a store and opens 244 damaged copies in a child process")
	}
	dir := t.TempDir()
	acked := buildDamageStore(t, filepath.Join(dir, "store"))
	pristine := filepath.Join(dir, "store", FileName)

	// Read everything back from the undamaged file; it must hold exactly
	// what was acknowledged while playing.
	s, err := Open(filepath.Join(dir, "store"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []golden
	for _, a := range acked {
		g, err := s.Get(context.Background(), a.id)
		if err != nil {
			t.Fatal(err)
		}
		moves, err := storedMoves(s, a.id)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(moves, a.moves) || g.LastEvent != a.lastEvent {
			t.Fatalf("game %s read back with moves %v and last event %d; acknowledged %v and %d", a.id, moves, g.LastEvent, a.moves, a.lastEvent)
		}
		evs, err := s.Events(context.Background(), a.id, 0, 1<<20)
		if err != nil || int64(len(evs)) != a.lastEvent {
			t.Fatalf("game %s: %d events (%v), want %d", a.id, len(evs), err, a.lastEvent)
		}
		gold = append(gold, encodeGolden(t, g, evs))
	}
	// The games due by the far future: those going on with a clock, in
	// the order of the deadlines the service acknowledged (then ids).
	timed := slices.DeleteFunc(slices.Clone(acked), func(a ackedGame) bool { return a.deadline.IsZero() })
	slices.SortFunc(timed, func(a, b ackedGame) int {
		return cmp.Or(a.deadline.Compare(b.deadline), strings.Compare(a.id, b.id))
	})
	due := []string{}
	for _, a := range timed {
		due = append(due, a.id)
	}
	if len(due) == 0 {
		t.Fatal("no game with a deadline: the deadline index is not put to the test")
	}
	if got, err := s.Due(context.Background(), farFuture, len(acked)+1); err != nil || !slices.Equal(got, due) {
		t.Fatalf("Due = %q, %v; want %q", got, err, due)
	}
	s.Close()
	b, _ := json.Marshal(gold)
	if err := os.WriteFile(filepath.Join(dir, "golden.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(due)
	if err := os.WriteFile(filepath.Join(dir, "due.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(pristine, filepath.Join(dir, "pristine.db")); err != nil {
		t.Fatal(err)
	}

	total := 4 + damageRandom
	results := map[int]string{}
	var failures []string
	for from := 0; from < total; {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDamagedCopiesChild$", "-test.v")
		cmd.Env = append(os.Environ(), damageChildEnv+"="+dir, damageFromEnv+"="+strconv.Itoa(from))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		begun, begunWhat := -1, ""
		var childLog strings.Builder
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			line := sc.Text()
			childLog.WriteString(line + "\n")
			f := strings.SplitN(line, " ", 4)
			if len(f) < 3 || f[0] != "case" {
				continue
			}
			n, _ := strconv.Atoi(f[1])
			switch f[2] {
			case "begin":
				begun = n
				if len(f) == 4 {
					begunWhat = f[3]
				}
			case "opened", "refused":
				results[n] = f[2]
			case "FAIL":
				results[n] = "failed"
				failures = append(failures, line)
			}
		}
		werr := cmd.Wait()
		if begun >= 0 && results[begun] == "" {
			// The child died inside this case: a crash.
			results[begun] = "crashed"
			tail := childLog.String() + stderr.String()
			if len(tail) > 3000 {
				tail = tail[:3000]
			}
			failures = append(failures, fmt.Sprintf("case %d %s: the process died (%v):\n%s", begun, begunWhat, werr, tail))
			from = begun + 1
			continue
		}
		if werr != nil && begun < 0 {
			t.Fatalf("child process: %v\n%s%s", werr, childLog.String(), stderr.String())
		}
		break
	}
	counts := map[string]int{}
	for i := range total {
		counts[results[i]]++
	}
	t.Logf("%d damaged copies: %d refused, %d opened with every game intact, %d failed, %d crashed",
		total, counts["refused"], counts["opened"], counts["failed"], counts["crashed"])
	if len(results) != total {
		t.Errorf("only %d of %d cases reported", len(results), total)
	}
	for _, f := range failures {
		t.Error(f)
	}
	// The four reports are refusals; most random damages hit data.
	for i, name := range []string{"truncated to half its data", "16 KiB zeroed in the middle", "200 bytes flipped", "emptied"} {
		if results[i] != "refused" {
			t.Errorf("case %d (%s): %s, want refused", i, name, results[i])
		}
	}
	if counts["refused"] < total/2 {
		t.Errorf("only %d of %d damaged copies refused: the damages miss the data", counts["refused"], total)
	}
}

// TestDamagedCopiesChild is the child process of
// TestDamagedCopiesRefusedOrIntact; it reports each case on stdout.
func TestDamagedCopiesChild(t *testing.T) {
	dir := os.Getenv(damageChildEnv)
	if dir == "" {
		t.Skip("run by TestDamagedCopiesRefusedOrIntact")
	}
	from, _ := strconv.Atoi(os.Getenv(damageFromEnv))
	pristine, err := os.ReadFile(filepath.Join(dir, "pristine.db"))
	if err != nil {
		t.Fatal(err)
	}
	var gold []golden
	if b, err := os.ReadFile(filepath.Join(dir, "golden.json")); err != nil || json.Unmarshal(b, &gold) != nil {
		t.Fatalf("golden records: %v", err)
	}
	var due []string
	if b, err := os.ReadFile(filepath.Join(dir, "due.json")); err != nil || json.Unmarshal(b, &due) != nil {
		t.Fatalf("games due: %v", err)
	}
	for i := from; i < 4+damageRandom; i++ {
		content, what := damage(pristine, i)
		fmt.Printf("case %d begin %s\n", i, what)
		if msg := openDamaged(dir, i, content, gold, due); msg != "" {
			fmt.Printf("case %d FAIL %s: %s\n", i, what, msg)
		}
	}
}

// farFuture is an instant after every deadline of the damage test's games.
var farFuture = time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC)

// openDamaged opens one damaged copy and checks the outcome: refused, or
// every game as in gold and the games due by farFuture those of due, in
// order. It prints the case's result, or returns what went wrong.
func openDamaged(dir string, i int, content []byte, gold []golden, due []string) string {
	cdir := filepath.Join(dir, fmt.Sprintf("case%d", i))
	path := filepath.Join(cdir, FileName)
	if err := os.MkdirAll(cdir, 0o700); err != nil {
		return err.Error()
	}
	defer os.RemoveAll(cdir)
	if err := os.WriteFile(path, content, 0o600); err != nil {
		return err.Error()
	}
	before := sha256.Sum256(content)
	unchanged := func() string {
		after, err := os.ReadFile(path)
		if err != nil {
			return err.Error()
		}
		if sha256.Sum256(after) != before {
			return fmt.Sprintf("the file changed (%d bytes before, %d after)", len(content), len(after))
		}
		return ""
	}
	s, err := Open(cdir)
	if err != nil {
		var de *DamageError
		switch {
		case !errors.As(err, &de) || de.Problem == "":
			return fmt.Sprintf("refused without naming the damage: %v", err)
		case !strings.Contains(err.Error(), path):
			return fmt.Sprintf("the refusal does not name the file %s: %v", path, err)
		case strings.Contains(err.Error(), "reading it failed"):
			return fmt.Sprintf("bbolt panicked or faulted (caught only by the last defence): %v", err)
		}
		if msg := unchanged(); msg != "" {
			return "refused, but " + msg
		}
		fmt.Printf("case %d refused %v\n", i, err)
		return ""
	}
	ctx := context.Background()
	for _, want := range gold {
		g, err := s.Get(ctx, want.ID)
		if err != nil {
			s.Close()
			return fmt.Sprintf("opened, but game %s: %v", want.ID, err)
		}
		evs, err := s.Events(ctx, want.ID, 0, 1<<20)
		if err != nil {
			s.Close()
			return fmt.Sprintf("opened, but the events of game %s: %v", want.ID, err)
		}
		if got := encodeGolden(nil, g, evs); !bytes.Equal(got.Game, want.Game) || !slices.EqualFunc(got.Events, want.Events, bytes.Equal) {
			s.Close()
			return fmt.Sprintf("opened, but game %s reads back differently", want.ID)
		}
	}
	if n, err := s.Count(ctx); err != nil || n != len(gold) {
		s.Close()
		return fmt.Sprintf("opened, but counts %d games (%v), want %d", n, err, len(gold))
	}
	if got, err := s.Due(ctx, farFuture, len(gold)+1); err != nil || !slices.Equal(got, due) {
		s.Close()
		return fmt.Sprintf("opened, but the games due are %q (%v), want %q", got, err, due)
	}
	if err := s.Close(); err != nil {
		return err.Error()
	}
	if msg := unchanged(); msg != "" {
		return "opened, but " + msg
	}
	fmt.Printf("case %d opened\n", i)
	return ""
}

// damage returns a damaged copy of the file for case i, and what was
// done. Cases 0-3 are the reports; the others are seeded (seed i),
// by turns a truncation, zeroed pages, flipped bytes and swapped pages.
func damage(orig []byte, i int) ([]byte, string) {
	b := bytes.Clone(orig)
	ps := int(binary.NativeEndian.Uint32(b[16+8:])) // the page size, from meta page 0
	pages := len(b) / ps
	// The pages in use are those below the meta pages' high water mark.
	used := int(max(binary.NativeEndian.Uint64(b[16+40:]), binary.NativeEndian.Uint64(b[ps+16+40:])))
	rng := rand.New(rand.NewPCG(14, uint64(i)))
	switch {
	case i == 0:
		// bbolt grows a file ahead of its data: half the bytes in use.
		n := used * ps / 2
		return b[:n], fmt.Sprintf("(truncated to half its data, %d of %d bytes)", n, len(b))
	case i == 1:
		at := used / 2 * ps
		clear(b[at : at+16<<10])
		return b, fmt.Sprintf("(16 KiB zeroed at byte %d, the middle of the %d pages in use)", at, used)
	case i == 2:
		for range 200 {
			b[rng.IntN(len(b))] ^= 0xFF
		}
		return b, "(200 bytes flipped, seed 2)"
	case i == 3:
		return nil, "(emptied)"
	}
	switch i % 4 {
	case 0:
		n := rng.IntN(len(b))
		return b[:n], fmt.Sprintf("(seed %d: truncated at byte %d of %d)", i, n, len(b))
	case 1:
		var at []int
		for range 1 + rng.IntN(3) {
			p := rng.IntN(pages)
			at = append(at, p)
			clear(b[p*ps : (p+1)*ps])
		}
		return b, fmt.Sprintf("(seed %d: pages %v zeroed)", i, at)
	case 2:
		var at []int
		for range 1 + rng.IntN(8) {
			// Half in the pages in use, half anywhere.
			n := len(b)
			if rng.IntN(2) == 0 {
				n = used * ps
			}
			p := rng.IntN(n)
			at = append(at, p)
			b[p] ^= 0xFF
		}
		return b, fmt.Sprintf("(seed %d: bytes %v flipped)", i, at)
	default:
		p, q := rng.IntN(used), rng.IntN(used-1)
		if q >= p {
			q++
		}
		pp, qq := b[p*ps:(p+1)*ps], b[q*ps:(q+1)*ps]
		tmp := bytes.Clone(pp)
		copy(pp, qq)
		copy(qq, tmp)
		return b, fmt.Sprintf("(seed %d: pages %d and %d swapped)", i, p, q)
	}
}

func encodeGolden(t *testing.T, g *games.Game, evs []games.Event) golden {
	gb, err := games.EncodeGame(g)
	if err != nil && t != nil {
		t.Fatal(err)
	}
	out := golden{ID: g.ID, Game: gb}
	for i := range evs {
		eb, err := games.EncodeEvent(&evs[i])
		if err != nil && t != nil {
			t.Fatal(err)
		}
		out.Events = append(out.Events, eb)
	}
	return out
}

type ackedGame struct {
	id        string
	moves     []string
	lastEvent int64
	deadline  time.Time // of its clock, as acknowledged last; zero: none
}

// buildDamageStore plays games into a new store in dir through the games
// service and returns what was acknowledged: 40 games of 0 to 50 random
// legal moves, some with request ids, draw offers declined, a resignation,
// one in three with a clock (a day a move: none runs out meanwhile).
func buildDamageStore(t *testing.T, dir string) []ackedGame {
	t.Helper()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.setNoSync(true) // speed only: the file is closed before it is copied
	svc := games.NewService(s, games.DefaultLimits)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(14, 0))
	var acked []ackedGame
	for n := range 40 {
		var tc games.TimeControl
		if n%3 == 0 {
			tc.PerMove = 24 * time.Hour
		}
		g, tok, err := svc.CreateTimed(ctx, engine.DefaultVariant(), tc)
		if err != nil {
			t.Fatal(err)
		}
		a := ackedGame{id: g.ID, moves: []string{}, lastEvent: 1}
		for ply := range rng.IntN(51) {
			if g.Over() {
				break
			}
			legal := g.Position.LegalMoves()
			mv := legal[rng.IntN(len(legal))].String()
			token := tok.Red
			if g.Position.SideToMove() == engine.Black {
				token = tok.Black
			}
			req := games.MoveRequest{GameID: g.ID, Token: token, Move: mv}
			if ply%3 == 0 {
				req.RequestID = fmt.Sprintf("req-%d-%d", n, ply)
			}
			res, err := svc.MakeMove(ctx, req)
			if err != nil {
				t.Fatalf("game %d ply %d %s: %v", n, ply, mv, err)
			}
			g = res.Game
			a.moves = append(a.moves, mv)
			a.lastEvent = g.LastEvent
			if ply == 7 && !g.Over() { // an offer, then its decline
				other := tok.Red
				if token == tok.Red {
					other = tok.Black
				}
				if g, err = svc.OfferDraw(ctx, g.ID, other); err != nil {
					t.Fatal(err)
				}
				if g, err = svc.AnswerDrawOffer(ctx, g.ID, token, false); err != nil {
					t.Fatal(err)
				}
				a.lastEvent = g.LastEvent
			}
		}
		if n%10 == 9 && !g.Over() {
			if g, err = svc.Resign(ctx, g.ID, tok.Red); err != nil {
				t.Fatal(err)
			}
			a.lastEvent = g.LastEvent
		}
		if g.Clock != nil && !g.Over() {
			a.deadline = g.Clock.Deadline
		}
		acked = append(acked, a)
	}
	return acked
}
