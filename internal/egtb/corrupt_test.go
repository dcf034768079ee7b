package egtb_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/damone-rules/damone/internal/egtb"
)

// copySet copies a built set into a fresh directory.
func copySet(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	es, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		data, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dst, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dst
}

// wantFileError asserts that Open refuses the set with an error naming
// the file.
func wantFileError(t *testing.T, dir, file, what string) {
	t.Helper()
	_, err := egtb.Open(dir)
	var fe *egtb.FileError
	if !errors.As(err, &fe) {
		t.Fatalf("%s: Open gave %v, want a *FileError", what, err)
	}
	if filepath.Base(fe.Path) != file || !strings.Contains(err.Error(), file) {
		t.Errorf("%s: error %q does not name %s", what, err, file)
	}
	rep, verr := egtb.Verify(dir, 10, nil)
	if verr == nil && rep.Errors == 0 {
		t.Errorf("%s: Verify found nothing wrong", what)
	}
}

const victim = "MDvP.pieces.dmtb"

// TestDamagedFilesAreRefused flips one byte in every part of a file
// (header, each section, the header checksum), truncates it, pads it, and
// replaces it with a foreign file: each is refused, naming the file.
func TestDamagedFilesAreRefused(t *testing.T) {
	ref := builtSet(t, 3, 80)
	size := fileSize(t, filepath.Join(ref, victim))
	for _, at := range []int64{0, 9, 10, 12, 15, 20, 21, 24, 40, 84, 90, 150, 190, 230, 256, 257, 270, size / 2, size - 1} {
		dir := copySet(t, ref)
		flipByte(t, filepath.Join(dir, victim), at)
		wantFileError(t, dir, victim, "byte "+itoa(at)+" flipped")
	}
	for _, n := range []int64{0, 100, 256, 270, size - 1} {
		dir := copySet(t, ref)
		if err := os.Truncate(filepath.Join(dir, victim), n); err != nil {
			t.Fatal(err)
		}
		wantFileError(t, dir, victim, "truncated to "+itoa(n))
	}
	dir := copySet(t, ref)
	f, _ := os.OpenFile(filepath.Join(dir, victim), os.O_APPEND|os.O_WRONLY, 0)
	f.Write([]byte{0})
	f.Close()
	wantFileError(t, dir, victim, "one byte appended")

	dir = copySet(t, ref)
	os.WriteFile(filepath.Join(dir, victim), []byte("PK\x03\x04 not a table at all"), 0o644)
	wantFileError(t, dir, victim, "foreign file")

	dir = copySet(t, ref)
	os.Remove(filepath.Join(dir, victim))
	wantFileError(t, dir, victim, "missing file")

	// Another table's file under this name: right format, wrong material.
	dir = copySet(t, ref)
	other, _ := os.ReadFile(filepath.Join(ref, "MPvD.pieces.dmtb"))
	os.WriteFile(filepath.Join(dir, victim), other, 0o644)
	fixManifest(t, dir, victim)
	wantFileError(t, dir, victim, "another material's file")

	// A table of the other win condition under this name.
	dir = copySet(t, ref)
	other, _ = os.ReadFile(filepath.Join(ref, "MvMP.damones.dmtb"))
	os.WriteFile(filepath.Join(dir, "MvMP.pieces.dmtb"), other, 0o644)
	fixManifest(t, dir, "MvMP.pieces.dmtb")
	wantFileError(t, dir, "MvMP.pieces.dmtb", "another win condition's file")

	// A set built for another no-progress limit under this manifest.
	dir = copySet(t, ref)
	other, _ = os.ReadFile(filepath.Join(builtSet(t, 3, 20), victim))
	os.WriteFile(filepath.Join(dir, victim), other, 0o644)
	fixManifest(t, dir, victim)
	wantFileError(t, dir, victim, "another limit's file")
}

// TestWrongValuesWithGoodChecksums: a file whose checksums were all made
// to match after its values were changed still never gives a wrong answer:
// an invalid code is refused on open, a valid but wrong one is caught by
// Verify's fixed point.
func TestWrongValuesWithGoodChecksums(t *testing.T) {
	ref := builtSet(t, 3, 80)
	dir := copySet(t, ref)
	reseal(t, dir, victim, func(v []byte) {
		v[firstCode(t, v, func(c byte) bool { return c >= 1 && c <= 80 })] = 100 // no such code at limit 80
	})
	wantFileError(t, dir, victim, "invalid code with good checksums")

	dir = copySet(t, ref)
	reseal(t, dir, victim, func(v []byte) {
		v[firstCode(t, v, func(c byte) bool { return c >= 2 && c <= 80 })]-- // a win, one ply too short
	})
	if _, err := egtb.Open(dir); err != nil {
		t.Fatalf("resealed file refused on open (%v); the test wants it to reach Verify", err)
	}
	rep, err := egtb.Verify(dir, 10, nil)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Errors == 0 || !strings.Contains(strings.Join(rep.First, "\n"), victim) {
		t.Errorf("Verify missed a wrong DTC: %d errors %v", rep.Errors, rep.First)
	}
	rep2, err := egtb.VerifyThreads(dir, 10, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, rep2) {
		t.Errorf("Verify with 2 threads: %+v, with 1: %+v", rep2, rep)
	}
}

