package egtb

import (
	"fmt"
	"io"
	"path/filepath"
	"sync"

	"github.com/damone-rules/damone/internal/engine"
)

// VerifyReport is what Verify found.
type VerifyReport struct {
	Tables    int
	Positions uint64
	Errors    int
	First     []string // the first errors, up to the limit given
}

func (r *VerifyReport) add(limit int, format string, args ...any) {
	r.Errors++
	if len(r.First) < limit {
		r.First = append(r.First, fmt.Sprintf(format, args...))
	}
}

// Verify checks a set in dir, independently of how it was built: every
// file against its checksums and the manifest; every position recomputed
// from its legal moves and its children's stored values (the fixed point:
// with the rule, each win's DTC is 1 + its best child's, each loss's 1 +
// its longest child's, a conversion counting 1; with the rule off, a win
// has a losing child, a loss only winning children); every position equal
// to its mirror in the long diagonal; the statistics against the manifest.
// It keeps the first maxErrors messages. progress, if set, gets a line per
// table.
func Verify(dir string, maxErrors int, progress io.Writer) (*VerifyReport, error) {
	return VerifyThreads(dir, maxErrors, 1, progress)
}

// VerifyThreads is Verify checking up to threads tables at once; the
// report is the same for any number of threads (errors in manifest
// order).
func VerifyThreads(dir string, maxErrors, threads int, progress io.Writer) (*VerifyReport, error) {
	rep := &VerifyReport{}
	man, err := ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	set := &Set{Dir: dir, Manifest: man, tables: map[engine.WinCondition]map[Material]*Table{}}
	for _, e := range man.Tables {
		t, err := openEntry(dir, man, e, 0)
		if err != nil {
			rep.add(maxErrors, "%v", err)
			continue
		}
		if set.tables[t.Win] == nil {
			set.tables[t.Win] = map[Material]*Table{}
		}
		set.tables[t.Win][t.Material] = t
	}
	if rep.Errors > 0 {
		return rep, nil // the fixed point needs every table
	}
	threads = max(threads, 1)
	reps := make([]VerifyReport, len(man.Tables))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for w := 0; w < min(threads, len(man.Tables)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			moves := make([]engine.Move, 0, 128)
			for j := range next {
				e := man.Tables[j]
				verifyTable(set, dir, e, maxErrors, &reps[j], moves)
				if progress != nil {
					mu.Lock()
					fmt.Fprintf(progress, "egtb verify: %s: %d entries checked, %d errors\n", e.File, e.Entries, reps[j].Errors)
					mu.Unlock()
				}
			}
		}()
	}
	for j := range man.Tables {
		next <- j
	}
	close(next)
	wg.Wait()
	for j := range reps {
		rep.Tables++
		rep.Positions += reps[j].Positions
		rep.Errors += reps[j].Errors
		for _, msg := range reps[j].First {
			if len(rep.First) < maxErrors {
				rep.First = append(rep.First, msg)
			}
		}
	}
	return rep, nil
}

// verifyTable checks every entry of one table into r.
func verifyTable(set *Set, dir string, e ManifestEntry, maxErrors int, r *VerifyReport, moves []engine.Move) {
	wc, _ := parseWinCondition(e.WinCondition)
	m, _ := ParseMaterial(e.Material)
	t := set.tables[wc][m]
	name := filepath.Join(dir, e.File)
	for i := uint64(0); i < t.Entries(); i++ {
		b := t.ix.unindex(uint32(i))
		if b.broken() {
			if t.code(i) != codeBroken || t.wdl(i) != wdlBroken {
				r.add(maxErrors, "%s: entry %d: unreachable position not marked broken", name, i)
			}
			continue
		}
		r.Positions++
		wantA, wantB, err := recompute(set, wc, &b, moves)
		if err != nil {
			r.add(maxErrors, "%s: entry %d: %v", name, i, err)
			continue
		}
		p := b.position(0)
		if got := t.code(i); got != wantA {
			r.add(maxErrors, "%s: entry %d (%v): stored %s, its moves give %s (rule at %d)", name, i, p.String(), codeText(got), codeText(wantA), t.Limit)
		}
		if got := t.wdl(i); got != wantB {
			r.add(maxErrors, "%s: entry %d (%v): stored %s, its moves give %s (rule off)", name, i, p.String(), wdlText(got), wdlText(wantB))
		}
		mb := b.mirror()
		mi := t.ix.index(&mb)
		if t.v[mi] != t.v[i] || t.wdl(mi) != t.wdl(i) {
			r.add(maxErrors, "%s: entry %d (%v) differs from its mirror, entry %d", name, i, p.String(), mi)
		}
	}
}

// recompute values b from its moves and the stored values of its
// children: the section A code and section B value it must have.
func recompute(set *Set, wc engine.WinCondition, b *board, buf []engine.Move) (uint8, uint8, error) {
	limit := set.Limit()
	p := b.position(0)
	moves := p.GenerateMoves(buf[:0])
	if len(moves) == 0 {
		return codeLoss, wdlLoss, nil
	}
	m := b.material()
	bestWin, worstLoss, allLose := 1<<30, 0, true
	anyLossB, allWinB := false, true
	for i := range moves {
		q := p.After(&moves[i])
		cb := fromEngine(&q)
		cm := cb.material()
		if cm.Count(0) == 0 || (wc == engine.CaptureAllDamones && cm[0][engine.Damone] == 0) {
			bestWin, anyLossB = 1, true
			continue
		}
		t := set.tables[wc][cm]
		if t == nil {
			return 0, 0, fmt.Errorf("move %v leads to %v, which has no table", moves[i], cm)
		}
		ci := t.ix.index(&cb)
		conv := cm != m.Swap()
		c, w := t.code(ci), t.wdl(ci)
		step := 1
		switch {
		case c == codeBroken || w == wdlBroken:
			return 0, 0, fmt.Errorf("move %v leads to an entry marked unreachable", moves[i])
		case c == 0:
			allLose = false
		case c < codeLoss:
			if !conv {
				step += int(c)
			}
			worstLoss = max(worstLoss, step)
		default:
			if !conv {
				step += int(c - codeLoss)
			}
			bestWin = min(bestWin, step)
			allLose = false
		}
		switch w {
		case wdlLoss:
			anyLossB = true
			allWinB = false
		case wdlDraw:
			allWinB = false
		}
	}
	a := uint8(0)
	switch {
	case bestWin <= limit:
		a = uint8(bestWin)
	case allLose && worstLoss <= limit:
		a = codeLoss + uint8(worstLoss)
	}
	bv := uint8(wdlDraw)
	switch {
	case anyLossB:
		bv = wdlWin
	case allWinB:
		bv = wdlLoss
	}
	return a, bv, nil
}

func codeText(c uint8) string {
	switch {
	case c == codeBroken:
		return "broken"
	case c == 0:
		return "draw"
	case c < codeLoss:
		return fmt.Sprintf("win in %d", c)
	}
	return fmt.Sprintf("loss in %d", c-codeLoss)
}

func wdlText(w uint8) string { return [...]string{"draw", "win", "loss", "broken"}[w] }
