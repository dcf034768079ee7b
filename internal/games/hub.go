package games

import (
	"strconv"
	"sync"
)

// hub fans events out to the watchers of each game. Publishing never
// blocks: a watcher whose bounded buffer is full is cut off (and resumes
// from its last sequence), so a slow watcher never slows the mover or the
// other watchers.
type hub struct {
	mu      sync.Mutex
	subs    map[string]map[*subscription]struct{}
	total   int
	buffer  int
	perGame int
	max     int
}

type subscription struct {
	game   string
	events chan *Event   // shared, read-only: every watcher gets the same event
	cut    chan struct{} // closed when the watcher fell behind
}

func newHub(buffer, perGame, max int) *hub {
	return &hub{subs: map[string]map[*subscription]struct{}{}, buffer: buffer, perGame: perGame, max: max}
}

// subscribe registers a watcher of game id, or returns an error naming the
// limit that is reached.
func (h *hub) subscribe(id string) (*subscription, *Error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.max > 0 && h.total >= h.max {
		return nil, &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "watchers",
			Metadata: map[string]string{"limit": "watchers", "maximum": strconv.Itoa(h.max)},
			Message:  "the server's limit on open watch streams (max-watchers) is reached; try again later"}
	}
	if h.perGame > 0 && len(h.subs[id]) >= h.perGame {
		return nil, &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "watchers_per_game",
			Metadata: map[string]string{"limit": "watchers_per_game", "maximum": strconv.Itoa(h.perGame)},
			Message:  "this game's limit on open watch streams (max-watchers-per-game) is reached; try again later"}
	}
	s := &subscription{game: id, events: make(chan *Event, h.buffer), cut: make(chan struct{})}
	if h.subs[id] == nil {
		h.subs[id] = map[*subscription]struct{}{}
	}
	h.subs[id][s] = struct{}{}
	h.total++
	return s, nil
}

func (h *hub) unsubscribe(s *subscription) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.remove(s)
}

func (h *hub) remove(s *subscription) {
	if _, ok := h.subs[s.game][s]; !ok {
		return
	}
	delete(h.subs[s.game], s)
	if len(h.subs[s.game]) == 0 {
		delete(h.subs, s.game)
	}
	h.total--
}

// publish delivers events (all of one game, in order) to its watchers.
func (h *hub) publish(id string, events []Event) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs[id] {
		for i := range events {
			select {
			case s.events <- &events[i]:
			default:
				close(s.cut)
				h.remove(s)
			}
			if _, ok := h.subs[id][s]; !ok {
				break
			}
		}
	}
}

// poke tells the watchers of a game that its log has grown to seq
// somewhere else (another replica): those behind it (all, for seq 0)
// read what they miss from the store. A poke is an Event with no Kind.
func (h *hub) poke(id string, seq int64) {
	h.publish(id, []Event{{GameID: id, Sequence: seq}})
}

// pokeAll wakes every watcher to check the store, after notifications may
// have been lost.
func (h *hub) pokeAll() {
	h.mu.Lock()
	ids := make([]string, 0, len(h.subs))
	for id := range h.subs {
		ids = append(ids, id)
	}
	h.mu.Unlock()
	for _, id := range ids {
		h.poke(id, 0)
	}
}

// games returns the ids of the games with watchers.
func (h *hub) games() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	ids := make([]string, 0, len(h.subs))
	for id := range h.subs {
		ids = append(ids, id)
	}
	return ids
}

// watched reports whether game id has watchers.
func (h *hub) watched(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs[id]) > 0
}

// watchers returns the number of open subscriptions.
func (h *hub) watchers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}
