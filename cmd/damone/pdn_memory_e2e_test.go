//go:build linux

package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"syscall"
	"testing"
)

// pdnStreamGames are the games a generated stream cycles through, one of
// each verdict: a valid game with a long comment, a game illegal at its
// first ply (f3 holds a Red piece) followed by many more moves, a game of another GameType and a
// game that is not PDN of our dialect.
var pdnStreamGames = []string{
	"[Event \"valid %d\"]\n[Result \"*\"]\n\n1. e2-d3 b5-c4 2. d3xb5 a6xc4 {" + strings.Repeat("a comment that pads the game ", 30) + "} *\n\n",
	"[Event \"illegal %d\"]\n\n1. e2-f3" + strings.Repeat(" e2-d3 b5-c4", 60) + " *\n\n",
	"[Event \"intl %d\"]\n[GameType \"20\"]\n\n1. 32-28 19-23 2. 28x19 14x23 {[%%clock w0:10:00]} 2-0\n\n",
	"[Event \"broken %d\"]\n\n1. e2-d3 Nf3 *\n\n",
}

// writePdnStream writes games to w until at least size bytes are written
// and returns how many it wrote.
func writePdnStream(w io.Writer, size int64) (int, error) {
	bw := bufio.NewWriterSize(w, 64<<10)
	var n int64
	games := 0
	for n < size {
		k, err := fmt.Fprintf(bw, pdnStreamGames[games%len(pdnStreamGames)], games)
		if err != nil {
			return games, err
		}
		n += int64(k)
		games++
	}
	return games, bw.Flush()
}

