//go:build faults

package faulttest

import (
	"context"
	"fmt"
	"math/rand"
	"sync"
	"syscall"
	"time"
)

// fault is one injected fault and its interval (ns since the base).
type fault struct {
	Kind       string
	Target     string
	Game       string // row-lock: the game whose row was locked
	Start, End int64
	Err        string // a fault that could not be injected or healed
}

type faultLog struct {
	mu     sync.Mutex
	faults []fault
	active bool
	begun  bool
}

// phase is "before" the first fault, "during" one, or "after" (between
// faults and at the end).
func (l *faultLog) phase() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	switch {
	case l.active:
		return "during"
	case l.begun:
		return "after"
	}
	return "before"
}

// nemesis injects faults one at a time into a cluster.
type nemesis struct {
	h    *history
	reps []*replica
	pg   *pg // nil on the embedded store
	rng  *rand.Rand
	hot  func() *gameRun // a game in play, for the row lock
	lock string          // the game the last row lock took
	wg   sync.WaitGroup  // the row lock's writers
}

// A fault kind: inject it, hold it, heal it.
type faultKind struct {
	name string
	run  func(n *nemesis, r *replica) error
	onDB bool // it hits PostgreSQL itself, not one replica
}

// pgKinds are the faults of the PostgreSQL cluster; embeddedKinds those
// of the single node on the embedded store.
var pgKinds = []faultKind{
	{"kill9", (*nemesis).kill9, false},
	{"pause", (*nemesis).pause, false},
	{"pg-restart-fast", (*nemesis).pgRestartFast, true},
	{"pg-crash", (*nemesis).pgCrash, true},
	{"pg-terminate-backends", (*nemesis).pgTerminate, false},
	{"row-lock", (*nemesis).rowLock, true},
	{"client-blackhole", linkFault(true, Blackhole, 0), false},
	{"client-delay", linkFault(true, Delay, 300*time.Millisecond), false},
	{"client-reset", linkReset(true), false},
	{"client-drop-replies", linkFault(true, DropReplies, 0), false},
	{"db-blackhole", linkFault(false, Blackhole, 0), false},
	{"db-delay", linkFault(false, Delay, 200*time.Millisecond), false},
	{"db-reset", linkReset(false), false},
	{"db-drop-replies", linkFault(false, DropReplies, 0), false},
	{"partition-from-db", linkFault(false, Refuse, 0), false},
}

var embeddedKinds = []faultKind{
	{"kill9", (*nemesis).kill9, false},
	{"pause", (*nemesis).pause, false},
	{"client-drop-replies", linkFault(true, DropReplies, 0), false},
}

// hold is how long a fault lasts: longer than a client's deadline.
func (n *nemesis) hold() time.Duration {
	return 3*time.Second + time.Duration(n.rng.Intn(1500))*time.Millisecond
}

func (n *nemesis) kill9(r *replica) error {
	r.kill()
	time.Sleep(time.Duration(500+n.rng.Intn(1000)) * time.Millisecond)
	return r.start()
}

func (n *nemesis) pause(r *replica) error {
	r.signal(syscall.SIGSTOP)
	time.Sleep(n.hold() + 3*time.Second) // past the store's 5 s bound too
	r.signal(syscall.SIGCONT)
	return r.waitReady(20 * time.Second)
}

func (n *nemesis) pgRestartFast(*replica) error { return n.pg.ctl("-m", "fast", "restart") }

func (n *nemesis) pgCrash(*replica) error {
	if err := n.pg.ctl("-m", "immediate", "stop"); err != nil {
		return err
	}
	time.Sleep(time.Second)
	return n.pg.start()
}

// pgTerminate ends every backend of the replica's (by its
// application_name), busy or idle.
func (n *nemesis) pgTerminate(r *replica) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
		if _, err := n.pg.pool.Exec(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
			WHERE application_name = $1 AND pid <> pg_backend_pid()`, "damone-"+r.name); err != nil {
			return err
		}
	}
	return nil
}

// lockWriters is how many draw offers the row lock sends to its game
// through one replica: more than a replica's pool has connections.
const lockWriters = 6

// rowLock holds a hot game's row locked past the call deadline, and sends
// lockWriters draw offers to it (recorded, each its own client, retried
// with its id until settled) through replica r: they wait on the lock
// meanwhile, and r's other games must not wait with them (C9).
func (n *nemesis) rowLock(r *replica) error {
	g := n.hot()
	if g == nil {
		return fmt.Errorf("no game in play to lock")
	}
	id := gameID(g.name)
	n.lock = id
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	tx, err := n.pg.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	if _, err := tx.Exec(ctx, `SELECT 1 FROM games WHERE id = $1 FOR UPDATE`, id); err != nil {
		return err
	}
	for i := range lockWriters {
		side, token := 1+i%2, g.red
		if side == 2 {
			token = g.black
		}
		in := input{Kind: kOffer, Game: g.name, Side: side, ExpPly: -1, ReqID: fmt.Sprintf("lock-%d-%s-%d", n.rng.Int63(), id, i)}
		n.wg.Add(1)
		go func() { defer n.wg.Done(); n.h.do(context.Background(), n.h.newClient(), []*replica{r}, in, token) }()
	}
	time.Sleep(6 * time.Second)
	return nil
}

func linkFault(client bool, mode Mode, delay time.Duration) func(*nemesis, *replica) error {
	return func(n *nemesis, r *replica) error {
		p := r.cl
		if !client {
			p = r.db
		}
		p.Set(mode, delay)
		time.Sleep(n.hold())
		p.Set(Pass, 0)
		return nil
	}
}

func linkReset(client bool) func(*nemesis, *replica) error {
	return func(n *nemesis, r *replica) error {
		p := r.cl
		if !client {
			p = r.db
		}
		for i := 0; i < 3; i++ {
			p.Reset()
			time.Sleep(500 * time.Millisecond)
		}
		return nil
	}
}

// run injects every kind once, in a seeded order, with quiet gaps.
func (n *nemesis) run(ctx context.Context, kinds []faultKind, gap time.Duration) {
	order := n.rng.Perm(len(kinds))
	select {
	case <-ctx.Done():
		return
	case <-time.After(max(gap, 5*time.Second)): // a calm start, to measure
	}
	for _, i := range order {
		k := kinds[i]
		r := n.reps[n.rng.Intn(len(n.reps))]
		f := fault{Kind: k.name, Target: r.name, Start: n.h.now()}
		if k.onDB {
			f.Target = "postgres"
		}
		n.h.faults.mu.Lock()
		n.h.faults.active, n.h.faults.begun = true, true
		n.h.faults.mu.Unlock()
		n.lock = ""
		if err := k.run(n, r); err != nil {
			f.Err = err.Error()
		}
		if n.lock != "" {
			f.Game = "games/" + n.lock
		}
		f.End = n.h.now()
		n.h.faults.mu.Lock()
		n.h.faults.active = false
		n.h.faults.faults = append(n.h.faults.faults, f)
		n.h.faults.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-time.After(gap):
		}
	}
}
