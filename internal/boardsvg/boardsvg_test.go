package boardsvg

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

// node is an SVG element as the tests read it.
type node struct {
	name  string
	attrs map[string]string
	text  string
	kids  []*node
}

func parseSVG(t *testing.T, data []byte) *node {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG does not parse as XML: %v\n%s", err, data)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			n := &node{name: tk.Name.Local, attrs: map[string]string{}}
			if tk.Name.Space != "http://www.w3.org/2000/svg" {
				t.Errorf("element %s in namespace %q, want the SVG namespace", tk.Name.Local, tk.Name.Space)
			}
			for _, a := range tk.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.kids = append(p.kids, n)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tk)
			}
		}
	}
	if root == nil || root.name != "svg" {
		t.Fatalf("no <svg> root:\n%s", data)
	}
	return root
}

// all returns the elements under n (n included) whose class list holds
// class (any element if class is "") and whose name is name.
func (n *node) all(name, class string) []*node {
	var out []*node
	var walk func(*node)
	walk = func(m *node) {
		if m.name == name && (class == "" || slices.Contains(strings.Fields(m.attrs["class"]), class)) {
			out = append(out, m)
		}
		for _, k := range m.kids {
			walk(k)
		}
	}
	walk(n)
	return out
}

func render(t *testing.T, text string, opts Options) (*node, []byte) {
	t.Helper()
	pos, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Render(&buf, pos, opts); err != nil {
		t.Fatal(err)
	}
	return parseSVG(t, buf.Bytes()), buf.Bytes()
}

// pieces returns "square side rank | aria-label" for every piece drawn.
func pieces(root *node) map[string]string {
	out := map[string]string{}
	for _, p := range root.all("g", "piece") {
		out[p.attrs["data-square"]+" "+p.attrs["data-side"]+" "+p.attrs["data-rank"]] = p.attrs["aria-label"]
	}
	return out
}

func texts(ns []*node) string {
	var b strings.Builder
	for _, n := range ns {
		b.WriteString(n.text)
	}
	return b.String()
}

const startText = "R:RMh1,Df1,Dh3,Pd1,Pe2,Pf3,Pg4,Ph5:BMa8,Da6,Dc8,Pa4,Pb5,Pc6,Pd7,Pe8:0"

func TestStartPosition(t *testing.T) {
	root, _ := render(t, startText, Options{})
	// RULES.md, Sides and setup, worked out by hand from the start's text.
	want := map[string]string{
		"h1 red damone": "Red Damone on h1", "f1 red dama": "Red Dama on f1", "h3 red dama": "Red Dama on h3",
		"d1 red pedine": "Red Pedine on d1", "e2 red pedine": "Red Pedine on e2", "f3 red pedine": "Red Pedine on f3",
		"g4 red pedine": "Red Pedine on g4", "h5 red pedine": "Red Pedine on h5",
		"a8 black damone": "Black Damone on a8", "a6 black dama": "Black Dama on a6", "c8 black dama": "Black Dama on c8",
		"a4 black pedine": "Black Pedine on a4", "b5 black pedine": "Black Pedine on b5", "c6 black pedine": "Black Pedine on c6",
		"d7 black pedine": "Black Pedine on d7", "e8 black pedine": "Black Pedine on e8",
	}
	if got := pieces(root); !maps.Equal(got, want) {
		t.Errorf("pieces:\n got %v\nwant %v", got, want)
	}
	if got := texts(root.all("title", "")); got != "Italian Damone position, Red to move" {
		t.Errorf("title %q", got)
	}
	if root.attrs["viewBox"] != "0 0 440 440" {
		t.Errorf("viewBox %q, want 0 0 440 440", root.attrs["viewBox"])
	}
	if root.attrs["role"] != "img" || root.attrs["width"] != "400" || root.attrs["height"] != "400" {
		t.Errorf("<svg> role %q, %sx%s: want img, 400x400 (the default size)", root.attrs["role"], root.attrs["width"], root.attrs["height"])
	}
	// The squares: 64, 32 dark; h1 and a8 dark, a1 and h8 light (RULES.md, Board).
	kind := map[string]string{}
	for _, sq := range root.all("rect", "square") {
		class := strings.Fields(sq.attrs["class"])
		kind[sq.attrs["data-square"]] = class[len(class)-1]
	}
	dark := 0
	for _, k := range kind {
		if k == "dark" {
			dark++
		}
	}
	if len(kind) != 64 || dark != 32 {
		t.Errorf("%d squares, %d dark: want 64, 32", len(kind), dark)
	}
	for sq, k := range map[string]string{"h1": "dark", "a8": "dark", "a1": "light", "h8": "light", "b1": "dark", "a2": "dark", "b2": "light", "e2": "dark"} {
		if kind[sq] != k {
			t.Errorf("square %s is %q, want %s", sq, kind[sq], k)
		}
	}
	// Red at the bottom: h1's square in the bottom-right corner, a8's in
	// the top-left (margin 20, squares 50).
	checkCorner(t, root, "h1", "370", "370")
	checkCorner(t, root, "a8", "20", "20")
	if got := texts(root.all("text", "file")); got != "abcdefgh" {
		t.Errorf("file labels %q, want abcdefgh left to right", got)
	}
	if got := texts(root.all("text", "rank")); got != "87654321" {
		t.Errorf("rank labels %q, want 87654321 top to bottom", got)
	}
	if n := len(root.all("g", "last-move")); n != 0 {
		t.Errorf("%d last-move groups without a last move", n)
	}
	tm := root.all("circle", "to-move")
	if len(tm) != 1 || tm[0].attrs["data-side"] != "red" || tm[0].attrs["aria-label"] != "Red to move" {
		t.Errorf("side-to-move marker %v, want one, Red", tm)
	}
}

