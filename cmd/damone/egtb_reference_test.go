package main

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/damone-rules/damone/internal/egtb"
)

// docs/tablebase-reference.md keeps `damone egtb stats` of the ≤ 5 set
// and its totals by size. CI cannot build ≤ 5, so this checks the part
// it can: every ≤ 3 table's row there is the row a ≤ 3 build prints, and
// the doc's totals for 2 and 3 pieces are the sums of those rows.
func TestTablebaseReferenceDocMatchesStats(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tablebase-reference.md")
	if err != nil {
		t.Fatal(err)
	}
	docRows := map[string]string{} // "win material" -> the row's figures
	totals := map[string]string{}  // "pieces win" -> the total's figures
	for _, line := range strings.Split(string(doc), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 9 && strings.HasPrefix(f[0], "capture-all-"):
			docRows[f[0]+" "+f[1]] = strings.Join(f[2:], " ")
		case len(f) == 19 && f[0] == "|" && strings.HasPrefix(f[3], "capture-all-"):
			var nums []string
			for _, x := range []string{f[5], f[7], f[9], f[11], f[13], f[15], f[17]} {
				nums = append(nums, strings.ReplaceAll(x, ",", ""))
			}
			totals[f[1]+" "+f[3]] = strings.Join(nums, " ")
		}
	}
	if len(docRows) < 435 || len(totals) < 8 {
		t.Fatalf("read %d table rows and %d totals from the doc, want 435 and 8", len(docRows), len(totals))
	}

	dir := t.TempDir()
	if err := egtb.Build(dir, egtb.Options{Pieces: 3, Threads: 2}); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := runEgtbStats([]string{dir}, &out); err != nil {
		t.Fatal(err)
	}
	sums := map[string][7]int64{}
	rows := 0
	for _, line := range strings.Split(out.String(), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) != 9 || f[0] == "all" {
			continue
		}
		rows++
		key := f[0] + " " + f[1]
		if got, want := strings.Join(f[2:], " "), docRows[key]; got != want {
			t.Errorf("%s: a <= 3 build prints %q, the doc says %q", key, got, want)
		}
		size := strconv.Itoa(len(f[1])-1) + " " + f[0]
		s := sums[size]
		for i := range 6 {
			v, _ := strconv.ParseInt(f[2+i], 10, 64)
			s[i] += v
		}
		v, _ := strconv.ParseInt(f[8], 10, 64)
		s[6] = max(s[6], v)
		sums[size] = s
	}
	if rows != 52 {
		t.Fatalf("the <= 3 build printed %d tables, want 52", rows)
	}
	for size, s := range sums {
		var parts []string
		for _, v := range s {
			parts = append(parts, strconv.FormatInt(v, 10))
		}
		if got, want := strings.Join(parts, " "), totals[size]; got != want {
			t.Errorf("totals for %s: the rows sum to %q, the doc says %q", size, got, want)
		}
	}
}
