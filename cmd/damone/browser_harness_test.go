package main

// A harness for the web board's browser tests: a headless Chromium driven
// with chromedp, tabs that record what the page requests and logs, and the
// checks of issue 15 (same origin, no page error, axe-core's WCAG 2 A/AA
// rules, contrast of the SVG piece glyphs). scripts/test-deps installs
// Chromium and axe-core.

import (
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserTimeout bounds a whole browser, and so every tab and action in it:
// a hung browser fails its test instead of hanging the run.
const browserTimeout = 60 * time.Second

// newBrowser starts a headless Chromium (chromium or chromium-browser on
// PATH) that lives until the test ends or browserTimeout passes, and returns
// its context for newTab. Without Chromium it fails, or skips under -short.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	exe := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			exe = p
			break
		}
	}
	if exe == "" {
		if testing.Short() {
			t.Skip("no chromium on PATH (-short)")
		}
		t.Fatal("no chromium or chromium-browser on PATH: run scripts/test-deps")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], // includes headless and no-first-run
		chromedp.ExecPath(exe), chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.WindowSize(1200, 900), chromedp.UserDataDir(t.TempDir()))
	if os.Geteuid() == 0 { // Chromium refuses to run as root with its sandbox (CI)
		opts = append(opts, chromedp.NoSandbox)
	}
	ctx, cancelTimeout := context.WithTimeout(context.Background(), browserTimeout)
	ctx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	ctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(func() { cancelBrowser(); cancelAlloc(); cancelTimeout() }) // waits for the process to exit
	if err := chromedp.Do(ctx); err != nil {                              // start it now, so tabs share it
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// tabRecorder keeps what a tab did; the events arrive on chromedp's goroutines.
type tabRecorder struct {
	mu       sync.Mutex
	requests []string // every URL requested, in order
	errors   []string // exceptions and error-level console and log entries
	warnings []string
}

type recorderKey struct{}

func (r *tabRecorder) listen(ev any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch ev := ev.(type) {
	case *network.EventRequestWillBeSent:
		r.requests = append(r.requests, ev.Request.URL)
	case *network.EventWebSocketCreated: // a WebSocket has no requestWillBeSent
		r.requests = append(r.requests, ev.URL)
	case *runtime.EventExceptionThrown:
		d := ev.ExceptionDetails
		msg := d.Text
		if d.Exception != nil && d.Exception.Description != "" {
			msg += " " + d.Exception.Description
		}
		r.errors = append(r.errors, fmt.Sprintf("exception at %s:%d: %s", d.URL, d.LineNumber+1, msg))
	case *runtime.EventConsoleAPICalled:
		var args []string
		for _, a := range ev.Args { // a string, else an object's description, else a number's JSON
			s := a.Description
			if json.Unmarshal(a.Value, &s) != nil && s == "" {
				s = string(a.Value)
			}
			args = append(args, s)
		}
		msg := "console." + string(ev.Type) + ": " + strings.Join(args, " ")
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeAssert:
			r.errors = append(r.errors, msg)
		case runtime.ConsoleAPICalledTypeWarning:
			r.warnings = append(r.warnings, msg)
		}
	case *log.EventEntryAdded: // CSP violations and failed loads come this way
		e := ev.Entry
		msg := fmt.Sprintf("log %s (%s): %s %s", e.Level, e.Source, e.Text, e.URL)
		switch e.Level {
		case log.EntryLevelError:
			r.errors = append(r.errors, msg)
		case log.EntryLevelWarning:
			r.warnings = append(r.warnings, msg)
		}
	}
}

// newTab opens a tab in the browser of newBrowser, recording from before
// its first navigation; it closes when the test ends.
func newTab(t *testing.T, browserCtx context.Context) context.Context {
	t.Helper()
	rec := &tabRecorder{}
	ctx, cancel := chromedp.NewContext(browserCtx, chromedp.WithListener(rec.listen))
	t.Cleanup(cancel)
	// The window's 1200x900 less the browser's own bars would leave the page
	// 1200x757: emulate the whole size so that screenshots are 1200 wide and
	// at least 900 high.
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(1200, 900)); err != nil {
		t.Fatalf("opening a tab: %v", err)
	}
	return context.WithValue(ctx, recorderKey{}, rec)
}