func checkCorner(t *testing.T, root *node, square, x, y string) {
	t.Helper()
	for _, sq := range root.all("rect", "square") {
		if sq.attrs["data-square"] == square {
			if sq.attrs["x"] != x || sq.attrs["y"] != y {
				t.Errorf("square %s at (%s,%s), want (%s,%s)", square, sq.attrs["x"], sq.attrs["y"], x, y)
			}
			return
		}
	}
	t.Errorf("no square %s", square)
}

func TestFlipped(t *testing.T) {
	root, _ := render(t, "B:RMh1:BMa8,Pc6:3", Options{Flip: true, Size: 200})
	want := map[string]string{
		"h1 red damone": "Red Damone on h1", "a8 black damone": "Black Damone on a8", "c6 black pedine": "Black Pedine on c6",
	}
	if got := pieces(root); !maps.Equal(got, want) {
		t.Errorf("pieces:\n got %v\nwant %v", got, want)
	}
	if got := texts(root.all("title", "")); got != "Italian Damone position, Black to move, seen from Black" {
		t.Errorf("title %q", got)
	}
	if root.attrs["width"] != "200" || root.attrs["height"] != "200" {
		t.Errorf("size %sx%s, want 200x200", root.attrs["width"], root.attrs["height"])
	}
	// Seen from Black: h1 top-left, a8 bottom-right, a1 top-right.
	checkCorner(t, root, "h1", "20", "20")
	checkCorner(t, root, "a8", "370", "370")
	checkCorner(t, root, "a1", "370", "20")
	if got := texts(root.all("text", "file")); got != "hgfedcba" {
		t.Errorf("file labels %q, want hgfedcba left to right", got)
	}
	if got := texts(root.all("text", "rank")); got != "12345678" {
		t.Errorf("rank labels %q, want 12345678 top to bottom", got)
	}
	// Black to move, Black at the bottom: the marker is at the bottom.
	tm := root.all("circle", "to-move")
	if len(tm) != 1 || tm[0].attrs["data-side"] != "black" || tm[0].attrs["cy"] != "412" {
		t.Errorf("side-to-move marker %v, want Black's at the bottom (cy 412)", tm)
	}
}

