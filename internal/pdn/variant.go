package pdn

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/damone-rules/damone/internal/engine"
)

// GameTypeNumber is the PDN GameType number of Italian Damone in this
// dialect. PDN's registry gives 0 and 1 to chess games, 20 to 41 to
// draughts variants and 50 to Othello, and keeps 2-19 and 42-49 for more
// of the same; 90 is in none of these blocks and unregistered, so no other
// game's records carry it (docs/notation.md, PDN).
const GameTypeNumber = 90

// The GameType attributes of our board: 8 by 8, algebraic squares with a1
// in the bottom-left corner seen from the first colour's side (A0), and a1
// a light square, not a playing one (invert flag 1).
const gameTypeBoard = "8,8,A0,1"

// The tags of this dialect beyond PDN's own (docs/notation.md, PDN).
const (
	TagGameType        = "GameType"
	TagSetUp           = "SetUp"
	TagFEN             = "FEN"
	TagSetup           = "Setup"
	TagFirstPlayer     = "FirstPlayer"
	TagWinCondition    = "WinCondition"
	TagRepetitionDraw  = "RepetitionDraw"
	TagNoProgressLimit = "NoProgressLimit"
)

// GameType returns the GameType value written for a game whose first move
// is first's: "90,W,8,8,A0,1" (W for Red, PDN's first colour) or
// "90,B,8,8,A0,1".
func GameType(first engine.Side) string {
	return fmt.Sprintf("%d,%c,%s", GameTypeNumber, colourLetter(first), gameTypeBoard)
}

func colourLetter(s engine.Side) byte {
	if s == engine.Black {
		return 'B'
	}
	return 'W'
}

// otherGames names the GameType numbers PDN registers for other games.
var otherGames = map[int]string{
	0: "chess", 1: "Chinese chess", 20: "international draughts", 21: "English draughts",
	22: "Italian draughts", 23: "American pool checkers", 24: "Spanish draughts",
	25: "Russian draughts", 26: "Brazilian draughts", 27: "Canadian draughts",
	28: "Portuguese draughts", 29: "Czech draughts", 30: "Turkish draughts",
	31: "Thai draughts", 40: "Frisian draughts", 41: "Spantsiretti draughts", 50: "Othello",
}

// TagError is a tag whose value does not give a valid setting.
type TagError struct {
	Tag   string // the tag's name
	Value string // its value as written
	Msg   string // what is wrong
}

func (e *TagError) Error() string {
	return fmt.Sprintf("tag %s %s: %s", e.Tag, engine.Quote(e.Value), e.Msg)
}

func tagErr(name, value, format string, args ...any) *TagError {
	return &TagError{name, value, fmt.Sprintf(format, args...)}
}