// tabLog returns copies of what the tab of newTab recorded so far.
func tabLog(ctx context.Context) (requests, errs, warnings []string) {
	rec := ctx.Value(recorderKey{}).(*tabRecorder) // panics for a context not from newTab
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.requests), slices.Clone(rec.errors), slices.Clone(rec.warnings)
}

// tabRequests returns the URL of every request the tab made so far, in order.
func tabRequests(ctx context.Context) []string {
	requests, _, _ := tabLog(ctx)
	return requests
}

// pageErrors returns the tab's uncaught exceptions and error-level console
// and log entries so far, and its warnings.
func pageErrors(ctx context.Context) (errs, warnings []string) {
	_, errs, warnings = tabLog(ctx)
	return errs, warnings
}

// originOf gives a URL's scheme://host[:port], with ws(s) counted as
// http(s) as CSP's 'self' does, or "" without a host. It compares URLs as
// Chromium reports them: lower case, no default port.
func originOf(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return ""
	}
	if rest, ok := strings.CutPrefix(u.Scheme, "ws"); ok {
		u.Scheme = "http" + rest
	}
	return u.Scheme + "://" + u.Host
}

// offOriginRequests splits the tab's requests into those from another
// origin than origin (scheme://host[:port]) and the data: and blob: URLs,
// which load nothing from elsewhere.
func offOriginRequests(ctx context.Context, origin string) (foreign, inline []string) {
	want := originOf(origin)
	for _, u := range tabRequests(ctx) {
		switch {
		case strings.HasPrefix(u, "data:") || strings.HasPrefix(u, "blob:"):
			inline = append(inline, u)
		case originOf(u) != want || want == "":
			foreign = append(foreign, u)
		}
	}
	return foreign, inline
}

// assertSameOrigin fails listing every request of the tab outside origin.
func assertSameOrigin(t *testing.T, ctx context.Context, origin string) {
	t.Helper()
	foreign, inline := offOriginRequests(ctx, origin)
	for _, u := range inline {
		t.Logf("same-origin check: not a network load: %.80s", u)
	}
	if len(foreign) > 0 {
		t.Errorf("requests outside %s:\n  %s", origin, strings.Join(foreign, "\n  "))
	}
}

// assertNoPageErrors fails listing the tab's exceptions and error-level
// console and log entries (CSP violations among them); warnings are logged.
func assertNoPageErrors(t *testing.T, ctx context.Context) {
	t.Helper()
	errs, warnings := pageErrors(ctx)
	for _, w := range warnings {
		t.Logf("page warning: %s", w)
	}
	if len(errs) > 0 {
		t.Errorf("page errors:\n  %s", strings.Join(errs, "\n  "))
	}
}

// screenshot saves a full-page PNG as name.png in t.ArtifactDir() (kept by
// go test -artifacts -outputdir DIR), and returns it.
func screenshot(t *testing.T, ctx context.Context, name string) []byte {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	p := filepath.Join(t.ArtifactDir(), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	return png
}

// axeViolation is one failed axe-core rule: its id, impact (minor to
// critical), one-line help, how many nodes fail and the first selectors.
type axeViolation struct {
	ID      string   `json:"id"`
	Impact  string   `json:"impact"`
	Help    string   `json:"help"`
	Nodes   int      `json:"nodes"`
	Targets []string `json:"targets"`
}

// axeRun runs axe-core's WCAG 2 A and AA rules on the tab's document, and
// returns the violations and the number of rules passed. It injects
// node_modules/axe-core/axe.min.js with Runtime.evaluate, which the page's
// CSP (script-src 'self') does not govern, so the page keeps its CSP.
func axeRun(ctx context.Context) ([]axeViolation, int, error) {
	loaded, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`typeof axe === "object"`))
	if err != nil {
		return nil, 0, err
	}
	if !loaded {
		src, err := os.ReadFile(filepath.Join("..", "..", "node_modules", "axe-core", "axe.min.js"))
		if err != nil {
			return nil, 0, fmt.Errorf("%w (run scripts/test-deps)", err)
		}
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[chromedp.Void](string(src)+"\n;undefined")); err != nil {
			return nil, 0, fmt.Errorf("injecting axe-core: %w", err)
		}
	}
	res, err := chromedp.Run(ctx, chromedp.Evaluate[struct {
		Passes     int            `json:"passes"`
		Violations []axeViolation `json:"violations"`
	}](`axe.run(document, {runOnly: {type: "tag", values: ["wcag2a", "wcag2aa"]}}).then(r => ({
		passes: r.passes.length,
		violations: r.violations.map(v => ({id: v.id, impact: v.impact || "", help: v.help, nodes: v.nodes.length,
			targets: v.nodes.slice(0, 3).map(n => n.target.join(" "))})),
	}))`, chromedp.EvalAwaitPromise))
	return res.Violations, res.Passes, err
}