// TestForgedBlocksAreRefused: blocks whose checksums were made to match
// but which decompress to too much, too little or the wrong values, and a
// file of another format version, are each refused, naming the file.
func TestForgedBlocksAreRefused(t *testing.T) {
	ref := builtSet(t, 3, 80)
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	for what, edit := range map[string]func([][]byte) [][]byte{
		// 2^16 entries per block (format.go): a frame of twice that.
		"a block that decompresses to more than a block": func(f [][]byte) [][]byte {
			f[0] = enc.EncodeAll(make([]byte, 2<<16), nil)
			return f
		},
		"a block that decompresses to fewer entries": func(f [][]byte) [][]byte {
			f[0] = enc.EncodeAll(make([]byte, 10), nil)
			return f
		},
		"a block of the right size with other values": func(f [][]byte) [][]byte {
			n := fileEntries(t, filepath.Join(ref, victim))
			f[0] = enc.EncodeAll(make([]byte, min(n, 1<<16)), nil) // every entry a draw
			return f
		},
		"a block that is not zstd":  func(f [][]byte) [][]byte { f[0] = []byte("not a zstd frame"); return f },
		"a block missing":           func(f [][]byte) [][]byte { return f[:len(f)-1] },
		"an empty block list":       func(f [][]byte) [][]byte { return nil },
		"a frame with a bad offset": func(f [][]byte) [][]byte { f[0] = append(f[0], 0); return f },
	} {
		dir := copySet(t, ref)
		path := filepath.Join(dir, victim)
		if err := egtb.ResealBlocksForTest(path, edit); err != nil {
			t.Fatal(err)
		}
		fixManifest(t, dir, victim)
		wantFileError(t, dir, victim, what)
	}
	dir := copySet(t, ref)
	path := filepath.Join(dir, victim)
	if err := egtb.ResealHeaderForTest(path, func(h []byte) { h[8], h[9] = 1, 0 }); err != nil {
		t.Fatal(err)
	}
	fixManifest(t, dir, victim)
	wantFileError(t, dir, victim, "format version 1")
	if _, err := egtb.Open(dir); err == nil || !strings.Contains(err.Error(), "format version 1") {
		t.Errorf("a version 1 file: Open gave %v, want it to name the version", err)
	}
}

// fileEntries reads a file's entry count (header offset 24).
func fileEntries(t *testing.T, path string) int {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return int(leU64(data[24:]))
}

func firstCode(t *testing.T, v []byte, ok func(byte) bool) int {
	for i, c := range v {
		if ok(c) {
			return i
		}
	}
	t.Fatal("no such code")
	return 0
}

// reseal rewrites a file's values with edit, every checksum made to match
// (its statistics are left alone), and its manifest entry.
func reseal(t *testing.T, dir, file string, edit func([]byte)) {
	t.Helper()
	if err := egtb.ResealValuesForTest(filepath.Join(dir, file), edit); err != nil {
		t.Fatal(err)
	}
	fixManifest(t, dir, file)
}

func leU64(b []byte) uint64 {
	var v uint64
	for i := 7; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	return v
}

// fixManifest makes the manifest's checksum of file match the file, so a
// test reaches the file's own checks.
func fixManifest(t *testing.T, dir, file string) {
	t.Helper()
	path := filepath.Join(dir, egtb.ManifestName)
	raw, _ := os.ReadFile(path)
	var m egtb.Manifest
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(filepath.Join(dir, file))
	sum := sha256.Sum256(data)
	for i := range m.Tables {
		if m.Tables[i].File == file {
			m.Tables[i].SHA256 = hex.EncodeToString(sum[:])
			m.Tables[i].Bytes = int64(len(data))
		}
	}
	out, _ := json.Marshal(&m)
	os.WriteFile(path, out, 0o644)
}

func TestDamagedManifestIsRefused(t *testing.T) {
	ref := builtSet(t, 3, 80)
	for what, edit := range map[string]func(string) string{
		"truncated":    func(s string) string { return s[:len(s)/2] },
		"other format": func(s string) string { return strings.Replace(s, `"damone-egtb"`, `"syzygy"`, 1) },
		"a table dropped": func(s string) string {
			return strings.Replace(s, `"file": "MDvP.pieces.dmtb"`, `"file": "MDvP.pieces.dmtx"`, 1)
		},
		"a checksum wrong":    func(s string) string { return strings.Replace(s, `"sha256": "`, `"sha256": "0`, 1) },
		"unknown field":       func(s string) string { return strings.Replace(s, `"pieces": 3`, `"pieces": 3, "x": 1`, 1) },
		"pieces out of range": func(s string) string { return strings.Replace(s, `"pieces": 3`, `"pieces": 9`, 1) },
	} {
		dir := copySet(t, ref)
		path := filepath.Join(dir, egtb.ManifestName)
		raw, _ := os.ReadFile(path)
		os.WriteFile(path, []byte(edit(string(raw))), 0o644)
		if _, err := egtb.Open(dir); err == nil || !strings.Contains(err.Error(), dir) {
			t.Errorf("%s manifest: Open gave %v, want an error naming the file", what, err)
		}
	}
}

func fileSize(t *testing.T, path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// A table file that cannot be put in place (here a directory holds its
// name) fails the build with an error naming it, and leaves no temporary
// file behind in the set's directory.
func TestBuildFailingRenameLeavesNoTemporary(t *testing.T) {
	dir := t.TempDir()
	blocker := filepath.Join(dir, "MvM.pieces.dmtb")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	err := egtb.Build(dir, egtb.Options{Pieces: 2})
	if err == nil || !strings.Contains(err.Error(), blocker) {
		t.Fatalf("Build into a directory whose table name is taken: %v; want an error naming %s", err, blocker)
	}
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".tmp-") {
			t.Errorf("%s left in the set's directory", e.Name())
		}
	}
}
