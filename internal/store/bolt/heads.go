package bolt

import (
	"bytes"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/damone-rules/damone/internal/games"
)

// Decoding a game's record (JSON, positions in text) is most of the CPU a
// move costs the embedded store, and every move reads its game twice: Get,
// then the version check in Update, inside the one writer's transaction.
// heads keeps the decoded games of recent records, keyed by the record's
// bytes: a record equal to the one kept decodes to the same game, so an
// entry is right whatever happened since (a rolled-back write leaves
// bytes that match no entry, never a wrong one).

// headsCached is how many games' decoded records the store keeps.
const headsCached = 4096

type heads struct {
	games *lru.Cache[string, head] // safe for concurrent use
}

type head struct {
	raw  []byte
	game *games.Game // never handed out: callers get copies
}

func newHeads() *heads {
	c, err := lru.New[string, head](headsCached)
	if err != nil {
		panic(err) // only for a size below 1
	}
	return &heads{games: c}
}

// decode returns the game of record v (of game id): a copy of the kept one
// if v is the record kept, else decoded and kept. v may be memory of a
// transaction: it is copied before being kept.
func (h *heads) decode(id string, v []byte) (*games.Game, error) {
	e, ok := h.games.Get(id)
	if ok && bytes.Equal(e.raw, v) {
		return e.game.Clone(), nil
	}
	g, err := games.DecodeGame(v)
	if err != nil {
		return nil, err
	}
	h.keep(id, bytes.Clone(v), g) // keeps a copy: g is the caller's
	return g, nil
}

// peek is decode for a reader that only reads the game and keeps nothing
// of it (the committer's checks): the kept game itself, not a copy.
func (h *heads) peek(id string, v []byte) (*games.Game, error) {
	if e, ok := h.games.Get(id); ok && bytes.Equal(e.raw, v) {
		return e.game, nil
	}
	return h.decode(id, v)
}

// keep records that raw (not to be changed after) is the record of g.
func (h *heads) keep(id string, raw []byte, g *games.Game) {
	h.keepHead(id, raw, g.Head())
}

// keepHead is keep of a head no one changes after (Game.Head's copy).
func (h *heads) keepHead(id string, raw []byte, h0 *games.Game) {
	h.games.Add(id, head{raw: raw, game: h0})
}