// checkAccessibility fails listing each axe-core WCAG 2 A/AA violation of
// the tab's page, and returns the number of rules that passed.
func checkAccessibility(t *testing.T, ctx context.Context) int {
	t.Helper()
	violations, passes, err := axeRun(ctx)
	if err != nil {
		t.Fatalf("axe-core: %v", err)
	}
	for _, v := range violations {
		t.Errorf("accessibility: %s (%s): %s; %d node(s): %s", v.ID, v.Impact, v.Help, v.Nodes, strings.Join(v.Targets, ", "))
	}
	return passes
}

// rgba is an sRGB colour: channels 0-255, alpha 0-1.
type rgba struct{ r, g, b, a float64 }

// parseColor reads a computed CSS colour: rgb(r, g, b), rgba(r, g, b, a),
// #rgb or #rrggbb.
func parseColor(s string) (rgba, error) {
	s = strings.TrimSpace(s)
	if h, ok := strings.CutPrefix(s, "#"); ok && (len(h) == 3 || len(h) == 6) {
		if len(h) == 3 {
			h = string([]byte{h[0], h[0], h[1], h[1], h[2], h[2]})
		}
		v, err := strconv.ParseUint(h, 16, 32)
		if err == nil {
			return rgba{float64(v >> 16), float64(v >> 8 & 0xff), float64(v & 0xff), 1}, nil
		}
	}
	inner, ok := strings.CutSuffix(s, ")")
	if i := strings.Index(inner, "("); ok && i > 0 && (inner[:i] == "rgb" || inner[:i] == "rgba") {
		parts := strings.Split(inner[i+1:], ",")
		c := []float64{0, 0, 0, 1}
		for j, p := range parts {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || j > 3 {
				return rgba{}, fmt.Errorf("colour %q: not rgb(r, g, b[, a])", s)
			}
			c[j] = v
		}
		if len(parts) >= 3 {
			return rgba{c[0], c[1], c[2], c[3]}, nil
		}
	}
	return rgba{}, fmt.Errorf("colour %q: want rgb(), rgba() or #hex", s)
}

