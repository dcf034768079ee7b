//go:build faults

package faulttest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// anomaly is one failed check: which check, which game, what.
type anomaly struct {
	Check string
	Game  string
	What  string
}

// final is a game's state at the end, read after every fault healed.
type final struct {
	st   gstate
	etag string
	log  []evRec // the stored event log, from a WatchGame since 0
}

type checker struct {
	h         *history
	w         *workload
	reps      []*replica
	pg        *pg
	dir       string // artefacts, kept on failure
	anoms     []anomaly
	finals    map[string]*final
	porc      map[porcupine.CheckResult]int
	slowest   time.Duration
	sqlKept   int
	timeouts  int // timed games ended by a clock
	sqlDrops  int
	lockReads int           // C9: reads of other games during the row lock
	lockP99   time.Duration // and their p99
}

func (c *checker) fail(check, game, f string, args ...any) {
	c.anoms = append(c.anoms, anomaly{check, game, fmt.Sprintf(f, args...)})
}

func gameID(name string) string { return strings.TrimPrefix(name, "games/") }

func sideName(s int) string { return map[int]string{1: "red", 2: "black"}[s] }

// settleSQL settles the writes still unknown that carry a request id,
// from the stored request ids (every fault healed, every call over): no
// row, it never happened (dropped); a row, it did, and a replay of its id
// gives its first answer, which the model then checks as a definite one
// (Settled "sql"; it may have taken effect any time after its call).
func (c *checker) settleSQL(recs []*record) []*record {
	tokens := map[string][2]string{}
	c.w.mu.Lock()
	for _, g := range c.w.games {
		tokens[g.name] = [2]string{g.red, g.black}
	}
	c.w.mu.Unlock()
	var out []*record
	for _, r := range recs {
		if !r.Out.Unknown || r.In.ReqID == "" || c.pg == nil {
			out = append(out, r)
			continue
		}
		var n int
		err := retry(func(ctx context.Context) error {
			return c.pg.pool.QueryRow(ctx, `SELECT count(*) FROM move_requests WHERE game_id = $1 AND request_id = $2`,
				gameID(r.In.Game), sideName(r.In.Side)+"/"+r.In.ReqID).Scan(&n)
		})
		if err != nil {
			c.fail("C0", r.In.Game, "reading move_requests: %v", err)
			out = append(out, r)
			continue
		}
		if n == 0 {
			c.sqlDrops++
			continue
		}
		c.sqlKept++
		var got output
		err = retry(func(ctx context.Context) error {
			var err error
			got, err = invoke(ctx, c.reps[0], r.In, tokens[r.In.Game][r.In.Side-1])
			if got.Unknown {
				return err
			}
			return nil
		})
		if err != nil || got.Code != "" {
			c.fail("C6", r.In.Game, "replaying %s %s, stored as applied, at the end: %s %v", r.In.Kind, r.In.ReqID, got.Code, err)
		} else {
			r.Out, r.Settled = got, "sql"
		}
		out = append(out, r)
	}
	return out
}