func TestRanksAndLastMove(t *testing.T) {
	// Red's Pedine went e2xc4xe6, taking Black's pieces on d3 and d5.
	m, err := ParseMove("e2xc4xe6")
	if err != nil {
		t.Fatal(err)
	}
	root, _ := render(t, "B:RMh1,Dc2,Pe6:BMa8,Da6,Ph7:0", Options{LastMove: &m})
	want := map[string]string{
		"h1 red damone": "Red Damone on h1", "c2 red dama": "Red Dama on c2", "e6 red pedine": "Red Pedine on e6",
		"a8 black damone": "Black Damone on a8", "a6 black dama": "Black Dama on a6", "h7 black pedine": "Black Pedine on h7",
	}
	if got := pieces(root); !maps.Equal(got, want) {
		t.Errorf("pieces:\n got %v\nwant %v", got, want)
	}
	// The ranks read without colour: M for a Damone, D for a Dama, no
	// letter for a Pedine.
	for _, p := range root.all("g", "piece") {
		want := map[string]string{"damone": "M", "dama": "D", "pedine": ""}[p.attrs["data-rank"]]
		if got := strings.TrimSpace(texts(p.all("text", ""))); got != want {
			t.Errorf("%s: mark %q, want %q", p.attrs["aria-label"], got, want)
		}
	}
	hl := map[string][]string{}
	for _, group := range root.all("g", "last-move") {
		for _, k := range group.kids {
			class := strings.Fields(k.attrs["class"])
			hl[class[len(class)-1]] = append(hl[class[len(class)-1]], k.attrs["data-square"])
		}
	}
	wantHL := map[string][]string{"origin": {"e2"}, "landing": {"c4", "e6"}, "captured": {"d3", "d5"}}
	if fmt.Sprint(hl) != fmt.Sprint(wantHL) {
		t.Errorf("last move highlights %v, want %v", hl, wantHL)
	}
	if got := texts(root.all("title", "")); got != "Italian Damone position, Black to move" {
		t.Errorf("title %q", got)
	}
}

func TestParseMove(t *testing.T) {
	m, err := ParseMove("f3xd5xb7")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.From(), m.Landings(), m.Captured()); got != "f3 [d5 b7] [e4 c6]" {
		t.Errorf("f3xd5xb7: %s, want f3 [d5 b7] [e4 c6]", got)
	}
	m, err = ParseMove("e2-d3")
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(m.From(), m.Landings(), m.Captured()); got != "e2 [d3] []" {
		t.Errorf("e2-d3: %s, want e2 [d3] []", got)
	}
	for text, want := range map[string]string{
		"":         "empty",
		"e2-e3":    "square 2",
		"a1-b2":    "square 1",
		"e2-c4":    "not a one-square diagonal step",
		"e2xd3":    "not a two-square diagonal leap",
		"e2xc4xc6": "c4 to c6",
		"e2d3":     "no '-' or 'x'",
		"z9-d3":    "square 1",
	} {
		_, err := ParseMove(text)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseMove(%q) = %v, want an error with %q", text, err, want)
		}
	}
}

func TestSizeBounds(t *testing.T) {
	pos, _ := engine.ParsePosition(startText)
	for _, size := range []int{MinSize - 1, MaxSize + 1, -5} {
		if err := Render(io.Discard, pos, Options{Size: size}); err == nil || !strings.Contains(err.Error(), "out of range") {
			t.Errorf("size %d: %v, want out of range", size, err)
		}
	}
	for _, size := range []int{MinSize, MaxSize} {
		if err := Render(io.Discard, pos, Options{Size: size}); err != nil {
			t.Errorf("size %d: %v", size, err)
		}
	}
}

// TestSelfContained: no scripts, no event handlers, no link to anything
// (the only URL is the SVG namespace), no styles that could fetch.
func TestSelfContained(t *testing.T) {
	m, _ := ParseMove("e2xc4xe6")
	for _, opts := range []Options{{}, {Flip: true, LastMove: &m}} {
		root, data := render(t, "B:RMh1,Dc2,Pe6:BMa8,Da6,Ph7:0", opts)
		for _, name := range []string{"script", "foreignObject", "image", "use", "a", "style", "link"} {
			if n := len(root.all(name, "")); n != 0 {
				t.Errorf("%d <%s> elements", n, name)
			}
		}
		var walk func(*node)
		walk = func(n *node) {
			for k, v := range n.attrs {
				if strings.HasPrefix(k, "on") || k == "href" || strings.Contains(v, "url(") {
					t.Errorf("<%s %s=%q>", n.name, k, v)
				}
			}
			for _, k := range n.kids {
				walk(k)
			}
		}
		walk(root)
		if n := strings.Count(string(data), "://"); n != 1 || !strings.Contains(string(data), `xmlns="http://www.w3.org/2000/svg"`) {
			t.Errorf("%d URLs, want only the SVG namespace", n)
		}
	}
}
