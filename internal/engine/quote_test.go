package engine

import (
	"strings"
	"testing"
)

// Errors repeat at most 40 bytes of what the caller sent.
func TestErrorsQuoteLittleOfTheInput(t *testing.T) {
	huge := strings.Repeat("e2-d3", 2000)
	p, _ := StartPosition(SetupStandard, Red)
	_, err := p.ParseMove(huge)
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("ParseMove of 10 KB: error of %d bytes: %.80v", len(err.Error()), err)
	}
	_, err = ParsePosition("R:R" + strings.Repeat("X", 5000) + ":B:0")
	if err == nil || len(err.Error()) > 200 {
		t.Fatalf("ParsePosition of 5 KB: error of %d bytes", len(err.Error()))
	}
	if got := Quote("abc"); got != `"abc"` {
		t.Errorf("Quote(abc) = %s", got)
	}
	if got := Quote(strings.Repeat("é", 30)); got != `"`+strings.Repeat("é", 20)+`"...` {
		t.Errorf("Quote cuts inside a character: %s", got)
	}
}

// The short form origin x destination names a capture, never a step: e2xd3
// at the start is refused although e2-d3 is legal (RULES.md, Notation).
func TestShortFormIsNeverAStep(t *testing.T) {
	p, _ := StartPosition(SetupStandard, Red)
	if m, err := p.ParseMove("e2xd3"); err == nil {
		t.Fatalf("e2xd3 accepted as %s", m)
	}
	if _, err := p.ParseMove("e2-d3"); err != nil {
		t.Fatal(err)
	}
}
