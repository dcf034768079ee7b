package games

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// watchPage is how many stored events one catch-up read fetches.
const watchPage = 256

// sharedStorePoll is how often a process on a shared store reads each
// watched game's log even without a notification (relay.poll).
const sharedStorePoll = 2 * time.Second

// Watch sends the game's events with sequence numbers above since, in
// order, then live events, and returns nil after sending the game-ended
// event. Errors: CodeNotFound; CodeInvalidArgument for a negative since;
// CodeOutOfRange when since is past the last event; CodeResourceExhausted
// when a watcher limit is reached or this watcher fell too far behind
// (resume from the last sequence received); CodeUnavailable when the
// service drains; the context's error when the caller goes away; any
// error send returns.
func (s *Service) Watch(ctx context.Context, id string, since int64, send func(*Event) error) error {
	return s.WatchLive(ctx, id, since, send, nil)
}

// WatchLive is Watch, and calls live (unless nil) once, when the watch is
// accepted and caught up: every stored event above since has been sent
// and the next are sent as they happen. A transport can then tell its
// client that the stream is open before any event comes.
func (s *Service) WatchLive(ctx context.Context, id string, since int64, send func(*Event) error, live func()) error {
	if since < 0 {
		return invalid("since_sequence", "since_sequence must be 0 or more, got %d", since)
	}
	g, err := s.store.Get(ctx, id)
	if err != nil {
		return storeError(err)
	}
	if since > g.LastEvent {
		return &Error{Code: CodeOutOfRange, Reason: ReasonSequenceOutOfRange,
			Message:  fmt.Sprintf("since_sequence %d is past the game's last event %d", since, g.LastEvent),
			Metadata: map[string]string{"last_event_sequence": strconv.FormatInt(g.LastEvent, 10)}}
	}
	// Subscribe before reading the log, so nothing falls between the two.
	sub, lerr := s.hub.subscribe(id)
	if lerr != nil {
		return lerr
	}
	s.observer.WatchersChanged(1)
	defer func() {
		s.hub.unsubscribe(sub)
		s.observer.WatchersChanged(-1)
	}()
	last := since
	deliver := func(e *Event) (bool, error) {
		if err := send(e); err != nil {
			return false, err
		}
		last = e.Sequence
		return e.Final(), nil
	}
	catchUp := func() (bool, error) {
		for {
			evs, err := s.store.Events(ctx, id, last, watchPage)
			if err != nil {
				return false, storeError(err)
			}
			for i := range evs {
				if done, err := deliver(&evs[i]); done || err != nil {
					return done, err
				}
			}
			if len(evs) < watchPage {
				return false, nil
			}
		}
	}
	if done, err := catchUp(); done || err != nil {
		return err
	}
	if g.Over() && last >= g.LastEvent {
		return nil // the game-ended event was at or before since: nothing will follow
	}
	if live != nil {
		live()
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.draining:
			return &Error{Code: CodeUnavailable, Message: fmt.Sprintf(
				"the server is shutting down; watch again with since_sequence=%d", last)}
		case <-sub.cut:
			return &Error{Code: CodeResourceExhausted, Reason: ReasonLimitExceeded, Limit: "watch_buffer",
				Metadata: map[string]string{"limit": "watch_buffer", "maximum": strconv.Itoa(s.limits.WatchBuffer)},
				Message: fmt.Sprintf("this watcher fell more than %d events behind and was cut off; watch again with since_sequence=%d",
					s.limits.WatchBuffer, last)}
		case e := <-sub.events:
			var done bool
			var err error
			switch {
			case e.Kind == 0 && e.Sequence > 0 && e.Sequence <= last:
				continue // a poke for what this watcher has
			case e.Kind == 0: // a poke from another process: read the log
				done, err = catchUp()
			case e.Sequence <= last: // already sent while catching up
				continue
			case e.Sequence == last+1:
				done, err = deliver(e)
			default: // a gap: read what is missing from the log
				done, err = catchUp()
			}
			if done || err != nil {
				return err
			}
		}
	}
}
