package bolt

import (
	"encoding/binary"
	"errors"
	"slices"
	"sync"

	"github.com/damone-rules/damone/internal/games"
)

// change is one acknowledged write as the log holds it: a game's new
// record with its index keys, its new events, and the request it
// records, if any.
type change struct {
	create     bool
	id         string
	data       []byte      // games.EncodeGame
	g          *games.Game // its head; only in memory (nil when replayed)
	dkey, skey []byte      // deadlineKey (nil: none) and statusKey
	events     []eventRec
	reqKey     string // Update: the request id; create: CreateRecord.Key
	reqData    []byte // nil: no request
}

type eventRec struct {
	seq  int64
	data []byte // games.EncodeEvent
}

const (
	changeCreate = 1 << iota
	changeRequest
)

// encodeChange appends c to b: a flags byte, then uvarint-prefixed bytes
// (id, record, deadline key, status key, request key, request record), a
// uvarint count of events and, for each, its uvarint sequence number and
// uvarint-prefixed record.
func encodeChange(b []byte, c *change) []byte {
	var flags byte
	if c.create {
		flags |= changeCreate
	}
	if c.reqData != nil {
		flags |= changeRequest
	}
	b = append(b, flags)
	for _, f := range [][]byte{[]byte(c.id), c.data, c.dkey, c.skey, []byte(c.reqKey), c.reqData} {
		b = binary.AppendUvarint(b, uint64(len(f)))
		b = append(b, f...)
	}
	b = binary.AppendUvarint(b, uint64(len(c.events)))
	for _, e := range c.events {
		b = binary.AppendUvarint(b, uint64(e.seq))
		b = binary.AppendUvarint(b, uint64(len(e.data)))
		b = append(b, e.data...)
	}
	return b
}

var errBadChange = errors.New("a change that does not decode")

// decodeChanges decodes a frame's payload (changes encoded one after the
// other). The changes share p's memory.
func decodeChanges(p []byte) ([]change, error) {
	var out []change
	for len(p) > 0 {
		flags := p[0]
		p = p[1:]
		var f [6][]byte
		for i := range f {
			n, k := binary.Uvarint(p)
			if k <= 0 || uint64(len(p)-k) < n {
				return nil, errBadChange
			}
			f[i], p = p[k:k+int(n)], p[k+int(n):]
		}
		c := change{create: flags&changeCreate != 0, id: string(f[0]), data: f[1], skey: f[3], reqKey: string(f[4])}
		if len(f[2]) > 0 {
			c.dkey = f[2]
		}
		if flags&changeRequest != 0 {
			c.reqData = f[5]
		}
		if c.id == "" || len(c.data) == 0 || len(c.skey) == 0 {
			return nil, errBadChange
		}
		n, k := binary.Uvarint(p)
		if k <= 0 || n > uint64(len(p)) {
			return nil, errBadChange
		}
		p = p[k:]
		for range n {
			seq, k := binary.Uvarint(p)
			if k <= 0 {
				return nil, errBadChange
			}
			p = p[k:]
			m, k := binary.Uvarint(p)
			if k <= 0 || uint64(len(p)-k) < m {
				return nil, errBadChange
			}
			c.events = append(c.events, eventRec{int64(seq), p[k : k+int(m)]})
			p = p[k+int(m):]
		}
		out = append(out, c)
	}
	return out, nil
}

// The overlay holds what the log holds and bbolt not yet: the latest
// record of each game changed since the last checkpoint, their new events
// and the requests recorded. Only the committer changes it (merge, and
// trim once a checkpoint is in bbolt), under mu; readers and the
// checkpointer read it under mu's read lock. Its values are never changed
// in place (a game's entry is replaced; events are only appended to, or
// a slice's prefix dropped), so what a reader took stays as it was.
//
// A reader takes what it needs of the overlay first and only then opens
// its bbolt transaction: an entry leaves the overlay only after the
// checkpoint that wrote it into bbolt committed, so whatever it finds in
// neither was already in bbolt, and an entry it found is the latest state
// as of when it looked.
type overlay struct {
	mu      sync.RWMutex
	games   map[string]*entry
	events  map[string][]ovEvent
	reqs    map[string]map[string]ovRec // game id -> request id
	creates map[string]ovRec            // CreateRecord.Key
	last    int64                       // the last group merged
	// bytes is the log's frames not yet checkpointed, per group: the
	// committer waits for a checkpoint past maxBehind.
	bytes  int64
	groups []groupBytes
}

