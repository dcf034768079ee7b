package egtb

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/damone-rules/damone/internal/engine"
)

// Options configure Build.
type Options struct {
	Pieces  int                   // 2..MaxPieces
	Limit   int                   // the no-progress limit (default engine.DefaultNoProgressLimit)
	Win     []engine.WinCondition // sets to build (default both)
	Threads int                   // material pairs built at once (default 1)
	// Progress, if set, receives one line per finished pair: slices done,
	// positions per second, time left.
	Progress io.Writer
}

// Work codes of a pair under construction, one uint16 per entry:
// 0 unknown, 1..maxLevel a win in that many plies, lossFlag|d a loss in d,
// drawFinal a draw no later level can change (every move converts),
// brokenCode an entry no game reaches.
const (
	lossFlag   = 0x8000
	drawFinal  = 0x7FFF
	brokenCode = 0xFFFF
	maxLevel   = 0x7FFE
)

// Build builds every table of the set into dir, skipping a pair whose files
// are already there and check out, and writes the manifest last.
func Build(dir string, o Options) error {
	if o.Pieces < 2 || o.Pieces > MaxPieces {
		return fmt.Errorf("pieces %d out of range 2..%d", o.Pieces, MaxPieces)
	}
	if o.Limit == 0 {
		o.Limit = engine.DefaultNoProgressLimit
	}
	if o.Limit < 1 || o.Limit > MaxLimit {
		return fmt.Errorf("no-progress limit %d out of range 1..%d", o.Limit, MaxLimit)
	}
	if len(o.Win) == 0 {
		o.Win = []engine.WinCondition{engine.CaptureAllPieces, engine.CaptureAllDamones}
	}
	o.Threads = max(o.Threads, 1)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, err := lockBuild(dir)
	if err != nil {
		return err
	}
	if unlock != nil {
		defer unlock()
		if err := removeTemps(dir); err != nil {
			return err
		}
	}
	man := &Manifest{Format: manifestFormat, FormatVersion: formatVersion, Pieces: o.Pieces, Limit: o.Limit}
	var total uint64
	var jobs []pairJob // in build order: the manifest lists the tables in this order
	for wi, wc := range o.Win {
		man.WinConditions = append(man.WinConditions, wc.String())
		ms := Materials(o.Pieces, wc)
		for _, m := range ms {
			total += Size(m)
		}
		for _, l := range pairs(ms) {
			for _, pr := range l {
				jobs = append(jobs, pairJob{wi: wi, pr: pr, size: Size(pr[0]) + uint64(btoi(pr[0] != pr[1]))*Size(pr[1])})
			}
		}
	}
	nslices := 0
	for _, j := range jobs {
		nslices += 1 + btoi(j.pr[0] != j.pr[1])
	}
	dependents := make([][]int, len(jobs))
	waiting := make([]int, len(jobs))
	var ready []int
	for i := range jobs {
		for k := 0; k < i; k++ {
			if jobs[k].wi == jobs[i].wi && mayConvertTo(jobs[i].pr, jobs[k].pr) {
				jobs[i].deps = append(jobs[i].deps, k)
				dependents[k] = append(dependents[k], i)
			}
		}
		waiting[i] = len(jobs[i].deps)
		if waiting[i] == 0 {
			ready = append(ready, i)
		}
	}
	start := time.Now()
	var done, built uint64 // entries finished, and actually computed (not skipped) for the rate
	slicesDone, finished := 0, 0
	results := make([][2]*Table, len(jobs)) // dropped once every dependent is built
	users := make([]int, len(jobs))         // dependents not yet built
	entries := make([][]ManifestEntry, len(jobs))
	errs := make([]error, len(jobs))
	for i := range jobs {
		users[i] = len(dependents[i])
	}
	failed := false
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var wg sync.WaitGroup
	for w := 0; w < min(o.Threads, len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			defer mu.Unlock()
			for {
				for len(ready) == 0 && finished < len(jobs) && !failed {
					cond.Wait()
				}
				if finished == len(jobs) || failed {
					return
				}
				// The largest ready pair first, so that the last pairs
				// running are small ones and no thread waits long at the end.
				best := 0
				for r := range ready {
					if jobs[ready[r]].size > jobs[ready[best]].size {
						best = r
					}
				}
				i := ready[best]
				ready = append(ready[:best], ready[best+1:]...)
				j := jobs[i]
				sub := map[Material]*Table{}
				for _, k := range j.deps {
					for _, t := range results[k] {
						if t != nil {
							sub[t.Material] = t
						}
					}
				}
				mu.Unlock()
				wc := o.Win[j.wi]
				var res [2]*Table
				var err error
				ts, sums, skipped := loadPair(dir, j.pr, wc, o.Limit)
				if skipped {
					res = ts
				} else if res, err = buildPair(j.pr, wc, o.Limit, sub); err == nil {
					sums, err = savePair(dir, res)
				}
				var ents []ManifestEntry
				for k, t := range res {
					if t != nil && err == nil {
						ents = append(ents, manifestEntry(t, sums[k]))
					}
				}
				mu.Lock()
				results[i], entries[i], errs[i] = res, ents, err
				if users[i] == 0 {
					results[i] = [2]*Table{}
				}
				for _, k := range j.deps {
					if users[k]--; users[k] == 0 {
						results[k] = [2]*Table{}
					}
				}
				finished++
				if err != nil {
					failed = true
					cond.Broadcast()
					continue
				}
				n := uint64(0)
				for _, t := range res {
					if t != nil {
						n += t.Entries()
						slicesDone++
					}
				}
				done += n
				if !skipped {
					built += n
				}
				if o.Progress != nil {
					progress(o.Progress, slicesDone, nslices, j.pr, wc, skipped, done, total, built, time.Since(start))
				}
				for _, d := range dependents[i] {
					if waiting[d]--; waiting[d] == 0 {
						ready = append(ready, d)
					}
				}
				cond.Broadcast()
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, e := range entries {
		man.Tables = append(man.Tables, e...)
	}
	for i := range man.Tables {
		if man.Tables[i].SHA256 == "" {
			return fmt.Errorf("egtb: %s: checksum failed", man.Tables[i].File)
		}
	}
	return writeManifest(dir, man)
}

// pairJob is one pair of a build: its set (an index into Options.Win), its
// entries, and the earlier pairs it may convert to (deps), which must be
// built first.
type pairJob struct {
	wi   int
	pr   [2]Material
	size uint64
	deps []int
}

// mayConvertTo reports whether a conversion (or a chain of them) from a
// slice of pair p can reach a slice of pair q (q ≠ p): pieces only vanish
// or promote one rank, so each side of q's material must be obtainable from
// the same side of p's, or from the other, with a turn between.
func mayConvertTo(p, q [2]Material) bool {
	if p == q {
		return false
	}
	for _, a := range p {
		for _, b := range q {
			if sideFrom(b[0], a[0]) && sideFrom(b[1], a[1]) || sideFrom(b[0], a[1]) && sideFrom(b[1], a[0]) {
				return true
			}
		}
	}
	return false
}

// sideFrom reports whether one side's pieces x can come from y by captures
// and promotions: no more Pedines, no more Pedines and Damas together, no
// more pieces.
func sideFrom(x, y [engine.NumRanks]uint8) bool {
	p, d, m := engine.Pedine, engine.Dama, engine.Damone
	return x[p] <= y[p] && x[p]+x[d] <= y[p]+y[d] && x[p]+x[d]+x[m] <= y[p]+y[d]+y[m]
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func progress(w io.Writer, slices, nslices int, pr [2]Material, wc engine.WinCondition, skipped bool, done, total, built uint64, el time.Duration) {
	rate := float64(built) / max(el.Seconds(), 1e-9)
	left := "?"
	if built > 0 {
		left = time.Duration(float64(total-done) / rate * 1e9).Round(time.Second).String()
	}
	what := "built"
	if skipped {
		what = "verified, skipped"
	}
	fmt.Fprintf(w, "egtb: [%d/%d slices] %s %s %s  %.1f%% of positions  %.2f M pos/s  elapsed %s  left %s\n",
		slices, nslices, wcShort(wc), pairName(pr), what, 100*float64(done)/float64(max(total, 1)),
		rate/1e6, el.Round(time.Second), left)
}

func pairName(pr [2]Material) string {
	if pr[0] == pr[1] {
		return pr[0].String()
	}
	return pr[0].String() + " + " + pr[1].String()
}

// fileSum is what the manifest says of a table's file: its SHA-256 (hex)
// and size in bytes, taken from the bytes written or read, so the file is
// not read again for it.
type fileSum struct {
	sha256 string
	bytes  int64
}

func sumOf(data []byte) fileSum {
	sum := sha256.Sum256(data)
	return fileSum{hex.EncodeToString(sum[:]), int64(len(data))}
}

func manifestEntry(t *Table, f fileSum) ManifestEntry {
	return ManifestEntry{File: FileName(t.Material, t.Win), WinCondition: t.Win.String(), Material: t.Material.String(),
		Entries: t.Entries(), Stats: t.Stats, SHA256: f.sha256, Bytes: f.bytes}
}

// loadPair returns a pair's tables, and their files' sums, if their files
// exist and check out.
func loadPair(dir string, pr [2]Material, wc engine.WinCondition, limit int) ([2]*Table, [2]fileSum, bool) {
	var ts [2]*Table
	var sums [2]fileSum
	for i, m := range pr {
		if i == 1 && pr[1] == pr[0] {
			break
		}
		path := filepath.Join(dir, FileName(m, wc))
		data, err := readSetFile(path, 0)
		if err != nil {
			return ts, sums, false
		}
		if ts[i], err = decodeTable(path, data, expect{m, wc, limit, false}); err != nil {
			return ts, sums, false
		}
		sums[i] = sumOf(data)
	}
	return ts, sums, true
}

func savePair(dir string, ts [2]*Table) ([2]fileSum, error) {
	var sums [2]fileSum
	for i, t := range ts {
		if t == nil {
			continue
		}
		data := encodeTable(t)
		if err := writeFileAtomic(filepath.Join(dir, FileName(t.Material, t.Win)), data); err != nil {
			return sums, err
		}
		sums[i] = sumOf(data)
	}
	return sums, nil
}

// pairBuild solves one pair {A, A.Swap()} (one slice when A is its own
// swap): every quiet move of one slice leads to the other, and every
// conversion to a finished table.
type pairBuild struct {
	wc     engine.WinCondition
	mats   [2]Material
	n      int // slices: 1 or 2
	vals   [2][]uint16
	open   [2][]uint8 // per undecided entry: quiet moves not yet known to lose, or openNever
	initB  [2][]uint8 // pass A records pass B's starting value of each entry (initCode)
	sub    map[Material]*Table
	limit  int  // the pass's level bound
	noRule bool // pass B: conversions read the rule-off values
	err    error
	moves  []engine.Move
	pos    engine.Position // scratch: the engine's move generator keeps its receiver on the heap
	// frontier[k][s]: the entries of slot s decided at the level being read
	// (k = 0) and the one being found (k = 1), wins and losses apart.
	wins, losses [2][2][]uint32
}

// initCode values of pairBuild.initB: below initWin1 the number of open
// quiet moves of an undecided entry (openNever included).
const (
	initWin1   = 0xF0 // win in 1
	initLoss0  = 0xF1 // no legal move
	initLoss1  = 0xF2 // every move converts to a win for the opponent
	initBroken = 0xF3
	maxOpen    = initWin1 - 1
)

// buildPair runs pass A (the rule at limit) and pass B (the rule off) and
// returns the finished tables. Pass A values every position from its moves
// for both passes at once, so pass B starts from what pass A recorded.
func buildPair(pr [2]Material, wc engine.WinCondition, limit int, sub map[Material]*Table) ([2]*Table, error) {
	pb := &pairBuild{wc: wc, mats: pr, n: 1 + btoi(pr[0] != pr[1]), sub: sub, moves: make([]engine.Move, 0, 128)}
	for s := 0; s < pb.n; s++ {
		if Size(pr[s]) > math.MaxUint32 {
			return [2]*Table{}, fmt.Errorf("egtb: %v: %d entries, more than the build numbers (2^32)", pr[s], Size(pr[s]))
		}
		pb.vals[s] = make([]uint16, Size(pr[s]))
		pb.open[s] = make([]uint8, Size(pr[s]))
		pb.initB[s] = make([]uint8, Size(pr[s]))
	}
	var as [2][]byte
	pb.limit, pb.noRule = limit, false
	pb.classifyAll()
	pb.solve()
	if pb.err != nil {
		return [2]*Table{}, pb.err
	}
	for s := 0; s < pb.n; s++ {
		as[s] = pb.open[s] // pass A's open counts are done with: its codes take their place
		for i, v := range pb.vals[s] {
			switch {
			case v == brokenCode:
				as[s][i] = codeBroken
			case v == 0 || v == drawFinal:
				as[s][i] = 0
			case v&lossFlag != 0:
				as[s][i] = codeLoss + uint8(v&^lossFlag)
			default:
				as[s][i] = uint8(v)
			}
		}
		pb.open[s], pb.initB[s] = pb.initB[s], nil
	}
	pb.limit, pb.noRule = maxLevel, true
	pb.startB()
	pb.solve()
	if pb.err != nil {
		return [2]*Table{}, pb.err
	}
	var out [2]*Table
	for s := 0; s < pb.n; s++ {
		v := as[s] // the rule's codes, merged in place with the rule-off values
		for i, x := range pb.vals[s] {
			var w uint8
			switch {
			case x == brokenCode:
				w = wdlBroken
			case x == 0 || x == drawFinal:
			case x&lossFlag != 0:
				w = wdlLoss
			default:
				w = wdlWin
			}
			c, ok := merge(v[i], w)
			if !ok {
				return out, fmt.Errorf("egtb: %v: entry %d: %s with the rule but %s without it", pr[s], i, codeText(v[i]), wdlText(w))
			}
			v[i] = c
		}
		st, err := computeStats(v, limit)
		if err != nil {
			return out, fmt.Errorf("egtb: %v: %v", pr[s], err)
		}
		out[s] = &Table{Material: pr[s], Win: wc, Limit: limit, Stats: st, v: v, ix: newIndexer(&pr[s])}
		pb.vals[s], pb.open[s] = nil, nil
	}
	return out, nil
}

func (pb *pairBuild) fail(err error) {
	if pb.err == nil {
		pb.err = err
	}
}

// openNever marks an entry that cannot become a loss: a conversion
// leads to a position the opponent does not win.
const openNever = 0xFF

// other returns the slot of the slice the quiet moves of slot s lead to.
func (pb *pairBuild) other(s int) int { return (s + 1) % pb.n }

// setInit stores an entry's starting value and open count in vals and open
// and, when it is decided, in the frontier: loss in 0 as read at level 1,
// wins and losses in 1 as found there.
func (pb *pairBuild) setInit(s int, i uint32, v uint16, open uint8) {
	if v == 0 && open == 0 {
		v = drawFinal
	}
	pb.vals[s][i], pb.open[s][i] = v, open
	switch v {
	case lossFlag:
		pb.losses[0][s] = append(pb.losses[0][s], i)
	case lossFlag | 1:
		pb.losses[1][s] = append(pb.losses[1][s], i)
	case 1:
		pb.wins[1][s] = append(pb.wins[1][s], i)
	}
}

// classifyAll starts pass A: every entry valued from its moves (classify),
// pass B's start recorded in initB.
func (pb *pairBuild) classifyAll() {
	for s := 0; s < pb.n; s++ {
		ix := newIndexer(&pb.mats[s])
		for i := range pb.vals[s] {
			b := ix.unindex(uint32(i))
			if b.broken() {
				pb.vals[s][i], pb.initB[s][i] = brokenCode, initBroken
				continue
			}
			va, oa, vb, ob := pb.classify(&b)
			pb.setInit(s, uint32(i), va, oa)
			switch vb {
			case 1:
				ob = initWin1
			case lossFlag:
				ob = initLoss0
			case lossFlag | 1:
				ob = initLoss1
			}
			pb.initB[s][i] = ob
		}
	}
}

// startB starts pass B from the codes pass A left in open.
func (pb *pairBuild) startB() {
	for k := range pb.wins {
		for s := range pb.wins[k] {
			pb.wins[k][s], pb.losses[k][s] = pb.wins[k][s][:0], pb.losses[k][s][:0]
		}
	}
	for s := 0; s < pb.n; s++ {
		for i, c := range pb.open[s] {
			switch c {
			case initBroken:
				pb.vals[s][i], pb.open[s][i] = brokenCode, 0
			case initWin1:
				pb.setInit(s, uint32(i), 1, 0)
			case initLoss0:
				pb.setInit(s, uint32(i), lossFlag, 0)
			case initLoss1:
				pb.setInit(s, uint32(i), lossFlag|1, 0)
			default:
				pb.setInit(s, uint32(i), 0, c)
			}
		}
	}
}

// solve fills vals by levels: level d finds the wins in d plies (a quiet
// move to a loss in d−1) and then the losses in d (every move to a win in
// under d, one of them in d−1). Candidates come from quiet un-moves of
// the entries decided at the previous level (the frontier); each is valued
// from its legal moves by the engine's move generator, so an un-move can
// only propose, never decide. Within a level the order of the frontier
// does not matter: a win is set once, and an open count only falls.
func (pb *pairBuild) solve() {
	var ix [2]indexer
	for s := 0; s < pb.n; s++ {
		ix[s] = newIndexer(&pb.mats[s])
	}
	var preds [maxPreds]board
	for d := 1; d <= pb.limit; d++ {
		for s := 0; s < pb.n; s++ {
			src := pb.other(s) // children of slot s live in src
			vals := pb.vals[s]
			for _, i := range pb.losses[0][src] {
				x := ix[src].unindex(i)
				for _, p := range preds[:predecessors(&x, &preds)] {
					pi := ix[s].index(&p)
					if vals[pi] != 0 {
						continue
					}
					// A quiet step to a loss in d−1 wins in d (nothing
					// shorter was found, so nothing shorter exists) if
					// the step is legal: no capture is compulsory.
					if !p.hasCapture() {
						vals[pi] = uint16(d)
						pb.wins[1][s] = append(pb.wins[1][s], uint32(pi))
					}
				}
			}
		}
		for s := 0; s < pb.n; s++ {
			src := pb.other(s)
			vals, open := pb.vals[s], pb.open[s]
			for _, i := range pb.wins[0][src] {
				x := ix[src].unindex(i)
				for _, p := range preds[:predecessors(&x, &preds)] {
					pi := ix[s].index(&p)
					if vals[pi] != 0 {
						continue
					}
					// An undecided entry has no capture (those are decided
					// at the start), so the step is legal; when its last
					// open move turns out to reach a win, it loses in d
					// (every other move reached a win in under d − 1).
					switch o := open[pi]; o {
					case openNever:
					case 1:
						open[pi] = 0
						vals[pi] = lossFlag | uint16(d)
						pb.losses[1][s] = append(pb.losses[1][s], uint32(pi))
					default:
						open[pi] = o - 1
					}
				}
			}
		}
		found := false
		for s := 0; s < pb.n; s++ {
			found = found || len(pb.wins[1][s]) > 0 || len(pb.losses[1][s]) > 0
			pb.wins[0][s], pb.wins[1][s] = pb.wins[1][s], pb.wins[0][s][:0]
			pb.losses[0][s], pb.losses[1][s] = pb.losses[1][s], pb.losses[0][s][:0]
		}
		if !found {
			return
		}
	}
	if !pb.noRule {
		return
	}
	pb.fail(fmt.Errorf("egtb: %v: more than %d levels", pb.mats[0], maxLevel))
}

// backSteps[r][t] are the squares a piece of own side (moving like Red)
// of rank r could have stepped from to reach t (set by index.go's init,
// after the square tables it needs).
var backSteps [engine.NumRanks][32]uint32

// maxPreds bounds the predecessors of a board: each piece of the side
// that moved has at most four squares to have come from.
const maxPreds = 4 * MaxPieces

// predecessors writes to buf every board (own to move) from which a quiet,
// non-promoting step could lead to x: x's other side, made own, steps
// back. It returns how many. Whether the step is legal there (no capture
// compulsory) is for the caller's forward check.
func predecessors(x *board, buf *[maxPreds]board) int {
	y := x.swapTurn()
	occ := y.occupied()
	n := 0
	for r := 0; r < engine.NumRanks; r++ {
		for ts := y[0][r]; ts != 0; ts &= ts - 1 {
			t := bits.TrailingZeros32(ts)
			for fs := backSteps[r][t] &^ occ &^ brokenMask[0][r]; fs != 0; fs &= fs - 1 {
				buf[n] = y
				buf[n][0][r] ^= 1<<t | 1<<bits.TrailingZeros32(fs)
				n++
			}
		}
	}
	return n
}

// classify values b from its legal moves at the start of a pass, for pass
// A (conversions read the rule's values: va, oa) and pass B (the rule-off
// values: vb, ob) at once: a win in 1 (a move ends the game or converts to
// a loss for the opponent), a loss in 0 (no legal move) or in 1 (every move
// converts to a win for the opponent), else 0. The open count is the
// number of non-converting quiet moves, each still to be found losing
// before b is, or openNever if a conversion reaches a position the
// opponent does not win.
func (pb *pairBuild) classify(b *board) (va uint16, oa uint8, vb uint16, ob uint8) {
	var cv childValues
	if b.hasCapture() {
		// Captures are compulsory, so every move is one: the engine's
		// generator applies the rules on sequences and their priority.
		pb.pos = b.position(0)
		p := &pb.pos
		moves := p.GenerateMoves(pb.moves[:0])
		for i := range moves {
			q := p.After(&moves[i])
			cb := fromEngine(&q)
			if !pb.conversion(&cb, &cv) {
				return 0, openNever, 0, openNever
			}
		}
	} else {
		// Steps only: a quiet step leads to the other slice (one to a
		// position without a move wins in 1: level 1 finds it from that
		// position's un-moves); a promoting one converts.
		var promos [maxSteps]board
		nq, np := b.steps(&promos)
		if nq+np == 0 {
			return lossFlag, 0, lossFlag, 0
		}
		cv.nquiet = nq
		for i := range promos[:np] {
			if !pb.conversion(&promos[i], &cv) {
				return 0, openNever, 0, openNever
			}
		}
	}
	if cv.nquiet > maxOpen {
		pb.fail(fmt.Errorf("egtb: building %v: %d quiet moves, more than %d", b.material(), cv.nquiet, maxOpen))
	}
	va, oa = verdict(cv.win || cv.winA, !cv.drawA, cv.nquiet)
	vb, ob = verdict(cv.win || cv.winB, !cv.drawB, cv.nquiet)
	return va, oa, vb, ob
}

// childValues gathers what classify learns from a position's moves: win, a
// move ends the game; winA/winB, one converts to a loss for the opponent
// (with the rule, without it); drawA/drawB, one converts to a position the
// opponent does not win; nquiet, the quiet moves.
type childValues struct {
	win, winA, winB, drawA, drawB bool
	nquiet                        int
}

// conversion adds the child cb (the opponent to move) of a converting move
// to cv; false (and pb.err set) if its table is missing.
func (pb *pairBuild) conversion(cb *board, cv *childValues) bool {
	cm := cb.material()
	if cm.Count(0) == 0 || (pb.wc == engine.CaptureAllDamones && cm[0][engine.Damone] == 0) {
		cv.win = true // the move ends the game
		return true
	}
	t := pb.sub[cm]
	if t == nil {
		pb.fail(fmt.Errorf("egtb: building %s: no table for the conversion to %v", pairName(pb.mats), cm))
		return false
	}
	c := t.v[t.ix.index(cb)]
	if rc := ruleCode(c); rc >= codeLoss && rc != codeBroken {
		cv.winA = true
	} else if rc == 0 || rc == codeBroken {
		cv.drawA = true
	}
	switch wdlOf(c) {
	case wdlLoss:
		cv.winB = true
	case wdlWin:
	default:
		cv.drawB = true
	}
	return true
}

func verdict(win, canLose bool, nquiet int) (uint16, uint8) {
	switch {
	case win:
		return 1, 0
	case canLose && nquiet == 0:
		return lossFlag | 1, 0
	case !canLose:
		return 0, openNever * uint8(btoi(nquiet > 0))
	}
	return 0, uint8(nquiet)
}

// buildLockName is the lock file of a directory's builds (lockBuild).
const buildLockName = ".build-files.lock"

// tempPrefix begins the name of every temporary file a build writes
// (writeFileAtomic).
const tempPrefix = ".tmp-"

// removeTemps removes the temporary files left in dir by a build that was
// killed while writing; the caller holds dir's build lock, so none is
// being written.
func removeTemps(dir string) error {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		if e.Type().IsRegular() && strings.HasPrefix(e.Name(), tempPrefix) {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
		}
	}
	return nil
}
