package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// webStart is a custom start (docs/api.md, Variants) in which the game
// below reaches a two-piece capture in three moves, worked out by hand from
// RULES.md: Red's Pedine d3 has no capture at first; after Black's f5-e4 it
// must take e4 (landing on f5, just emptied) and then e6 (landing on d7):
// d3xf5xd7, the only legal move.
const webStart = "R:RMh1,Pd3:BMa8,Pf5,Pe6:0"

// webAmbiguousStart is docs/notation.md's example of an ambiguous short
// form: two captures go from d1 to f7, d1xb3xd5xf7 and d1xf3xd5xf7.
const webAmbiguousStart = "R:RPd1:BPc2,Pc4,Pe2,Pe4,Pe6:0"

// webTab is one browser tab on the page.
type webTab struct {
	t    *testing.T
	ctx  context.Context
	name string
}

func (w webTab) do(actions ...chromedp.Action[chromedp.Void]) {
	w.t.Helper()
	if err := chromedp.Do(w.ctx, actions...); err != nil {
		w.t.Fatalf("%s tab: %v\n%s", w.name, err, w.state())
	}
}

// state describes what the tab shows, for failure messages.
func (w webTab) state() string {
	s, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](`JSON.stringify({path: location.pathname,
		conn: document.getElementById("conn").textContent, status: document.getElementById("status").textContent,
		message: document.getElementById("message").textContent,
		moves: [...document.querySelectorAll("#moves li")].map(li => li.textContent),
		selected: [...document.querySelectorAll("#board-wrap .selected")].map(e => e.parentNode.dataset.square),
		offered: [...document.querySelectorAll("#board-wrap .target")].map(e => e.parentNode.dataset.square)})`))
	if err != nil {
		return "(the tab's state cannot be read: " + err.Error() + ")"
	}
	errs, _ := pageErrors(w.ctx)
	return w.name + " tab shows " + s + "\npage errors: " + strings.Join(errs, "\n  ")
}

// waitJS waits until the JavaScript expression is truthy.
func (w webTab) waitJS(expr, what string) {
	w.t.Helper()
	if _, err := chromedp.Run(w.ctx, chromedp.Poll[chromedp.Void](expr,
		chromedp.WithPollingInterval(20*time.Millisecond), chromedp.WithPollingTimeout(15*time.Second))); err != nil {
		w.t.Fatalf("%s tab: waiting for %s: %v\n%s", w.name, what, err, w.state())
	}
}

func (w webTab) eval(expr string) string {
	w.t.Helper()
	s, err := chromedp.Run(w.ctx, chromedp.Evaluate[string](expr))
	if err != nil {
		w.t.Fatalf("%s tab: %s: %v", w.name, expr, err)
	}
	return s
}

func (w webTab) text(id string) string {
	return w.eval(`document.getElementById(` + jsString(id) + `).textContent`)
}

func (w webTab) moves() []string {
	w.t.Helper()
	m, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#moves li")].map(li => li.textContent)`))
	if err != nil {
		w.t.Fatal(err)
	}
	return m
}

// waitMoves waits until the move list is exactly want: no move missing,
// none shown twice.
func (w webTab) waitMoves(want ...string) {
	w.t.Helper()
	b, _ := json.Marshal(want)
	w.waitJS(`JSON.stringify([...document.querySelectorAll("#moves li")].map(li => li.textContent)) === `+jsString(string(b)),
		"the moves "+strings.Join(want, " "))
}

// click clicks a square of the board, as a person does: at its middle.
func (w webTab) click(sq string) {
	w.t.Helper()
	xy, err := chromedp.Run(w.ctx, chromedp.Evaluate[[]float64](`(() => {
		const r = document.querySelector("#sq-`+sq+` rect").getBoundingClientRect();
		return [r.left + r.width / 2, r.top + r.height / 2];
	})()`))
	if err != nil || len(xy) != 2 {
		w.t.Fatalf("%s tab: square %s: %v", w.name, sq, err)
	}
	w.do(chromedp.MouseClickXY(xy[0], xy[1]))
}