type entry struct {
	group      int64
	data       []byte
	g          *games.Game // head, for the committer's checks (nil when replayed)
	dkey, skey []byte
}

type ovEvent struct {
	group int64
	eventRec
}

type ovRec struct {
	group int64
	data  []byte
}

type groupBytes struct {
	group, bytes int64
}

func newOverlay() *overlay {
	return &overlay{games: map[string]*entry{}, events: map[string][]ovEvent{}, reqs: map[string]map[string]ovRec{}, creates: map[string]ovRec{}}
}

// merge adds group's changes (logged in frame bytes) to the overlay.
func (o *overlay) merge(group int64, changes []*change, bytes int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, c := range changes {
		o.games[c.id] = &entry{group: group, data: c.data, g: c.g, dkey: c.dkey, skey: c.skey}
		if len(c.events) > 0 {
			evs := o.events[c.id]
			for _, e := range c.events {
				evs = append(evs, ovEvent{group, e})
			}
			o.events[c.id] = evs
		}
		if c.reqData != nil {
			if c.create {
				o.creates[c.reqKey] = ovRec{group, c.reqData}
			} else {
				m := o.reqs[c.id]
				if m == nil {
					m = map[string]ovRec{}
					o.reqs[c.id] = m
				}
				m[c.reqKey] = ovRec{group, c.reqData}
			}
		}
	}
	o.last = group
	o.bytes += bytes
	o.groups = append(o.groups, groupBytes{group, bytes})
}

// trim drops what the checkpoint of the groups up to checkpointed wrote
// into bbolt.
func (o *overlay) trim(checkpointed int64) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for id, e := range o.games {
		if e.group <= checkpointed {
			delete(o.games, id)
		}
	}
	for id, evs := range o.events {
		i := 0
		for i < len(evs) && evs[i].group <= checkpointed {
			i++
		}
		switch {
		case i == len(evs):
			delete(o.events, id)
		case i > 0:
			o.events[id] = slices.Clone(evs[i:])
		}
	}
	for id, m := range o.reqs {
		for k, r := range m {
			if r.group <= checkpointed {
				delete(m, k)
			}
		}
		if len(m) == 0 {
			delete(o.reqs, id)
		}
	}
	for k, r := range o.creates {
		if r.group <= checkpointed {
			delete(o.creates, k)
		}
	}
	i := 0
	for i < len(o.groups) && o.groups[i].group <= checkpointed {
		o.bytes -= o.groups[i].bytes
		i++
	}
	o.groups = o.groups[i:]
}

// view is what a reader or the checkpointer took of the overlay: shallow
// copies of its maps (their values are never changed in place).
type view struct {
	games   map[string]*entry
	events  map[string][]ovEvent
	reqs    map[string]map[string]ovRec
	creates map[string]ovRec
	last    int64
}

// snapshot copies the overlay's games and events; with all, also its
// requests (the checkpointer's).
func (o *overlay) snapshot(all bool) *view {
	o.mu.RLock()
	defer o.mu.RUnlock()
	v := &view{games: make(map[string]*entry, len(o.games)), events: make(map[string][]ovEvent, len(o.events)), last: o.last}
	for k, e := range o.games {
		v.games[k] = e
	}
	for k, e := range o.events {
		v.events[k] = e
	}
	if all {
		v.reqs = make(map[string]map[string]ovRec, len(o.reqs))
		for k, m := range o.reqs {
			c := make(map[string]ovRec, len(m))
			for r, rec := range m {
				c[r] = rec
			}
			v.reqs[k] = c
		}
		v.creates = make(map[string]ovRec, len(o.creates))
		for k, r := range o.creates {
			v.creates[k] = r
		}
	}
	return v
}

// game returns game id's entry and events, if the overlay has them.
func (o *overlay) game(id string) (*entry, []ovEvent) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.games[id], o.events[id]
}

// request returns the record of request id of game, if the overlay has it.
func (o *overlay) request(game, id string) ([]byte, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	r, ok := o.reqs[game][id]
	return r.data, ok
}

func (o *overlay) createRequest(key string) ([]byte, bool) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	r, ok := o.creates[key]
	return r.data, ok
}

// behind returns the log bytes not yet checkpointed and the last group.
func (o *overlay) behind() (int64, int64) {
	o.mu.RLock()
	defer o.mu.RUnlock()
	return o.bytes, o.last
}
