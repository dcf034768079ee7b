package engine

import "math/bits"

// Bitboards use one bit per square of the 8×8 board (bit = Square), so a
// diagonal step is a shift by 7 or 9; only dark-square bits are ever set.

// Direction is one of the four diagonals.
type Direction uint8

const (
	NorthWest Direction = iota // towards a8: row+1, file-1
	NorthEast                  // towards h8: row+1, file+1
	SouthWest                  // towards a1: row-1, file-1
	SouthEast                  // towards h1: row-1, file+1
)

var dirName = [4]string{"north-west", "north-east", "south-west", "south-east"}

func (d Direction) String() string { return dirName[d] }

const (
	fileA uint64 = 0x0101010101010101
	fileH uint64 = fileA << 7
	dark  uint64 = 0x55AA55AA55AA55AA
)

// stepFrom[d] holds the squares that have a neighbour in direction d.
var stepFrom = [4]uint64{
	NorthWest: dark &^ fileA &^ (0xFF << 56),
	NorthEast: dark &^ fileH &^ (0xFF << 56),
	SouthWest: dark &^ fileA &^ 0xFF,
	SouthEast: dark &^ fileH &^ 0xFF,
}

// shift moves every bit one square in direction d; callers mask the source
// with stepFrom[d] so nothing wraps round the board's edge.
func shift(b uint64, d Direction) uint64 {
	switch d {
	case NorthWest:
		return b << 7
	case NorthEast:
		return b << 9
	case SouthWest:
		return b >> 9
	default:
		return b >> 7
	}
}

// neighbour[sq][d] is the adjacent square in direction d, or NoSquare.
var neighbour [64][4]Square

// pedineDirs[side] is the set of a Pedine's directions as a bit mask over
// Direction: forward and the two sideways diagonals, never backward
// (RULES.md, Moves). allDirs serves Damas and Damones.
var pedineDirs = [2]uint8{
	Red:   1<<NorthWest | 1<<NorthEast | 1<<SouthWest,
	Black: 1<<SouthEast | 1<<NorthEast | 1<<SouthWest,
}

const allDirs uint8 = 0xF

func dirsOf(s Side, r Rank) uint8 {
	if r == Pedine {
		return pedineDirs[s]
	}
	return allDirs
}

// promotionSquares[side][rank] are the squares on which a move of that rank
// ending there promotes it, fixed by the standard setup (RULES.md,
// Promotion): a Pedine promotes on the enemy Damas' squares, a Dama on the
// enemy Damone's square.
var promotionSquares = [2][NumRanks]uint64{
	Red:   {Pedine: bit(sq("a6")) | bit(sq("c8")), Dama: bit(sq("a8"))},
	Black: {Pedine: bit(sq("f1")) | bit(sq("h3")), Dama: bit(sq("h1"))},
}

func init() {
	for s := Square(0); s < 64; s++ {
		for d := Direction(0); d < 4; d++ {
			neighbour[s][d] = NoSquare
			if s.Valid() && stepFrom[d]&bit(s) != 0 {
				neighbour[s][d] = Square(bits.TrailingZeros64(shift(bit(s), d)))
			}
		}
	}
}

func bit(s Square) uint64 { return 1 << s }

// sq parses a square known to be valid; for tables and tests only.
func sq(name string) Square {
	s, err := ParseSquare(name)
	if err != nil {
		panic(err)
	}
	return s
}