// waitTarget waits until the board offers sq as a destination (the
// server's legal moves have arrived).
func (w webTab) waitTarget(sq string) {
	w.t.Helper()
	w.waitJS(`!!document.querySelector("#sq-`+sq+` .target")`, sq+" offered as a destination")
}

func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// pageErrorsBut are the tab's page errors except failed loads: a refused
// move (HTTP 409) and the killed server's refused connections are failed
// loads the page handles; CSP violations and exceptions are not.
func pageErrorsBut(ctx context.Context) []string {
	errs, _ := pageErrors(ctx)
	return slices.DeleteFunc(errs, func(e string) bool {
		return strings.HasPrefix(e, "log error (network): Failed to load resource")
	})
}

// TestWebBoard drives the board page (docs/web.md) in a real headless
// Chromium against the real binary: a game between two tabs played by
// clicking, a third tab watching, the server killed and restarted while a
// move is played, an illegal click, the keyboard, typed notation, a draw
// offer, resignation, analysis, a game against the engine, then the
// accessibility and same-origin checks.
func TestWebBoard(t *testing.T) {
	svSkip(t)
	start := time.Now()
	dataDir := t.TempDir()
	s := svStart(t, "--store", "embedded", "--data-dir", dataDir, "--max-analyses", "2")
	origin := "http://" + s.httpAddr
	browser := newBrowser(t)

	// A new game against a person, from the custom start.
	home := webTab{t, newTab(t, browser), "home"}
	home.do(chromedp.Navigate(origin+"/"), chromedp.WaitVisible(chromedp.CSS("#new-game")),
		chromedp.Click(chromedp.CSS("#new-game summary")),
		chromedp.SendKeys(chromedp.CSS("#start-position"), webStart),
		chromedp.Click(chromedp.CSS("#create")), chromedp.WaitVisible(chromedp.CSS("#links")))
	links := map[string]string{}
	for _, id := range []string{"red-link", "black-link", "watch-link"} {
		links[id] = home.eval(`document.getElementById("` + id + `").href`)
	}
	redURL, _ := url.Parse(links["red-link"])
	blackURL, _ := url.Parse(links["black-link"])
	watchURL, _ := url.Parse(links["watch-link"])
	redToken, _ := strings.CutPrefix(redURL.Fragment, "red=")
	blackToken, _ := strings.CutPrefix(blackURL.Fragment, "black=")
	if redURL.Path != watchURL.Path || blackURL.Path != watchURL.Path || !strings.HasPrefix(watchURL.Path, "/games/") ||
		watchURL.Fragment != "" || len(redToken) < 20 || len(blackToken) < 20 || redToken == blackToken {
		t.Fatalf("links: %v", links)
	}
	name := strings.TrimPrefix(watchURL.Path, "/")
	screenshot(t, home.ctx, "01-new-game-links")

	// Watching a game by name that does not exist shows the server's answer.
	code, body := svHTTP(t, "GET", s.url("/v1/games/nosuchgame"), "", nil)
	var notFound struct{ Message string }
	if json.Unmarshal(body, &notFound); code != 404 || notFound.Message == "" {
		t.Fatalf("GET a missing game: %d %s", code, body)
	}
	missing := webTab{t, newTab(t, browser), "missing"}
	missing.do(chromedp.Navigate(origin+"/"), chromedp.SendKeys(chromedp.CSS("#watch-name"), "games/nosuchgame"),
		chromedp.Click(chromedp.CSS("#watch-form button")), chromedp.WaitVisible(chromedp.CSS("#game")))
	missing.waitJS(`location.pathname === "/games/nosuchgame" && document.getElementById("message").textContent.startsWith(`+
		jsString(notFound.Message)+`) && document.getElementById("conn").textContent === "not followed"`, "the server's NOT_FOUND")

	// An address that names no game is said so, and nothing is asked of
	// the API for it.
	for _, path := range []string{"/games/%FF", "/games/a%2Fb", "/games/..%2Frules:listLegalMoves"} {
		missing.do(chromedp.Navigate(origin + path))
		missing.waitJS(`document.getElementById("message").textContent.startsWith("This address names no game")`, "the refusal of "+path)
	}
	for _, u := range tabRequests(missing.ctx) {
		if strings.Contains(u, "/v1/") && !strings.Contains(u, "nosuchgame") {
			t.Errorf("a bad game address led to an API call: %s", u)
		}
	}

	red := webTab{t, newTab(t, browser), "red"}
	black := webTab{t, newTab(t, browser), "black"}
	watch := webTab{t, newTab(t, browser), "watcher"}
	for _, tab := range []webTab{red, black, watch} {
		u := links[map[string]string{"red": "red-link", "black": "black-link", "watcher": "watch-link"}[tab.name]]
		tab.do(chromedp.Navigate(u))
		tab.waitJS(`document.getElementById("conn").dataset.state === "live" && !!document.querySelector("#sq-h1 .piece")`, "the game's board")
	}
	if got := black.eval(`document.querySelector("#board-wrap text.coord").textContent`); got != "h" {
		t.Errorf("Black's board starts its files with %q, want h (flipped)", got)
	}
	if got := red.text("role"); got != "You play Red." {
		t.Errorf("red tab's role: %q", got)
	}
	if got := watch.text("role"); got != "You are watching." {
		t.Errorf("watcher tab's role: %q", got)
	}
	// A watcher may flip the board too, and flip it back.
	watch.do(chromedp.Click(chromedp.CSS("#flip")))
	if got := watch.eval(`document.querySelector("#board-wrap text.coord").textContent`); got != "h" {
		t.Errorf("the watcher's flipped board starts its files with %q, want h", got)
	}
	watch.do(chromedp.Click(chromedp.CSS("#flip")))

	// Moves by clicking; every tab shows each one once.
	red.click("h1")
	red.waitTarget("g2")
	red.click("g2")
	for _, tab := range []webTab{red, black, watch} {
		tab.waitMoves("h1-g2")
	}
	black.click("f5")
	black.waitTarget("e4")
	black.click("e4")
	red.waitMoves("h1-g2", "f5-e4") // a click before the page knows it is Red's turn is not a move
	// The capture, square by square: the board offers f5, then d7.
	red.click("d3")
	red.waitTarget("f5")
	red.click("f5")
	red.waitTarget("d7")
	red.click("d7")
	for _, tab := range []webTab{red, black, watch} {
		tab.waitMoves("h1-g2", "f5-e4", "d3xf5xd7")
	}
	// The last move is marked: its squares filled, the captured ones crossed.
	for _, sel := range []string{"#sq-d3 .last", "#sq-f5 .last", "#sq-d7 .last", "#sq-e4 .captured", "#sq-e6 .captured"} {
		if watch.eval(`String(!!document.querySelector("`+sel+`"))`) != "true" {
			t.Errorf("watcher tab: no %s after d3xf5xd7", sel)
		}
	}
	if got, want := watch.text("captured"), "Red lost nothing; Black lost 2 Pedine."; got != want {
		t.Errorf("captured: %q, want %q", got, want)
	}
	watch.waitJS(`document.getElementById("announce").textContent === "Red played d3xf5xd7."`, "the live region's announcement")
	png := screenshot(t, watch.ctx, "02-two-piece-capture")
	if dir := os.Getenv("DAMONE_UPDATE_SCREENSHOTS"); dir != "" {
		// The README's and docs/web.md's picture (docs/images): a game
		// page right after a capture of two.
		if err := os.WriteFile(filepath.Join(dir, "web-board.png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// The server dies (SIGKILL: no goodbye on the streams). The pages say
	// so; Black's move is played the moment a new server is up, before
	// the pages are back; they resume from their last event, with no gap.
	s.cmd.Process.Kill()
	<-s.exited
	for _, tab := range []webTab{red, black, watch} {
		tab.waitJS(`document.getElementById("conn").dataset.state === "reconnecting" && document.getElementById("conn").textContent === "reconnecting…"`, "reconnecting…")
	}
	screenshot(t, watch.ctx, "03-reconnecting")
	s2 := svStart(t, "--store", "embedded", "--data-dir", dataDir, "--http-addr", s.httpAddr, "--max-analyses", "2")
	if code, body := svHTTP(t, "POST", s2.url("/v1/"+name+":move"), blackToken, map[string]any{"move": "a8-b7"}); code != 200 {
		t.Fatalf("a8-b7 after the restart: %d %s", code, body)
	}
	for _, tab := range []webTab{red, black, watch} {
		tab.waitMoves("h1-g2", "f5-e4", "d3xf5xd7", "a8-b7")
		tab.waitJS(`document.getElementById("conn").dataset.state === "live"`, "live again")
	}

	// An illegal click is sent, and the server's reason shown: d7 to d5 is
	// no diagonal step. The page must show what the server answers for it.
	code, body = svHTTP(t, "POST", s2.url("/v1/"+name+":move"), redToken, map[string]any{"move": "d7-d5"})
	var refusal struct{ Message string }
	if json.Unmarshal(body, &refusal); code != 400 || !strings.Contains(refusal.Message, "d7") {
		t.Fatalf("d7-d5 sent directly: %d %s", code, body)
	}
	red.click("d7")
	red.click("d5")
	red.waitJS(`document.getElementById("message").textContent.startsWith(`+jsString(refusal.Message)+`)`, "the server's reason")
	if !strings.Contains(red.text("message"), "ILLEGAL_MOVE") {
		t.Errorf("the message does not give the reason: %q", red.text("message"))
	}
	screenshot(t, red.ctx, "04-illegal-move")

	// The keyboard: from d5 (the last square clicked) to g2, Enter; then h3,
	// Enter: g2-h3, announced.
	red.do(chromedp.Focus(chromedp.CSS("svg.board")))
	keys := strings.Repeat(kb.ArrowRight, 3) + strings.Repeat(kb.ArrowDown, 3)
	red.do(chromedp.KeyEvent(keys))
	if got := red.eval(`document.querySelector("svg.board").getAttribute("aria-activedescendant")`); got != "sq-g2" {
		t.Fatalf("the keyboard cursor is on %q, want sq-g2", got)
	}
	red.do(chromedp.KeyEvent(kb.Enter))
	red.waitTarget("h3")
	red.do(chromedp.KeyEvent(kb.ArrowRight + kb.ArrowUp + kb.Enter))
	watch.waitMoves("h1-g2", "f5-e4", "d3xf5xd7", "a8-b7", "g2-h3")
	red.waitJS(`document.getElementById("announce").textContent === "Red played g2-h3."`, "the announcement of g2-h3")

	// Typed notation.
	black.waitMoves("h1-g2", "f5-e4", "d3xf5xd7", "a8-b7", "g2-h3")
	black.do(chromedp.SendKeys(chromedp.CSS("#move-input"), "b7-a8"), chromedp.Click(chromedp.CSS("#move-submit")))
	watch.waitMoves("h1-g2", "f5-e4", "d3xf5xd7", "a8-b7", "g2-h3", "b7-a8")

	// Analysis of the shown position, stopped: the server's search ends.
	watch.do(chromedp.Click(chromedp.CSS("#analyse")))
	watch.waitJS(`document.querySelectorAll("#analysis-lines-out li").length > 0 && document.getElementById("analysis-status").textContent.startsWith("Depth")`, "analysis lines")
	screenshot(t, watch.ctx, "05-analysis")
	watch.do(chromedp.Click(chromedp.CSS("#stop-analysis")))
	watch.waitJS(`document.getElementById("analysis-status").textContent === "Stopped." && !document.getElementById("analyse").disabled`, "Stopped.")
	waitMetric(t, s2, "damone_analyses_running", 0)

	// A draw offered and declined, then a resignation ends the game.
	red.do(chromedp.Click(chromedp.CSS("#offer-draw")))
	black.waitJS(`!document.getElementById("draw-answer").hidden`, "the draw offer")
	black.do(chromedp.Click(chromedp.CSS("#decline-draw")))
	red.waitJS(`document.getElementById("announce").textContent === "Black declined the draw."`, "the declined offer")
	// Resigning takes a second click: the first only asks.
	black.do(chromedp.Click(chromedp.CSS("#resign")))
	black.waitJS(`document.getElementById("resign").textContent === "Click again to resign"`, "the resign confirmation")
	black.do(chromedp.Click(chromedp.CSS("#resign")))
	for _, tab := range []webTab{red, black, watch} {
		tab.waitJS(`document.getElementById("status").textContent === "Game over: Red wins by resignation." && document.getElementById("conn").textContent === "game over"`, "the end by resignation")
	}

	// Against the engine: it replies by itself.
	eng := webTab{t, newTab(t, browser), "engine"}
	eng.do(chromedp.Navigate(origin+"/"), chromedp.WaitVisible(chromedp.CSS("#new-game")),
		chromedp.Click(chromedp.CSS(`input[name=opponent][value=engine]`)),
		chromedp.SetValue(chromedp.CSS("#engine-strength"), "depth:2"),
		chromedp.Click(chromedp.CSS("#create")), chromedp.WaitVisible(chromedp.CSS("#game")))
	eng.waitJS(`location.pathname.startsWith("/games/") && location.hash.startsWith("#red=") && !!document.querySelector("#sq-e2 .piece")`, "the engine game's page")
	eng.click("e2")
	eng.waitTarget("d3")
	eng.click("d3")
	eng.waitJS(`document.querySelectorAll("#moves li").length === 2 && document.querySelector("#moves li:nth-child(2)").classList.contains("black")`, "the engine's reply")
	// The engine answers no draw offer (docs/web.md): none is offered.
	if eng.eval(`String(document.getElementById("offer-draw").hidden)`) != "true" {
		t.Error("a game against the engine offers a draw")
	}
	if got := eng.moves()[0]; got != "e2-d3" {
		t.Errorf("engine game: first move %q, want e2-d3", got)
	}
	screenshot(t, eng.ctx, "06-engine-replied")

	// An ambiguous short form (docs/notation.md, Moves: two captures go
	// from d1 to f7) is narrowed by a further click: a square on one route.
	code, body = svHTTP(t, "POST", s2.url("/v1/games"), "", map[string]any{"variant": map[string]any{"start_position": map[string]any{"text": webAmbiguousStart}}})
	var amb struct {
		Game     struct{ Name string }
		RedToken string `json:"red_token"`
	}
	if json.Unmarshal(body, &amb); code != 200 || amb.RedToken == "" {
		t.Fatalf("creating the game from %s: %d %s", webAmbiguousStart, code, body)
	}
	short := webTab{t, newTab(t, browser), "short form"}
	short.do(chromedp.Navigate(origin + "/" + amb.Game.Name + "#red=" + amb.RedToken))
	short.waitJS(`!!document.querySelector("#sq-d1 .piece")`, "the board")
	short.click("d1")
	short.waitTarget("b3")
	short.waitTarget("f3")
	short.click("f7")
	short.waitJS(`document.getElementById("message").textContent === "2 captures from d1 end on f7: click a square to pass through."`, "the choice of route")
	short.click("f3")
	short.waitMoves("d1xf3xd5xf7")

	// A game with a clock (2 s + 0, both first moves played over REST):
	// Red's clock ticks down on the page, then the server ends the game on
	// time, and the page says so.
	code, body = svHTTP(t, "POST", s2.url("/v1/games"), "", map[string]any{"time_control": map[string]any{"initial": "2s"}})
	var timed struct {
		Game       struct{ Name string }
		RedToken   string `json:"red_token"`
		BlackToken string `json:"black_token"`
	}
	if json.Unmarshal(body, &timed); code != 200 {
		t.Fatalf("creating a timed game: %d %s", code, body)
	}
	clockTab := webTab{t, newTab(t, browser), "clock"}
	clockTab.do(chromedp.Navigate(origin + "/" + timed.Game.Name))
	clockTab.waitJS(`document.getElementById("clock-red").textContent.startsWith("Red 0:02.0 (first move within")`, "Red's clock and its first-move time")
	for _, mv := range []struct{ tok, move string }{{timed.RedToken, "e2-d3"}, {timed.BlackToken, "c6-d5"}} {
		if code, body := svHTTP(t, "POST", s2.url("/v1/"+timed.Game.Name+":move"), mv.tok, map[string]any{"move": mv.move}); code != 200 {
			t.Fatalf("%s: %d %s", mv.move, code, body)
		}
	}
	clockTab.waitJS(`document.getElementById("clock-red").dataset.running === "true" && document.getElementById("clock-red").textContent < "Red 0:02.0"`, "Red's clock ticking")
	screenshot(t, clockTab.ctx, "07-clock-running")
	clockTab.waitJS(`document.getElementById("status").textContent === "Game over: Black wins by timeout." && document.getElementById("clock-red").textContent === "Red 0:00.0"`, "the flag fall")

	// Accessibility: axe-core's WCAG 2 A/AA rules on both pages, and the
	// contrast of the rank marks on their discs.
	t.Logf("axe-core: home page %d rules passed, game page %d", checkAccessibility(t, home.ctx), checkAccessibility(t, watch.ctx))
	t.Logf("rank marks: lowest contrast %.2f:1", svgContrast(t, eng.ctx, "#board-wrap .piece text"))

	// Nothing outside the page's origin, no page error, and the tokens in
	// no URL the browser requested nor in the server's logs.
	for _, tab := range []webTab{home, missing, red, black, watch, eng, short, clockTab} {
		assertSameOrigin(t, tab.ctx, origin)
		if errs := pageErrorsBut(tab.ctx); len(errs) > 0 {
			t.Errorf("%s tab: page errors:\n  %s", tab.name, strings.Join(errs, "\n  "))
		}
		for _, u := range tabRequests(tab.ctx) {
			if strings.Contains(u, redToken) || strings.Contains(u, blackToken) {
				t.Errorf("%s tab requested a URL with a side token: %s", tab.name, u)
			}
		}
	}
	for _, srv := range []*svServer{s, s2} {
		if log := srv.logText(); strings.Contains(log, redToken) || strings.Contains(log, blackToken) {
			t.Errorf("a side token is in the server's log")
		}
	}
	t.Logf("browser suite: %v", time.Since(start).Round(time.Millisecond))
}

// waitMetric waits until the server's metric (no labels) has the value.
func waitMetric(t *testing.T, s *svServer, name string, want float64) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		v, ok := svMetric(s.metrics(t), name, nil)
		if ok && v == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s = %v (found %v), want %v", name, v, ok, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWebPageServedWith: the page is served by default, not with
// --web=false, and not by a server without the games service it plays on;
// the API's routes are unchanged either way.
func TestWebPageServedWith(t *testing.T) {
	for _, tc := range []struct {
		args []string
		page bool
	}{
		{nil, true},
		{[]string{"--web=false"}, false},
		{[]string{"--services", "rules,analysis"}, false},
	} {
		s := svStart(t, tc.args...)
		for _, path := range []string{"/", "/games/k3v9q2m7x1"} {
			code, body := svHTTP(t, "GET", s.url(path), "", nil)
			if page := code == 200 && strings.Contains(string(body), "<!doctype html>"); page != tc.page {
				t.Errorf("serve %v: GET %s: %d %.80q, want the page: %v", tc.args, path, code, body, tc.page)
			}
		}
		if code, _ := svHTTP(t, "GET", s.url("/healthz"), "", nil); code != 200 {
			t.Errorf("serve %v: /healthz %d", tc.args, code)
		}
	}
}