// runPdnBinary runs the binary on a stream fed through a pipe (nothing
// is stored on disk) and returns its exit code, the last line of its
// output, its error output and its peak resident set size in bytes.
func runPdnBinary(tb testing.TB, feed func(io.Writer) error, args ...string) (int, string, string, int64) {
	tb.Helper()
	if svBin == "" {
		tb.Skip("the binary is built only without -short")
	}
	if svBuildErr != nil {
		tb.Fatal(svBuildErr)
	}
	cmd := exec.Command(svBin, append([]string{"pdn", "validate"}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stdin io.WriteCloser
	if feed != nil {
		if stdin, err = cmd.StdinPipe(); err != nil {
			tb.Fatal(err)
		}
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	fed := make(chan error, 1)
	if feed != nil {
		go func() {
			err := feed(stdin)
			stdin.Close()
			fed <- err
		}()
	}
	last := ""
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		last = sc.Text()
	}
	werr := cmd.Wait()
	code := 0
	if ee, ok := werr.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if werr != nil {
		tb.Fatal(werr)
	}
	if feed != nil {
		if err := <-fed; err != nil && code == 0 {
			tb.Fatalf("feeding the stream: %v", err)
		}
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // Linux reports kilobytes
	return code, last, stderr.String(), rss
}

// pdnSummary is the summary line the binary prints for a generated stream
// of games games: the four kinds come in turn (valid, illegal, another
// GameType, broken), so their counts follow from games alone.
func pdnSummary(games int) string {
	count := func(kind int) int { return (games + len(pdnStreamGames) - 1 - kind) / len(pdnStreamGames) }
	return fmt.Sprintf("1 file (0 unreadable), %d games: %d valid, %d invalid, %d unreadable",
		games, count(0), count(1), count(2)+count(3))
}

// pdnRSSBound is the most a validate run may hold, whatever the input's
// size: the Go runtime, the engine's tables, and one game of at most
// --max-game-bytes (1 MiB) with its moves.
const pdnRSSBound = 64 << 20

// A 50 MB stream through a pipe is judged game by game in bounded memory,
// and every game is counted.
func TestPdnValidateMemoryFlat(t *testing.T) {
	var games int
	code, last, stderr, rss := runPdnBinary(t, func(w io.Writer) (err error) {
		games, err = writePdnStream(w, 50<<20)
		return err
	}, "-")
	if code != 1 || last != pdnSummary(games) {
		t.Errorf("exit %d, last line %q, stderr %q; want 1 and %q", code, last, stderr, pdnSummary(games))
	}
	t.Logf("50 MB, %d games: peak RSS %.1f MiB", games, float64(rss)/(1<<20))
	if rss > pdnRSSBound {
		t.Errorf("peak RSS %d bytes, above the bound of %d", rss, pdnRSSBound)
	}
}

// One game just under the 1 MiB bound, illegal at its first ply, with
// 174,000 moves after it: what it reserves stays within the bound.
func TestPdnValidateLongIllegalGame(t *testing.T) {
	code, last, stderr, rss := runPdnBinary(t, func(w io.Writer) error {
		_, err := io.WriteString(w, "1. e2-f3"+strings.Repeat(" e2-d3", 174000)+" *\n")
		return err
	}, "-")
	if code != 1 || last != "1 file (0 unreadable), 1 game: 0 valid, 1 invalid, 0 unreadable" {
		t.Errorf("exit %d, last line %q, stderr %q", code, last, stderr)
	}
	if rss > pdnRSSBound {
		t.Errorf("peak RSS %d bytes, above the bound of %d", rss, pdnRSSBound)
	}
}

// /dev/zero and an endless game end with the limit's error, not a crash.
func TestPdnValidateEndlessInput(t *testing.T) {
	code, last, stderr, rss := runPdnBinary(t, nil, "/dev/zero")
	if code != 1 || !strings.Contains(stderr, "1 unreadable files") || strings.Contains(stderr, "fatal error") {
		t.Errorf("/dev/zero: exit %d, stderr %q", code, stderr)
	}
	if last != "1 file (1 unreadable), 0 games: 0 valid, 0 invalid, 0 unreadable" {
		t.Errorf("/dev/zero: last line %q", last)
	}
	if rss > pdnRSSBound {
		t.Errorf("/dev/zero: peak RSS %d bytes, above %d", rss, pdnRSSBound)
	}

	// An endless game on stdin, after one game; stopped by the reader, the
	// writer sees its pipe closed.
	code, last, stderr, rss = runPdnBinary(t, func(w io.Writer) error {
		if _, err := io.WriteString(w, "1. e2-d3 *\n"); err != nil {
			return err
		}
		chunk := []byte(strings.Repeat("e2-d3 d7-e6 ", 1000))
		for {
			if _, err := w.Write(chunk); err != nil {
				return nil // the reader stopped: what is wanted
			}
		}
	}, "--json", "-")
	if code != 1 || strings.Contains(stderr, "fatal error") {
		t.Errorf("endless stdin: exit %d, stderr %q", code, stderr)
	}
	if want := `{"kind":"summary","files":1,"unreadable_files":1,"games":1,"valid":1,"invalid":0,"unreadable":0}`; last != want {
		t.Errorf("endless stdin: last line %q, want %q", last, want)
	}
	if rss > pdnRSSBound {
		t.Errorf("endless stdin: peak RSS %d bytes, above %d", rss, pdnRSSBound)
	}
}

// Peak RSS of judging generated streams of 1 MB, 50 MB and 500 MB through
// a pipe, reported as peak-RSS-MiB: it must not grow with the input.
func BenchmarkPdnValidateRSS(b *testing.B) {
	for _, size := range []int64{1 << 20, 50 << 20, 500 << 20} {
		b.Run(fmt.Sprintf("%dMB", size>>20), func(b *testing.B) {
			b.SetBytes(size)
			var peak int64
			for i := 0; i < b.N; i++ {
				var games int
				code, last, stderr, rss := runPdnBinary(b, func(w io.Writer) (err error) {
					games, err = writePdnStream(w, size)
					return err
				}, "-")
				if code != 1 || last != pdnSummary(games) {
					b.Fatalf("exit %d, last line %q, stderr %q; want %q", code, last, stderr, pdnSummary(games))
				}
				peak = max(peak, rss)
			}
			b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		})
	}
}