// Variant returns the rule settings the game's tags give; every setting
// whose tag is missing takes engine.DefaultVariant's value. The tags:
//
//   - GameType: absent, "90", or "90,W,8,8,A0,1" / "90,B,8,8,A0,1" (the
//     invert flag may be left out), whose W or B must name the side that
//     moves first;
//   - SetUp "1" with FEN (our position text) for a custom start, whose
//     side to move moves first; SetUp "0", or none, for a setup (a FEN
//     without SetUp is read as a custom start);
//   - Setup: "standard" or "no-damone", not with a FEN;
//   - FirstPlayer: "red" or "black" (with a FEN it must be the FEN's side
//     to move, which it defaults to);
//   - WinCondition: "capture-all-pieces" or "capture-all-damones";
//   - RepetitionDraw: "on" or "off" (also true/false, yes/no, 1/0);
//   - NoProgressLimit: a whole number of plies, 0..2147483647, 0 for off.
//
// Names and the values of the last four are case insensitive; spaces
// around values are ignored. Errors are a *TagError naming the tag and
// its value: a GameType of another game, a malformed value, settings that
// contradict each other, or a variant the engine refuses (e.g.
// capture-all-damones with the no-Damone setup).
func (g *Game) Variant() (engine.Variant, error) {
	v := engine.DefaultVariant()
	get := func(name string) (string, string, bool) {
		raw, ok := g.Tag(name)
		return raw, strings.TrimSpace(raw), ok
	}

	colour := byte(0) // GameType's start colour, if given
	if raw, val, ok := get(TagGameType); ok {
		c, err := parseGameType(raw, val)
		if err != nil {
			return v, err
		}
		colour = c
	}

	custom := false
	rawSetUp, setUp, hasSetUp := get(TagSetUp)
	rawFEN, fen, hasFEN := get(TagFEN)
	switch {
	case hasSetUp && setUp == "1":
		if !hasFEN {
			return v, tagErr(TagSetUp, rawSetUp, "a custom start needs a FEN tag with the position text (docs/notation.md)")
		}
		custom = true
	case hasSetUp && setUp == "0":
		if hasFEN {
			return v, tagErr(TagFEN, rawFEN, `given with SetUp "0" (a setup, no custom start); give SetUp "1" or drop the FEN`)
		}
	case hasSetUp:
		return v, tagErr(TagSetUp, rawSetUp, `want "1" (the FEN tag gives the start) or "0"`)
	case hasFEN:
		custom = true
	}

	rawSetup, setup, hasSetup := get(TagSetup)
	if custom {
		if hasSetup {
			return v, tagErr(TagSetup, rawSetup, "a setup and a FEN start both given; keep one")
		}
		p, err := engine.ParsePosition(fen)
		if err != nil {
			return v, tagErr(TagFEN, rawFEN, "%v (FEN holds our position text, docs/notation.md, e.g. R:RMh1,Pe2:BMa8,Pd7:0)", err)
		}
		v.Setup, v.Start, v.FirstPlayer = engine.SetupCustom, p, p.SideToMove()
	} else if hasSetup {
		s, err := engine.ParseSetup(setup)
		if err != nil || s == engine.SetupCustom {
			return v, tagErr(TagSetup, rawSetup, `want standard or no-damone (a custom start is SetUp "1" with FEN)`)
		}
		v.Setup = s
	}

	if raw, val, ok := get(TagFirstPlayer); ok {
		s, err := engine.ParseSide(val)
		if err != nil {
			return v, tagErr(TagFirstPlayer, raw, "want red or black")
		}
		if custom && s != v.Start.SideToMove() {
			return v, tagErr(TagFirstPlayer, raw, "the FEN's side to move, %s, moves first", v.Start.SideToMove())
		}
		v.FirstPlayer = s
	}
	if colour != 0 && colour != colourLetter(v.FirstPlayer) {
		raw, _ := g.Tag(TagGameType)
		return v, tagErr(TagGameType, raw, "its start colour %c says %s moves first, but %s does (W is Red, B is Black)",
			colour, map[byte]string{'W': "red", 'B': "black"}[colour], v.FirstPlayer)
	}

	if raw, val, ok := get(TagWinCondition); ok {
		switch strings.TrimPrefix(strings.ReplaceAll(strings.ToUpper(val), "-", "_"), "WIN_CONDITION_") {
		case "CAPTURE_ALL_PIECES":
			v.WinCondition = engine.CaptureAllPieces
		case "CAPTURE_ALL_DAMONES":
			v.WinCondition = engine.CaptureAllDamones
		default:
			return v, tagErr(TagWinCondition, raw, "want capture-all-pieces or capture-all-damones")
		}
	}
	if raw, val, ok := get(TagRepetitionDraw); ok {
		switch strings.ToLower(val) {
		case "on", "true", "yes", "1":
			v.RepetitionDraw = true
		case "off", "false", "no", "0":
			v.RepetitionDraw = false
		default:
			return v, tagErr(TagRepetitionDraw, raw, "want on or off")
		}
	}
	if raw, val, ok := get(TagNoProgressLimit); ok {
		// Every limit a variant may have (0..int32's maximum), so that a
		// game's record read back has the game's limit.
		n, err := strconv.ParseInt(val, 10, 32)
		if err != nil || n < 0 || val[0] < '0' || val[0] > '9' {
			return v, tagErr(TagNoProgressLimit, raw, "want a whole number of plies, 0..2147483647 (0 turns the rule off)")
		}
		v.NoProgressLimit = int(n)
	}

	if _, err := v.InitialPosition(); err != nil {
		if errors.Is(err, engine.ErrNoDamone) {
			raw, _ := g.Tag(TagWinCondition)
			return v, tagErr(TagWinCondition, raw, "%v", err)
		}
		return v, fmt.Errorf("the tags give no valid variant: %w", err)
	}
	return v, nil
}

// parseGameType checks a GameType value: our number alone, or with our
// board's attributes; it returns the start colour letter, 0 if not given.
func parseGameType(raw, val string) (byte, error) {
	fields := strings.Split(val, ",")
	num := strings.TrimSpace(fields[0])
	n, err := strconv.Atoi(num)
	if err != nil || num == "" || num[0] < '0' || num[0] > '9' {
		return 0, tagErr(TagGameType, raw, "want a number: Italian Damone is %d (or %s)", GameTypeNumber, GameType(engine.Red))
	}
	if n != GameTypeNumber {
		if name, ok := otherGames[n]; ok {
			return 0, tagErr(TagGameType, raw, "GameType %d is %s, another game; Italian Damone is GameType %d", n, name, GameTypeNumber)
		}
		return 0, tagErr(TagGameType, raw, "GameType %d is not Italian Damone, which is GameType %d", n, GameTypeNumber)
	}
	if len(fields) == 1 {
		return 0, nil
	}
	for i := range fields {
		fields[i] = strings.TrimSpace(fields[i])
	}
	board := strings.Join(fields[2:], ",")
	if (len(fields) != 5 && len(fields) != 6) || (fields[1] != "W" && fields[1] != "B") ||
		(board != gameTypeBoard && board != strings.TrimSuffix(gameTypeBoard, ",1")) {
		return 0, tagErr(TagGameType, raw, "want %d alone, or %d,W,%s (W: Red moves first) or %d,B,%s (Black first); "+
			"Italian Damone is played on 8x8 with squares a1..h8 from the bottom left (A0) and a1 light (invert flag 1)",
			GameTypeNumber, GameTypeNumber, gameTypeBoard, GameTypeNumber, gameTypeBoard)
	}
	return fields[1][0], nil
}
