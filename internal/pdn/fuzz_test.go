package pdn

import (
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics or hangs; an error is a *SyntaxError at a
// place inside the input; and every game it reads, written out again,
// reads back to the same moves, comment and tags (Write adds only the
// standard tags a game lacks, at their "unknown" values) and, when its
// tags give a variant, the same variant.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"[Event \"x\"]\n1. e2-d3 b5-c4 2. d3xb5 *\n",
		"\uFEFF[A \"\\\"\\\\\"]\r\n1... d7-e6 {c\r\nd} (1... a4-b3 (1... c6-d5)) $1 !? 1-1\r\n",
		"% escape\n;x\n1. f3xd5xb7 f3xb7 2-0 1. e2-d3 0-2\n[Result \"*\"]\n*",
		"[GameType \"90,B,8,8,A0,1\"]\n[SetUp \"1\"]\n[FEN \"B:RPc4:BPb5:0\"]\n1... b5xd3 {black wins} 0-1",
		"[Setup \"no-damone\"]\n[WinCondition \"capture-all-damones\"]\n[NoProgressLimit \"4\"]\n1. e2-d3",
		"1.e2-d3 2...f3-e4 3. h5-g6?? $255 { } *",
		"[Event \"x\"]\n1. e2-d3\n[Event \"y\"]\n{a}\n",
		"[GameType \"20\"]\n[Result \"2-0\"]\n1. 32-28 {[%clock w0:10:00]} 19-23 2-0\n[Event \"b\"]\n1. e2-d3 *\n",
		"[Result \"1-0\"]\n1. e2-d3 0-1\n\n[Event \"a\"]\n[Event \"b\"]\n*\n\uFEFF[Round \"1\"]\n1. e2-d3 *\n",
		"[FEN \"W:W29,30:B1,2\"]\n1. c3-d4 d6:b4 1-0\n1. 21-17 *\n",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// Game by game, every game is a game or a *SyntaxError inside the
		// input, and the stream ends.
		rd := NewReader(strings.NewReader(src))
		for i := 0; ; i++ {
			if i > len(src)+1 {
				t.Fatalf("more than %d steps from %d bytes", i, len(src))
			}
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			var se *SyntaxError
			if err != nil && !errors.As(err, &se) {
				t.Fatalf("Next: %v is not a *SyntaxError", err)
			}
		}
		games, err := Parse(strings.NewReader(src))
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error %v is not a *SyntaxError", err)
			}
			if se.Line < 1 || se.Col < 1 || se.Line > strings.Count(src, "\n")+strings.Count(src, "\r")+1 {
				t.Fatalf("error at line %d col %d, outside the input", se.Line, se.Col)
			}
			return
		}
		for i := range games {
			g := &games[i]
			var b strings.Builder
			if err := Write(&b, g); err != nil {
				t.Fatalf("game %d (%+v) read but not written: %v", i+1, g, err)
			}
			back, err := ParseGame(b.String())
			if err != nil {
				t.Fatalf("game %d written as\n%s\ndoes not read back: %v", i+1, b.String(), err)
			}
			if !reflect.DeepEqual(back.Moves, g.Moves) && len(back.Moves)+len(g.Moves) > 0 {
				t.Fatalf("moves %q read back as %q", g.Moves, back.Moves)
			}
			if back.Comment != g.Comment {
				t.Fatalf("comment %q read back as %q", g.Comment, back.Comment)
			}
			wantResult := g.Result
			if tv, ok := g.Tag("Result"); ok && wantResult == "" {
				wantResult, _ = NormalizeResult(strings.TrimSpace(tv))
			}
			if wantResult == "" {
				wantResult = "*"
			}
			_, verr := g.Variant()
			skipped := verr != nil && len(g.Tags) > 0 // its movetext is not read, result token included
			if skipped && back.Result == "" {
				back.Result = wantResult
			}
			if back.Result != wantResult {
				t.Fatalf("result %q (tag or token) read back as %q", wantResult, back.Result)
			}
			for _, tg := range g.Tags {
				got, ok := back.Tag(tg.Name)
				if tg.Name == "Result" {
					ok = ok && got == wantResult
				} else {
					ok = ok && got == tg.Value
				}
				if !ok {
					t.Fatalf("tag %s %q read back as %q", tg.Name, tg.Value, got)
				}
			}
			for _, tg := range back.Tags {
				if _, ok := g.Tag(tg.Name); !ok {
					if !isSevenTag(tg.Name) || (tg.Name != "Result" && tg.Value != sevenDefault(tg.Name)) {
						t.Fatalf("tag %s %q appeared on the way", tg.Name, tg.Value)
					}
				}
			}
			v1, err1 := g.Variant()
			v2, err2 := back.Variant()
			if (err1 == nil) != (err2 == nil) || (err1 == nil && !sameVariant(v1, v2)) {
				t.Fatalf("variant %+v (%v) read back as %+v (%v)", v1, err1, v2, err2)
			}
		}
	})
}

func sevenDefault(name string) string {
	for _, t := range sevenTags {
		if t.Name == name {
			return t.Value
		}
	}
	return ""
}
