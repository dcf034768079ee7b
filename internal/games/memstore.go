package games

import (
	"context"
	"sort"
	"sync"
	"time"
)

// MemoryStore is a Store in process memory: for tests and throwaway runs.
// Games are lost when the process ends.
type MemoryStore struct {
	mu       sync.RWMutex
	games    map[string]*memGame
	order    []string // ids in creation order
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
	// Ids sort in creation order (time-ordered UUIDs), but keep the slice
	// sorted whatever the caller's ids.
	i := sort.SearchStrings(s.order, g.ID)
	s.order = append(s.order, "")
	copy(s.order[i+1:], s.order[i:])
	s.order[i] = g.ID
	return nil
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
	i := sort.SearchStrings(s.order, q.After)
	if i < len(s.order) && s.order[i] == q.After {
		i++
	}
	var out []*Game
	for ; i < len(s.order) && len(out) < q.Limit; i++ {
		g := s.games[s.order[i]].game
		if (q.Status == InProgress && g.Over()) || (q.Status == Finished && !g.Over()) {
			continue
		}
		out = append(out, g.Clone())
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