// relLuminance is WCAG 2's relative luminance: 0 for black to 1 for white.
func relLuminance(c rgba) float64 {
	lin := func(v float64) float64 {
		v /= 255
		if v <= 0.04045 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(c.r) + 0.7152*lin(c.g) + 0.0722*lin(c.b)
}

// contrastRatio is WCAG 2's contrast ratio of two opaque colours: 1 to 21.
func contrastRatio(a, b rgba) float64 {
	la, lb := relLuminance(a), relLuminance(b)
	return (max(la, lb) + 0.05) / (min(la, lb) + 0.05)
}

// glyphContrast is the contrast of one piece glyph on its disc; label is the
// piece's aria-label and the glyph's text.
type glyphContrast struct {
	label string
	ratio float64
}

// glyphContrasts measures every SVG <text> matching selector against its
// disc: the nearest previous sibling <circle> whose computed fill is not
// none (a ring drawn between, like a king's, is skipped). A translucent
// glyph is blended over the disc; a translucent disc is an error.
func glyphContrasts(ctx context.Context, selector string) ([]glyphContrast, error) {
	sel, _ := json.Marshal(selector)
	found, err := chromedp.Run(ctx, chromedp.Evaluate[[]struct{ Label, Glyph, Disc string }](`Array.from(document.querySelectorAll(`+string(sel)+`), el => {
		let d = el.previousElementSibling;
		while (d && !(d.localName === "circle" && getComputedStyle(d).fill !== "none")) d = d.previousElementSibling;
		const g = el.closest("[aria-label]");
		return {Label: (g ? g.getAttribute("aria-label") + ": " : "") + el.textContent,
			Glyph: getComputedStyle(el).fill, Disc: d ? getComputedStyle(d).fill : ""};
	})`))
	if err != nil {
		return nil, err
	}
	var out []glyphContrast
	for _, f := range found {
		if f.Disc == "" {
			return nil, fmt.Errorf("%s: no filled <circle> before the glyph", f.Label)
		}
		fg, err := parseColor(f.Glyph)
		if err != nil {
			return nil, fmt.Errorf("%s: glyph: %w", f.Label, err)
		}
		bg, err := parseColor(f.Disc)
		if err != nil || bg.a != 1 {
			return nil, fmt.Errorf("%s: disc fill %q: not an opaque colour (%v)", f.Label, f.Disc, err)
		}
		a := fg.a
		fg = rgba{a*fg.r + (1-a)*bg.r, a*fg.g + (1-a)*bg.g, a*fg.b + (1-a)*bg.b, 1}
		out = append(out, glyphContrast{f.Label, contrastRatio(fg, bg)})
	}
	return out, nil
}

// svgContrast fails for each glyph matching selector with a contrast under
// WCAG AA's 4.5:1 on its disc (see glyphContrasts), or if none matches, and
// returns the lowest ratio.
func svgContrast(t *testing.T, ctx context.Context, selector string) float64 {
	t.Helper()
	all, err := glyphContrasts(ctx, selector)
	if err != nil {
		t.Fatalf("glyph contrast: %v", err)
	}
	if len(all) == 0 {
		t.Fatalf("glyph contrast: %q matches no element", selector)
	}
	lowest := math.Inf(1)
	for _, g := range all {
		if g.ratio < 4.5 {
			t.Errorf("glyph contrast %.2f:1 under 4.5:1: %s", g.ratio, g.label)
		}
		lowest = min(lowest, g.ratio)
	}
	return lowest
}

// TestContrastRatio checks the WCAG 2 formula on ratios worked out by hand:
// black on white (1.05/0.05), #777 and #767676 on white (luminance 0.18447
// and 0.18116), pure red (luminance 0.2126) on white and on black.
func TestContrastRatio(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"#000", "rgb(255, 255, 255)", 21}, {"#777777", "#fff", 4.4781}, {"rgb(118, 118, 118)", "#ffffff", 4.5422},
		{"#ff0000", "#ffffff", 3.9985}, {"rgba(255, 0, 0, 1)", "#000", 5.252},
	} {
		a, err1 := parseColor(c.a)
		b, err2 := parseColor(c.b)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := contrastRatio(a, b); math.Abs(got-c.want) > 0.0001 {
			t.Errorf("contrast %s on %s = %.5f, want %.4f", c.a, c.b, got, c.want)
		}
	}
	for _, bad := range []string{"", "red", "#12", "rgb(1, 2)", "hsl(0, 0%, 0%)", "rgb(1, x, 3)"} {
		if _, err := parseColor(bad); err == nil {
			t.Errorf("parseColor(%q): no error", bad)
		}
	}
}

