package main

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/egtb"
	"github.com/damone-rules/damone/internal/engine"
)

// tbRow is one move row of the page's tablebase panel.
type tbRow struct {
	Group, Move, Badge string
	Button             bool
}

func (w webTab) tablebaseRows() []tbRow {
	w.t.Helper()
	var rows []tbRow
	js := `JSON.stringify([...document.querySelectorAll("#tablebase .tb-group li")].map(li => ({
		Group: li.parentNode.className.replace("tb-group tb-", ""), Move: li.dataset.move,
		Badge: (li.querySelector(".tb-badge") || {textContent: ""}).textContent,
		Button: li.querySelector(".tb-move").tagName === "BUTTON"})))`
	if err := json.Unmarshal([]byte(w.eval(js)), &rows); err != nil {
		w.t.Fatal(err)
	}
	return rows
}

// TestWebTablebasePanel: the game page shows the tables' verdict and every
// move grouped for the side to move, plays a move clicked there, and shows
// nothing for a position the tables do not hold; all under the page's CSP
// with no page error.
func TestWebTablebasePanel(t *testing.T) {
	svSkip(t)
	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2, Win: []engine.WinCondition{engine.CaptureAllPieces}}); err != nil {
		t.Fatal(err)
	}
	s := svStart(t, "--egtb-dir", dir)
	ctx := svCtx(t)
	tb := damonev1.NewTablebaseServiceClient(s.conn)
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		_, err := tb.ProbePosition(ctx, &damonev1.ProbePositionRequest{Position: "R:RPd3:BPe4:0"})
		if err == nil {
			break
		}
		if status.Code(err) != codes.Unavailable || time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	create := func(start string) *damonev1.CreateGameResponse {
		t.Helper()
		cr, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{Game: &damonev1.Game{Variant: &damonev1.Variant{
			Start: &damonev1.Variant_StartPosition{StartPosition: &damonev1.Position{Text: start}}}}})
		if err != nil {
			t.Fatal(err)
		}
		return cr
	}
	origin := "http://" + s.httpAddr
	browser := newBrowser(t)

	// Red's d3xf5 is compulsory and takes Black's last piece (RULES.md):
	// a win in one ply, at counter 23 of 80; the move ends the game.
	won := create("R:RPd3:BPe4:23")
	red := webTab{t, newTab(t, browser), "red"}
	red.do(chromedp.Navigate(origin + "/" + won.Game.Name + "#red=" + won.RedToken))
	red.waitJS(`!document.getElementById("tablebase").hidden && !!document.querySelector("#tablebase .tb-move")`, "the tablebase panel")
	if got, want := red.eval(`document.querySelector("#tablebase .tb-verdict").textContent`),
		"win, capture or promotion in 1; no-progress 23/80"; got != want {
		t.Errorf("verdict %q, want %q", got, want)
	}
	if got, want := red.tablebaseRows(), []tbRow{{"winning", "d3xf5", "ends the game", true}}; !slices.Equal(got, want) {
		t.Errorf("rows %+v, want %+v", got, want)
	}
	screenshot(t, red.ctx, "tablebase-win")
	checkAccessibility(t, red.ctx)
	red.do(chromedp.Click(chromedp.CSS(`#tablebase li[data-move="d3xf5"] button`)))
	red.waitMoves("d3xf5")
	red.waitJS(`document.getElementById("tablebase").hidden`, "the panel hidden once the game is over")
	if st := red.text("status"); !strings.Contains(st, "Game over") {
		t.Errorf("status %q after the winning click", st)
	}

	// A drawn position with moves that lose: each row in the group its
	// category gives the mover (the answer's category is the opponent's,
	// after the move), with its DTC; a watcher's rows are not buttons.
	const drawn = "R:RDd3:BPc6,Pg6:0"
	probe, err := tb.ProbePosition(ctx, &damonev1.ProbePositionRequest{Position: drawn})
	if err != nil {
		t.Fatal(err)
	}
	var want []tbRow
	for _, g := range []string{"winning", "drawing", "losing"} {
		for _, m := range probe.GetMoves() {
			group := map[damonev1.TablebaseCategory]string{damonev1.TablebaseCategory_TABLEBASE_CATEGORY_LOSS: "winning",
				damonev1.TablebaseCategory_TABLEBASE_CATEGORY_WIN: "losing"}[m.GetCategory()]
			if group == "" {
				group = "drawing"
			}
			if group != g {
				continue
			}
			badge := ""
			if m.Dtc != nil {
				badge = "DTC " + strconv.Itoa(int(m.GetDtc()))
			}
			want = append(want, tbRow{g, m.GetNotation(), badge, false})
		}
	}
	groups := map[string]bool{}
	for _, r := range want {
		groups[r.Group] = true
	}
	if !groups["drawing"] || !groups["losing"] {
		t.Fatalf("%s: the tables give %v; the test wants drawing and losing moves", drawn, probe)
	}
	dg := create(drawn)
	watch := webTab{t, newTab(t, browser), "watch"}
	watch.do(chromedp.Navigate(origin + "/" + dg.Game.Name))
	watch.waitJS(`!!document.querySelector("#tablebase .tb-move")`, "the tablebase panel")
	if got := watch.eval(`document.querySelector("#tablebase .tb-verdict").textContent`); got != "draw; no-progress 0/80" {
		t.Errorf("verdict %q, want %q", got, "draw; no-progress 0/80")
	}
	if got := watch.tablebaseRows(); !slices.Equal(got, want) {
		t.Errorf("rows %+v, want %+v", got, want)
	}
	screenshot(t, watch.ctx, "tablebase-draw")
	checkAccessibility(t, watch.ctx)

	// The standard start has 16 pieces: no panel.
	std, err := s.games.CreateGame(ctx, &damonev1.CreateGameRequest{})
	if err != nil {
		t.Fatal(err)
	}
	start := webTab{t, newTab(t, browser), "start"}
	start.do(chromedp.Navigate(origin + "/" + std.Game.Name))
	start.waitJS(`!!document.querySelector("#sq-e2 .piece")`, "the board")
	time.Sleep(300 * time.Millisecond) // the probe's answer has come
	if start.eval(`String(document.getElementById("tablebase").hidden)`) != "true" {
		t.Errorf("the panel shows for the standard start: %s", start.eval(`document.getElementById("tablebase").textContent`))
	}
	for _, w := range []webTab{red, watch, start} {
		assertNoPageErrors(t, w.ctx)
		assertSameOrigin(t, w.ctx, origin)
	}
}
