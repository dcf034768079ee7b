package games

import (
	"context"
	"slices"
	"sort"
	"sync"
	"time"
)

// MemoryStore is a Store in process memory: for tests and throwaway runs.
// Games are lost when the process ends.
type MemoryStore struct {
	mu    sync.RWMutex
	games map[string]*memGame
	order []string // ids in creation order
	// byStatus is order split by status: [0] games going on, [1] over,
	// so a filtered page skips nothing.
	byStatus [2][]string
	requests map[string]map[string]RequestRecord
	creates  map[string]CreateRecord // by CreateRecord.Key
}

type memGame struct {
	game   *Game
	events []Event
}

// NewMemoryStore returns an empty store.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{games: map[string]*memGame{}, requests: map[string]map[string]RequestRecord{},
		creates: map[string]CreateRecord{}}
}

func (s *MemoryStore) Create(ctx context.Context, g *Game, events []Event) error {
	return s.CreateRequested(ctx, g, events, nil)
}

func (s *MemoryStore) CreateRequested(_ context.Context, g *Game, events []Event, req *CreateRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.games[g.ID]; dup {
		return ErrConflict
	}
	if req != nil {
		if _, dup := s.creates[req.Key]; dup {
			return ErrDuplicateRequest
		}
		r := *req
		r.Game, r.Sealed = append([]byte(nil), req.Game...), append([]byte(nil), req.Sealed...)
		s.creates[req.Key] = r
	}
	s.games[g.ID] = &memGame{game: g.Head(), events: append([]Event(nil), events...)}
	// Ids sort in creation order (time-ordered UUIDs), but keep the slices
	// sorted whatever the caller's ids.
	s.order = insertSorted(s.order, g.ID)
	s.byStatus[statusIndex(g)] = insertSorted(s.byStatus[statusIndex(g)], g.ID)
	return nil
}

func statusIndex(g *Game) int {
	if g.Over() {
		return 1
	}
	return 0
}

func insertSorted(ids []string, id string) []string {
	i, _ := slices.BinarySearch(ids, id)
	return slices.Insert(ids, i, id)
}

func removeSorted(ids []string, id string) []string {
	if i, ok := slices.BinarySearch(ids, id); ok {
		return slices.Delete(ids, i, i+1)
	}
	return ids
}

func (s *MemoryStore) Get(_ context.Context, id string) (*Game, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mg, ok := s.games[id]
	if !ok {
		return nil, ErrNotFound
	}
	return mg.game.Clone(), nil
}

func (s *MemoryStore) List(_ context.Context, q ListQuery) ([]*Game, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	ids := s.order
	switch q.Status {
	case InProgress:
		ids = s.byStatus[0]
	case Finished:
		ids = s.byStatus[1]
	}
	i, found := slices.BinarySearch(ids, q.After)
	if found {
		i++
	}
	var out []*Game
	for ; i < len(ids) && len(out) < q.Limit; i++ {
		mg := s.games[ids[i]]
		g := mg.game.Clone()
		if q.Moves {
			if err := SetMoves(g, mg.events); err != nil {
				return nil, err
			}
		}
		out = append(out, g)
	}
	return out, nil
}

func (s *MemoryStore) Update(_ context.Context, g *Game, events []Event, req *RequestRecord) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	mg, ok := s.games[g.ID]
	if !ok {
		return ErrNotFound
	}
	if mg.game.Version != g.Version-1 {
		return ErrConflict
	}
	if req != nil {
		if _, dup := s.requests[g.ID][req.RequestID]; dup {
			return ErrDuplicateRequest
		}
		if s.requests[g.ID] == nil {
			s.requests[g.ID] = map[string]RequestRecord{}
		}
		s.requests[g.ID][req.RequestID] = *req
	}
	if was, now := statusIndex(mg.game), statusIndex(g); was != now {
		s.byStatus[was] = removeSorted(s.byStatus[was], g.ID)
		s.byStatus[now] = insertSorted(s.byStatus[now], g.ID)
	}
	mg.game = g.Head()
	mg.events = append(mg.events, events...)
	return nil
}

func (s *MemoryStore) Events(_ context.Context, id string, after int64, limit int) ([]Event, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	mg, ok := s.games[id]
	if !ok {
		return nil, ErrNotFound
	}
	// Sequence numbers are 1, 2, 3... so event n sits at index n-1.
	if after < 0 {
		after = 0
	}
	if after >= int64(len(mg.events)) {
		return nil, nil
	}
	end := min(int64(len(mg.events)), after+int64(limit))
	return append([]Event(nil), mg.events[after:end]...), nil
}

func (s *MemoryStore) Request(_ context.Context, id, requestID string) (RequestRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.requests[id][requestID]
	if !ok {
		return RequestRecord{}, ErrNotFound
	}
	return r, nil
}

func (s *MemoryStore) CreateRequest(_ context.Context, key string) (CreateRecord, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	r, ok := s.creates[key]
	if !ok {
		return CreateRecord{}, ErrNotFound
	}
	return r, nil
}

func (s *MemoryStore) Count(context.Context) (int, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.games), nil
}

// Due scans every game: the memory store is for tests and small runs.
func (s *MemoryStore) Due(_ context.Context, until time.Time, limit int) ([]string, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	type due struct {
		id string
		at time.Time
	}
	if limit <= 0 {
		return nil, nil
	}
	var all []due
	for id, mg := range s.games {
		if c := mg.game.Clock; c != nil && !mg.game.Over() && !c.Deadline.IsZero() && !c.Deadline.After(until) {
			all = append(all, due{id, c.Deadline})
		}
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].at.Equal(all[j].at) {
			return all[i].at.Before(all[j].at)
		}
		return all[i].id < all[j].id
	})
	ids := make([]string, 0, min(limit, len(all)))
	for _, d := range all[:min(limit, len(all))] {
		ids = append(ids, d.id)
	}
	return ids, nil
}