// TestOriginOf: origins as CSP's 'self' compares them.
func TestOriginOf(t *testing.T) {
	for in, want := range map[string]string{"http://127.0.0.1:8080/games/x?y#z": "http://127.0.0.1:8080",
		"ws://h:1/w": "http://h:1", "wss://h/w": "https://h", "https://h/": "https://h", "/relative": ""} {
		if got := originOf(in); got != want {
			t.Errorf("originOf(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBrowserHarness proves each check of the harness passes on a good page
// and catches a bad one, on pages under the web board's CSP.
func TestBrowserHarness(t *testing.T) {
	page := func(body string) string {
		return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Harness</title>` +
			`<link rel="stylesheet" href="/s.css"></head><body><main><h1>Harness</h1>` + body + `</main></body></html>`
	}
	files := map[string]string{
		"/ok":         page(`<p id="out">script not run</p><script src="/ok.js"></script>`),
		"/ok.js":      `document.getElementById("out").textContent = "script ran";`,
		"/s.css":      `body, h1 { margin: 0 } body { color: #222; background: #fff } main { height: 1500px }`, // taller than the window
		"/foreign":    page(`<img src="http://127.0.0.2:1/x.png" alt="remote"><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" alt="inline">`),
		"/throws":     page(`<script src="/throws.js"></script>`),
		"/throws.js":  `console.error("boom"); throw new Error("kaboom");`,
		"/unlabelled": page(`<input type="text">`),
		"/pieces": page(`<svg viewBox="0 0 100 50" width="200" height="100"><g class="piece good" role="img" aria-label="man a1">` +
			`<circle cx="25" cy="25" r="20" fill="#fff"/><text x="25" y="32" fill="#000">P</text></g>` +
			`<g class="piece" role="img" aria-label="king b2"><circle cx="75" cy="25" r="20" fill="#fff"/>` +
			`<circle cx="75" cy="25" r="15" fill="none" stroke="#777"/><text x="75" y="32" fill="#777">M</text></g></svg>`),
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := files[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'")
		ctype := map[string]string{".js": "text/javascript", ".css": "text/css", "": "text/html"}[path.Ext(r.URL.Path)]
		w.Header().Set("Content-Type", ctype+"; charset=utf-8")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	browser := newBrowser(t)
	open := func(p string) context.Context {
		t.Helper()
		tab := newTab(t, browser)
		if err := chromedp.Do(tab, chromedp.Navigate(srv.URL+p)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		return tab
	}

	ok := open("/ok")
	if got, err := chromedp.Run(ok, chromedp.Evaluate[string](`document.getElementById("out").textContent`)); err != nil || got != "script ran" {
		t.Errorf("/ok: the same-origin script under the CSP: %q, %v", got, err)
	}
	screenshot(t, ok, "harness-ok")
	if f, err := os.Open(filepath.Join(t.ArtifactDir(), "harness-ok.png")); err != nil {
		t.Error(err)
	} else if cfg, err := png.DecodeConfig(f); err != nil || cfg.Width != 1200 || cfg.Height != 1500 {
		t.Errorf("screenshot: %dx%d, %v; want the whole 1500 px high page, 1200 px wide", cfg.Width, cfg.Height, err)
	}
	for _, want := range []string{"/ok", "/s.css", "/ok.js"} {
		if !slices.Contains(tabRequests(ok), srv.URL+want) {
			t.Errorf("tabRequests: no %s in %q", want, tabRequests(ok))
		}
	}
	assertSameOrigin(t, ok, srv.URL)
	assertNoPageErrors(t, ok)
	t.Logf("axe-core on /ok: %d rules passed", checkAccessibility(t, ok))

	foreign := open("/foreign")
	if off, inline := offOriginRequests(foreign, srv.URL); !slices.Equal(off, []string{"http://127.0.0.2:1/x.png"}) || len(inline) != 1 {
		t.Errorf("/foreign: requests outside %s: %q, data: URLs: %q; want the image on 127.0.0.2, and one data: URL", srv.URL, off, inline)
	}
	if errs, _ := pageErrors(foreign); !strings.Contains(strings.Join(errs, "\n"), "Content Security Policy") {
		t.Errorf("/foreign: no CSP violation among the page errors: %q", errs)
	}
	if errs, _ := pageErrors(open("/throws")); len(errs) != 2 || !strings.Contains(errs[0], "boom") || !strings.Contains(errs[1], "kaboom") {
		t.Errorf("/throws: page errors %q, want console.error boom, then the exception kaboom", errs)
	}

	if v, _, err := axeRun(open("/unlabelled")); err != nil || len(v) == 0 || !slices.ContainsFunc(v, func(v axeViolation) bool { return v.ID == "label" }) {
		t.Errorf("/unlabelled: axe-core violations %+v, %v; want the rule label", v, err)
	}

	pieces := open("/pieces")
	if got := svgContrast(t, pieces, "g.good text"); got != 21 {
		t.Errorf("black glyph on white disc: %v:1, want 21:1", got)
	}
	if all, err := glyphContrasts(pieces, "g.piece text"); err != nil || len(all) != 2 || math.Abs(all[1].ratio-4.4781) > 0.0001 || all[1].label != "king b2: M" {
		t.Errorf("glyph contrasts %+v, %v; want the king's #777 on white, 4.4781:1", all, err)
	}
}