// retry runs fn until it succeeds or 20 s pass (the database may be
// coming back from a fault).
func retry(fn func(ctx context.Context) error) error {
	end := time.Now().Add(20 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := fn(ctx)
		cancel()
		if err == nil || time.Now().After(end) {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// readFinals reads every game on every replica (C7: they must agree) and
// its event log.
func (c *checker) readFinals(names []string) {
	c.finals = map[string]*final{}
	for _, name := range names {
		var f *final
		for _, r := range c.reps {
			var g *damonev1.Game
			err := retry(func(ctx context.Context) error {
				var err error
				g, err = r.games.GetGame(ctx, &damonev1.GetGameRequest{Name: name})
				return err
			})
			if err != nil {
				c.fail("C7", name, "GetGame on %s at the end: %v", r.name, err)
				continue
			}
			st := stateOf(g)
			if f == nil {
				f = &final{st: st, etag: g.GetEtag()}
				continue
			}
			if st != f.st || g.GetEtag() != f.etag {
				c.fail("C7", name, "replicas disagree at the end: %s has ply %d seq %d etag %s, %s has ply %d seq %d etag %s",
					c.reps[0].name, f.st.Ply, f.st.Seq, f.etag, r.name, st.Ply, st.Seq, g.GetEtag())
			}
		}
		if f == nil {
			continue
		}
		f.log = c.readLog(name, f.st.Seq)
		c.finals[name] = f
	}
}

func (c *checker) readLog(name string, last int64) []evRec {
	var log []evRec
	err := retry(func(ctx context.Context) error {
		log = log[:0]
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s, err := c.reps[0].games.WatchGame(ctx, &damonev1.WatchGameRequest{Name: name})
		if err != nil {
			return err
		}
		for int64(len(log)) < last {
			e, err := s.Recv()
			if err != nil {
				return err
			}
			log = append(log, evOf(e))
		}
		return nil
	})
	if err != nil {
		c.fail("C5", name, "reading the event log at the end: %v", err)
	}
	return log
}

// C1: porcupine, one game at a time, each with its own timeout.
func (c *checker) linearizable(recs []*record, faults []fault, games []*gameRun) {
	c.porc = map[porcupine.CheckResult]int{}
	timed := map[string]bool{}
	for _, g := range games {
		timed[g.name] = g.timed
	}
	var end int64
	for _, r := range recs {
		end = max(end, r.Return)
	}
	byGame := map[string][]porcupine.Operation{}
	for _, r := range recs {
		if timed[r.In.Game] {
			continue // the state depends on time: C8
		}
		ret := r.Return
		if r.Settled == "sql" {
			ret = end + int64(time.Second) // applied, but maybe after the client gave up
		}
		if r.Out.Unknown {
			ret = end + int64(time.Second) // may take effect any time after its call
			if r.In.Kind == kGet {
				continue // a read that said nothing
			}
		}
		byGame[r.In.Game] = append(byGame[r.In.Game], porcupine.Operation{ClientId: r.Client, Input: r.In, Call: r.Call, Output: r.Out, Return: ret})
	}
	for name, ops := range byGame {
		t0 := time.Now()
		res, info := porcupine.CheckOperationsVerbose(gameModel, ops, 20*time.Second)
		c.slowest = max(c.slowest, time.Since(t0))
		c.porc[res]++
		if res == porcupine.Ok {
			continue
		}
		if res == porcupine.Illegal {
			c.fail("C1", name, "history not linearizable (%d ops)", len(ops))
		}
		var ann []porcupine.Annotation
		for _, f := range faults {
			ann = append(ann, porcupine.Annotation{Tag: "nemesis", Start: f.Start, End: f.End, Description: f.Kind + " " + f.Target, BackgroundColor: "#f4cccc"})
		}
		info.AddAnnotations(ann)
		path := filepath.Join(c.dir, "game-"+gameID(name)+".html")
		if err := porcupine.VisualizePath(gameModel, info, path); err != nil {
			c.fail("C1", name, "writing %s: %v", path, err)
		}
	}
	if c.porc[porcupine.Unknown] > 1 {
		c.fail("C1", "", "%d games' checks timed out", c.porc[porcupine.Unknown])
	}
}

// C2: every acknowledged write is in the final state.
func (c *checker) lostAcks(recs []*record) {
	for _, r := range recs {
		f := c.finals[r.In.Game]
		if f == nil || r.Out.Unknown || r.Out.Code != "" {
			continue
		}
		moves := strings.Fields(f.st.Moves)
		switch r.In.Kind {
		case kMove:
			p := r.Out.St.Ply
			if p > len(moves) || moves[p-1] != r.Out.Played {
				c.fail("C2", r.In.Game, "acknowledged move %s at ply %d (%s) is not in the final moves", r.Out.Played, p, r.Replica)
			}
		case kResign, kAnswer:
			if r.Out.St.Outcome != 0 && f.st.Outcome != r.Out.St.Outcome {
				c.fail("C2", r.In.Game, "acknowledged %s ended the game as %d, the final outcome is %d", r.In.Kind, r.Out.St.Outcome, f.st.Outcome)
			}
		}
	}
}

// C3: no duplicated ply or event: the stored log is numbered 1..n with
// n the game's last event, and has one move event per ply, in order.
func (c *checker) duplicates(names []string) {
	if c.pg != nil {
		rows, err := c.pg.pool.Query(context.Background(), `SELECT g.id, g.last_event, count(e.seq), coalesce(max(e.seq), 0)
			FROM games g LEFT JOIN game_events e ON e.game_id = g.id GROUP BY g.id, g.last_event
			HAVING g.last_event <> count(e.seq) OR g.last_event <> coalesce(max(e.seq), 0)`)
		if err != nil {
			c.fail("C3", "", "querying game_events: %v", err)
		} else {
			for rows.Next() {
				var id string
				var last, n, mx int64
				if err := rows.Scan(&id, &last, &n, &mx); err == nil {
					c.fail("C3", "games/"+id, "last_event %d but %d events, the highest %d", last, n, mx)
				}
			}
			rows.Close()
		}
	}
	for _, name := range names {
		f := c.finals[name]
		if f == nil {
			continue
		}
		var moves []string
		for i, e := range f.log {
			if e.Seq != int64(i+1) {
				c.fail("C3", name, "event %d of the log has sequence %d", i+1, e.Seq)
				break
			}
			if e.Kind == "move" {
				moves = append(moves, e.Move)
				if int(e.Ply) != len(moves) {
					c.fail("C3", name, "move event %d is ply %d, after %d moves", e.Seq, e.Ply, len(moves)-1)
				}
			}
		}
		if got := strings.Join(moves, " "); got != f.st.Moves {
			c.fail("C3", name, "the log's moves %q are not the game's %q", got, f.st.Moves)
		}
	}
}

// C4: no read older than an answer that came before it began, on any
// replica: sorting by return time, every answer's last event must be at
// least that of every answer returned before its call.
func (c *checker) staleReads(recs []*record) {
	byGame := map[string][]*record{}
	for _, r := range recs {
		if !r.Out.Unknown && r.Out.Code == "" && r.Settled != "sql" {
			byGame[r.In.Game] = append(byGame[r.In.Game], r)
		}
	}
	for name, rs := range byGame {
		byRet := append([]*record(nil), rs...)
		sort.Slice(byRet, func(i, j int) bool { return byRet[i].Return < byRet[j].Return })
		byCall := append([]*record(nil), rs...)
		sort.Slice(byCall, func(i, j int) bool { return byCall[i].Call < byCall[j].Call })
		var seen int64
		var from *record
		k := 0
		for _, r := range byCall {
			for k < len(byRet) && byRet[k].Return < r.Call {
				if byRet[k].Out.St.Seq > seen {
					seen, from = byRet[k].Out.St.Seq, byRet[k]
				}
				k++
			}
			if r.Out.St.Seq < seen {
				c.fail("C4", name, "%s on %s answered at event %d after %s on %s had answered at event %d",
					r.In.Kind, r.Replica, r.Out.St.Seq, from.In.Kind, from.Replica, seen)
			}
		}
	}
}

// C5: every watcher saw sequences 1, 2, 3... across its reconnections,
// each resumed where it left off, each event the stored one, and, once
// every fault healed, the whole log.
func (c *checker) watchers(games []*gameRun) {
	for _, g := range games {
		f := c.finals[g.name]
		if f == nil {
			continue
		}
		for _, wl := range g.watchers {
			wl.mu.Lock()
			evs := append([]evRec(nil), wl.events...)
			wl.mu.Unlock()
			for i, e := range evs {
				if e.Seq != int64(i+1) {
					c.fail("C5", g.name, "watcher event %d has sequence %d (replicas %v, resumed from %v)", i+1, e.Seq, wl.replicas, wl.segments)
					break
				}
				if i < len(f.log) && e != f.log[i] {
					c.fail("C5", g.name, "watcher event %d is %+v, the stored one %+v", e.Seq, e, f.log[i])
					break
				}
			}
			if int64(len(evs)) != f.st.Seq {
				c.fail("C5", g.name, "watcher has %d events at the end, the game %d (replicas %v)", len(evs), f.st.Seq, wl.replicas)
			}
		}
	}
}

// C6: every replay of an acknowledged write answers as the first call,
// and every CreateGame got a definite answer through its retries (an
// unknown one could have left an orphan game).
func (c *checker) replays() {
	if c.w.orphans > 0 {
		c.fail("C6", "", "%d CreateGame calls still unknown after their retries with the same request id", c.w.orphans)
	}
	for _, r := range c.w.replays {
		if r.req.create != nil {
			if r.got.Code != "" || r.made != r.req.made {
				c.fail("C6", r.req.made.Name, "replay of a CreateGame on %s answered %q game %s ply %d seq %d (tokens equal: %v), first game %s ply %d seq %d (%s)",
					r.on, r.got.Code, r.made.Name, r.made.St.Ply, r.made.St.Seq, r.made.Red == r.req.made.Red && r.made.Black == r.req.made.Black,
					r.req.made.Name, r.req.made.St.Ply, r.req.made.St.Seq, r.err)
			}
			continue
		}
		a, b := r.req.first, r.got
		if b.Code != "" || a.Played != b.Played || a.EvSeq != b.EvSeq || a.St != b.St {
			c.fail("C6", r.req.in.Game, "replay of %s %s on %s answered %q ply %d seq %d offer %d, first %q ply %d seq %d offer %d (%s)",
				r.req.in.Kind, r.req.in.ReqID, r.on, b.Code+b.Played, b.St.Ply, b.St.Seq, b.St.Offer, a.Played, a.St.Ply, a.St.Seq, a.St.Offer, r.err)
		}
	}
}

// C9: a game whose row stays locked holds up no other game: every read
// of another game made while the row lock lasted got an answer, their
// p99 within lockedReadP99.
func (c *checker) lockedRow(recs []*record, faults []fault) {
	for _, f := range faults {
		if f.Kind != "row-lock" || f.Game == "" {
			continue
		}
		var ds []time.Duration
		unknown := 0
		for _, r := range recs {
			if r.In.Kind != kGet || r.In.Game == f.Game || r.Call < f.Start || r.Call >= f.End {
				continue
			}
			if r.Out.Unknown {
				unknown++
				continue
			}
			ds = append(ds, time.Duration(r.Return-r.Call))
		}
		p99 := percentile(ds, 0.99)
		c.lockReads, c.lockP99 = len(ds)+unknown, p99
		if len(ds) == 0 {
			c.fail("C9", f.Game, "no read of another game while its row was locked: nothing checked")
		}
		if unknown > 0 || p99 > lockedReadP99 {
			c.fail("C9", f.Game, "while its row was locked, reads of other games: %d unknown, p99 %v of %d (budget %v)", unknown, p99, len(ds), lockedReadP99)
		}
	}
}

// lockedReadP99 bounds C9's reads: half the client deadline, far above a
// read's usual p99 under the faults, far under what waiting behind a
// locked game's moves costs (their deadline).
const lockedReadP99 = callTimeout / 2

// C8: a game ends once: its log has one game_ended event, the last, and
// nothing after it; a game lost on time was lost by the side to move, so
// no move was accepted after its flag fell.
func (c *checker) clocks(games []*gameRun) {
	for _, g := range games {
		f := c.finals[g.name]
		if f == nil {
			continue
		}
		if g.timed && f.st.Outcome%16 == 8 {
			c.timeouts++
		}
		ended := 0
		for i, e := range f.log {
			if e.Kind != "ended" {
				continue
			}
			ended++
			if i != len(f.log)-1 {
				c.fail("C8", g.name, "event %d after the game_ended event %d", f.log[len(f.log)-1].Seq, e.Seq)
			}
		}
		if want := map[bool]int{true: 1}[f.st.Outcome != 0]; ended != want {
			c.fail("C8", g.name, "%d game_ended events, outcome %d", ended, f.st.Outcome)
		}
		if f.st.Outcome%16 == 8 { // OUTCOME_REASON_TIMEOUT
			pos, err := engine.ParsePosition(f.st.Pos)
			if err != nil {
				c.fail("C8", g.name, "final position %q: %v", f.st.Pos, err)
				continue
			}
			winner := int(engine.WinFor(pos.SideToMove() ^ 1))
			if f.st.Outcome/16 != winner {
				c.fail("C8", g.name, "lost on time with %s to move, but the result is %d", pos.SideToMove(), f.st.Outcome/16)
			}
		}
	}
}

// C0: the history's own assumptions.
func (c *checker) assumptions(recs []*record, kinds []faultKind, faults []fault) {
	last := map[int]*record{}
	sorted := append([]*record(nil), recs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Call < sorted[j].Call })
	for _, r := range sorted {
		if r.Return < r.Call {
			c.fail("C0", r.In.Game, "an op returned before its call")
		}
		if p := last[r.Client]; p != nil && p.Return > r.Call {
			c.fail("C0", r.In.Game, "client %d had two ops in flight", r.Client)
		}
		last[r.Client] = r
	}
	done := map[string]bool{}
	for _, f := range faults {
		if f.Err != "" {
			c.fail("C0", "", "fault %s on %s: %s", f.Kind, f.Target, f.Err)
		}
		done[f.Kind] = true
	}
	for _, k := range kinds {
		if !done[k.name] {
			c.fail("C0", "", "fault %s was never injected", k.name)
		}
	}
}

// keep writes the histories, watch logs and faults as JSON artefacts.
func (c *checker) keep(recs []*record, faults []fault) {
	byGame := map[string][]*record{}
	for _, r := range recs {
		byGame[r.In.Game] = append(byGame[r.In.Game], r)
	}
	for name, rs := range byGame {
		writeJSON(filepath.Join(c.dir, "history-"+gameID(name)+".json"), rs)
	}
	writeJSON(filepath.Join(c.dir, "faults.json"), faults)
	writeJSON(filepath.Join(c.dir, "anomalies.json"), c.anoms)
	for _, r := range c.reps {
		if b, err := os.ReadFile(r.logPath); err == nil {
			os.WriteFile(filepath.Join(c.dir, filepath.Base(r.logPath)), b, 0o644)
		}
	}
	if c.pg != nil {
		if b, err := os.ReadFile(filepath.Join(c.pg.dir, "server.log")); err == nil {
			os.WriteFile(filepath.Join(c.dir, "postgres.log"), b, 0o644)
		}
	}
}

func writeJSON(path string, v any) {
	b, err := json.MarshalIndent(v, "", " ")
	if err == nil {
		os.WriteFile(path, b, 0o644)
	}
}

// percentile returns the p-th percentile of ds (sorted in place).
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[int(math.Ceil(p*float64(len(ds))))-1]
}

var (
	_ = errors.New
	_ = pgx.ErrNoRows
	_ = proto.Equal
)
