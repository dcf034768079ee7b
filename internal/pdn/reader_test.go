package pdn

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// step is what one Next gives: a game starting on a line, or a syntax
// error at a line and column.
type step struct {
	game    int // line the game starts on, 0 for an error
	errLine int
	errCol  int
}

func steps(t *testing.T, rd *Reader) []step {
	t.Helper()
	var got []step
	for i := 0; i < 100; i++ {
		g, err := rd.Next()
		var se *SyntaxError
		switch {
		case err == nil:
			got = append(got, step{game: g.Line})
		case errors.As(err, &se):
			got = append(got, step{errLine: se.Line, errCol: se.Col})
		case err == io.EOF:
			return got
		default:
			t.Fatalf("after %v: %v", got, err)
		}
	}
	t.Fatalf("no end after %v", got)
	return nil
}

// The places are counted by hand: a broken game is one error, and the
// next game is read from its tag section on.
func TestReaderResynchronises(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []step
	}{
		{"bad move, then a game", "[Event \"a\"]\n1. e2-d3 zz b5-c4 *\n\n[Event \"b\"]\n1. e2-d3 *\n",
			[]step{{errLine: 2, errCol: 10}, {game: 4}}},
		{"tag twice: the rest of its tags and movetext go with it", "[Event \"a\"]\n[Event \"b\"]\n[Round \"1\"]\n1. e2-d3 *\n[Event \"c\"]\n*\n",
			[]step{{errLine: 2, errCol: 1}, {game: 5}}},
		{"result against its tag", "[Result \"1-0\"]\n1. e2-d3 0-1\n[Result \"0-1\"]\n1. e2-d3 0-1\n",
			[]step{{errLine: 2, errCol: 10}, {game: 3}}},
		{"byte order marks where files were joined", "\uFEFF[Event \"a\"]\n*\n\uFEFF[Event \"b\"]\n \uFEFF1. e2-d3 *\n",
			[]step{{game: 1}, {game: 3}}},
		{"another game's movetext is skipped, [ in a comment included", "[GameType \"20\"]\n1. 32-28 {[%clock w0:10:00]} 19-23 2-0\n[Event \"b\"]\n1. e2-d3 *\n",
			[]step{{game: 1}, {game: 3}}},
		{"an error in the last game", "1. e2-d3 *\n[Event \"x\"]\n1. e2-d3 {open\n",
			[]step{{game: 1}, {errLine: 3, errCol: 10}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := steps(t, NewReader(strings.NewReader(c.src)))
			if len(got) != len(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("step %d: got %+v, want %+v", i+1, got[i], c.want[i])
				}
			}
		})
	}
}

func TestReaderOtherGameTypeVerdict(t *testing.T) {
	rd := NewReader(strings.NewReader("[GameType \"25\"]\n[Result \"2-0\"]\n\n1. c3-d4 f6-e5 2. d4:f6 g7:e5 2-0\n"))
	g, err := rd.Next()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Variant(); err == nil || err.Error() != `tag GameType "25": GameType 25 is Russian draughts, another game; Italian Damone is GameType 90` {
		t.Errorf("Variant() = %v", err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("then %v, want io.EOF", err)
	}
}

// endless repeats a text for ever.
type endless struct {
	text string
	i    int
}

func (e *endless) Read(p []byte) (int, error) {
	for n := range p {
		p[n] = e.text[e.i%len(e.text)]
		e.i++
	}
	return len(p), nil
}

func TestReaderGameSizeLimit(t *testing.T) {
	// NUL bytes for ever (/dev/zero) and one endless game: each ends with
	// a *LimitError naming where the game starts, after at most the limit
	// and a buffer have been read, and stays ended.
	for _, c := range []struct {
		name  string
		src   io.Reader
		games int
		line  int
	}{
		{"zeros", &endless{text: "\x00"}, 0, 1},
		{"one endless game", io.MultiReader(strings.NewReader("1. e2-d3 *\n"), &endless{text: "e2-d3 d7-e6\n"}), 1, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			rd := NewReader(c.src)
			rd.MaxGameBytes = 10000
			for i := 0; i < c.games; i++ {
				if _, err := rd.Next(); err != nil {
					t.Fatalf("game %d: %v", i+1, err)
				}
			}
			_, err := rd.Next()
			var le *LimitError
			if !errors.As(err, &le) || le.Line != c.line || le.Max != 10000 {
				t.Fatalf("err = %v, want a *LimitError at line %d, max 10000", err, c.line)
			}
			if _, again := rd.Next(); again != err {
				t.Errorf("next call: %v, want the same error", again)
			}
		})
	}
	// A game exactly at the limit is read.
	rd := NewReader(strings.NewReader("1. e2-d3 *"))
	rd.MaxGameBytes = int64(len("1. e2-d3 *"))
	if _, err := rd.Next(); err != nil {
		t.Errorf("a game of the limit's size: %v", err)
	}
}
