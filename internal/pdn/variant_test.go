package pdn

import (
	"errors"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/engine"
)

func mustPosition(t *testing.T, text string) engine.Position {
	t.Helper()
	p, err := engine.ParsePosition(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// sameVariant compares every setting, the custom start by its text.
func sameVariant(a, b engine.Variant) bool {
	return a.Setup == b.Setup && a.Start.String() == b.Start.String() && a.WinCondition == b.WinCondition &&
		a.FirstPlayer == b.FirstPlayer && a.RepetitionDraw == b.RepetitionDraw && a.NoProgressLimit == b.NoProgressLimit
}

func tags(kv ...string) []Tag {
	var out []Tag
	for i := 0; i < len(kv); i += 2 {
		out = append(out, Tag{kv[i], kv[i+1]})
	}
	return out
}

// The expected settings are RULES.md's defaults (standard setup, capture
// all pieces, Red first, repetition on, 80 plies) changed by each tag as
// docs/notation.md (PDN) says.
func TestVariantFromTags(t *testing.T) {
	def := engine.DefaultVariant()
	with := func(change func(v *engine.Variant)) engine.Variant {
		v := def
		change(&v)
		return v
	}
	custom := func(text string, first engine.Side) engine.Variant {
		return with(func(v *engine.Variant) {
			v.Setup, v.Start, v.FirstPlayer = engine.SetupCustom, mustPosition(t, text), first
		})
	}
	cases := []struct {
		name string
		tags []Tag
		want engine.Variant
	}{
		{"no tags", nil, def},
		{"other tags only", tags("Event", "x", "White", "Ann"), def},
		{"GameType number", tags("GameType", "90"), def},
		{"GameType in full", tags("GameType", "90,W,8,8,A0,1"), def},
		{"GameType without the invert flag", tags("GameType", " 90, W, 8, 8, A0 "), def},
		{"GameType B with FirstPlayer black", tags("GameType", "90,B,8,8,A0,1", "FirstPlayer", "black"),
			with(func(v *engine.Variant) { v.FirstPlayer = engine.Black })},
		{"no-Damone setup", tags("Setup", "no-damone"), with(func(v *engine.Variant) { v.Setup = engine.SetupNoDamone })},
		{"standard setup, SetUp 0", tags("SetUp", "0", "Setup", "Standard"), def},
		{"FirstPlayer in any case, spaces around", tags("FirstPlayer", " Black "),
			with(func(v *engine.Variant) { v.FirstPlayer = engine.Black })},
		{"custom start", tags("SetUp", "1", "FEN", "R:RPc4:BPb5,Pb7:0"), custom("R:RPc4:BPb5,Pb7:0", engine.Red)},
		{"custom start, Black to move, FEN without SetUp", tags("FEN", "B:RPc4:BPb5:0"), custom("B:RPc4:BPb5:0", engine.Black)},
		{"custom start with its first player and GameType",
			tags("GameType", "90,B,8,8,A0,1", "SetUp", "1", "FEN", "B:RPc4:BPb5:0", "FirstPlayer", "black"),
			custom("B:RPc4:BPb5:0", engine.Black)},
		{"capture all Damones", tags("WinCondition", "capture-all-damones"),
			with(func(v *engine.Variant) { v.WinCondition = engine.CaptureAllDamones })},
		{"win condition in the API's spelling", tags("WinCondition", "WIN_CONDITION_CAPTURE_ALL_DAMONES"),
			with(func(v *engine.Variant) { v.WinCondition = engine.CaptureAllDamones })},
		{"capture all pieces", tags("WinCondition", "CAPTURE_ALL_PIECES"), def},
		{"repetition off", tags("RepetitionDraw", "off"), with(func(v *engine.Variant) { v.RepetitionDraw = false })},
		{"repetition false", tags("RepetitionDraw", "False"), with(func(v *engine.Variant) { v.RepetitionDraw = false })},
		{"repetition on", tags("RepetitionDraw", "on"), def},
		{"no-progress limit", tags("NoProgressLimit", "40"), with(func(v *engine.Variant) { v.NoProgressLimit = 40 })},
		{"no-progress off", tags("NoProgressLimit", "0"), with(func(v *engine.Variant) { v.NoProgressLimit = 0 })},
		{"no-progress limit of 10 digits", tags("NoProgressLimit", "1234567890"), with(func(v *engine.Variant) { v.NoProgressLimit = 1234567890 })},
		{"no-progress limit int32's maximum", tags("NoProgressLimit", "2147483647"), with(func(v *engine.Variant) { v.NoProgressLimit = 2147483647 })},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &Game{Tags: c.tags}
			got, err := g.Variant()
			if err != nil {
				t.Fatal(err)
			}
			if !sameVariant(got, c.want) {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// Every refusal names the tag and its value.
func TestVariantErrors(t *testing.T) {
	cases := []struct {
		name     string
		tags     []Tag
		tag, val string
		want     string
	}{
		{"Italian draughts", tags("GameType", "22"), "GameType", "22", "Italian draughts, another game; Italian Damone is GameType 90"},
		{"international draughts in full", tags("GameType", "20,W,10,10,N2,0"), "GameType", "20,W,10,10,N2,0", "international draughts"},
		{"an unknown number", tags("GameType", "77"), "GameType", "77", "not Italian Damone"},
		{"not a number", tags("GameType", "damone"), "GameType", "damone", "want a number"},
		{"our number, another board", tags("GameType", "90,W,10,10,N2,0"), "GameType", "90,W,10,10,N2,0", "8x8"},
		{"start colour against the first player", tags("GameType", "90,B,8,8,A0,1"), "GameType", "90,B,8,8,A0,1",
			"start colour B says black moves first, but red does"},
		{"start colour against the FEN", tags("GameType", "90,W,8,8,A0,1", "FEN", "B:RPc4:BPb5:0"), "GameType", "90,W,8,8,A0,1",
			"start colour W says red moves first, but black does"},
		{"GameType cut short", tags("GameType", "90,W"), "GameType", "90,W", "want 90 alone"},
		{"GameType with a lower-case colour", tags("GameType", "90,w,8,8,A0,1"), "GameType", "90,w,8,8,A0,1", "want 90 alone"},
		{"SetUp 1 without FEN", tags("SetUp", "1"), "SetUp", "1", "needs a FEN tag"},
		{"SetUp 0 with FEN", tags("SetUp", "0", "FEN", "R:RMh1:BMa8:0"), "FEN", "R:RMh1:BMa8:0", `SetUp "0"`},
		{"SetUp 2", tags("SetUp", "2"), "SetUp", "2", `want "1"`},
		{"numeric FEN", tags("SetUp", "1", "FEN", "W:W21,22:B1,2"), "FEN", "W:W21,22:B1,2", "field 1 (side to move)"},
		{"light square in the FEN", tags("FEN", "R:RMd4:BMa8"), "FEN", "R:RMd4:BMa8", "light square"},
		{"setup and FEN", tags("SetUp", "1", "FEN", "R:RMh1:BMa8:0", "Setup", "standard"), "Setup", "standard", "keep one"},
		{"unknown setup", tags("Setup", "1"), "Setup", "1", "want standard or no-damone"},
		{"Setup custom", tags("Setup", "custom"), "Setup", "custom", "want standard or no-damone"},
		{"first player against the FEN", tags("FEN", "B:RPc4:BPb5:0", "FirstPlayer", "red"), "FirstPlayer", "red",
			"the FEN's side to move, black, moves first"},
		{"unknown first player", tags("FirstPlayer", "green"), "FirstPlayer", "green", "want red or black"},
		{"unknown win condition", tags("WinCondition", "kings"), "WinCondition", "kings", "capture-all-pieces or capture-all-damones"},
		{"Damones without Damones", tags("Setup", "no-damone", "WinCondition", "capture-all-damones"), "WinCondition",
			"capture-all-damones", "needs a Damone for each side"},
		{"repetition maybe", tags("RepetitionDraw", "maybe"), "RepetitionDraw", "maybe", "want on or off"},
		{"negative limit", tags("NoProgressLimit", "-1"), "NoProgressLimit", "-1", "whole number"},
		{"signed limit", tags("NoProgressLimit", "+5"), "NoProgressLimit", "+5", "whole number"},
		{"limit not a number", tags("NoProgressLimit", "forty"), "NoProgressLimit", "forty", "whole number"},
		{"limit beyond int32", tags("NoProgressLimit", "2147483648"), "NoProgressLimit", "2147483648", "0..2147483647"},
		{"limit of 11 digits", tags("NoProgressLimit", "10000000000"), "NoProgressLimit", "10000000000", "0..2147483647"},
		{"empty limit", tags("NoProgressLimit", ""), "NoProgressLimit", "", "whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := &Game{Tags: c.tags}
			_, err := g.Variant()
			var te *TagError
			if !errors.As(err, &te) {
				t.Fatalf("err = %v, want a *TagError", err)
			}
			if te.Tag != c.tag || te.Value != c.val || !strings.Contains(te.Msg, c.want) {
				t.Errorf("got tag %s value %q: %s; want tag %s value %q and %q", te.Tag, te.Value, te.Msg, c.tag, c.val, c.want)
			}
			if !strings.HasPrefix(err.Error(), "tag "+c.tag+" ") {
				t.Errorf("Error() = %q, want it to name the tag first", err.Error())
			}
		})
	}
}
