package main

// End-to-end tests of what damone store backup writes to (--out) and of a
// named pipe where a store file should be (issue 24).

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/damone-rules/damone/internal/store/bolt"
)

// storeCLIWithin is storeCLI with a bound: a command that has not ended
// after 20 s is killed and the test fails, rather than hanging.
func storeCLIWithin(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, svBin, args...)
	cmd.Env = svEnv()
	cmd.WaitDelay = time.Second
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("damone %s has not ended after 20 s: it blocks", strings.Join(args, " "))
	}
	var exit *exec.ExitError
	switch {
	case err == nil:
		return out.String(), errOut.String(), 0
	case errors.As(err, &exit):
		return out.String(), errOut.String(), exit.ExitCode()
	}
	t.Fatal(err)
	return "", "", 0
}

// stoppedStore is a data directory holding a new, empty store.
func stoppedStore(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	s, err := bolt.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return dir
}

// store backup --out takes a new path or a regular file (replaced, for
// rotation), or - for standard output; anything else (a symbolic link, a
// directory, a named pipe, a device) is refused with exit 1 naming --out
// and what it is, and left as it was.
func TestBackupOutKinds(t *testing.T) {
	svSkip(t)
	src := stoppedStore(t)
	dir := t.TempDir()
	backup := func(out string) (string, string, int) {
		return storeCLIWithin(t, "store", "backup", "--data-dir", src, "--out", out)
	}

	target := filepath.Join(dir, "target.db")
	if err := os.WriteFile(target, []byte("not a backup"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.db")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.db")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o700); err != nil {
		t.Fatal(err)
	}
	refused := []struct{ out, says string }{
		{link, "--out " + link + " is a symbolic link (to " + target + ")"},
		{sub, "--out " + sub + " is a directory"},
		{fifo, "--out " + fifo + " is a named pipe (FIFO), not a regular file"},
	}
	// A device node of our own, as /dev/null is (the command ran as root
	// replaced /dev/null itself): only root can make one.
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, int(1<<8|3)); err == nil {
		refused = append(refused, struct{ out, says string }{null, "--out " + null + " is a character device, not a regular file"})
	} else {
		t.Logf("no device node (%v): the device case is left out", err)
	}
	for _, c := range refused {
		before, _ := os.Lstat(c.out)
		o, e, code := backup(c.out)
		if code != 1 || !strings.Contains(e, c.says) {
			t.Errorf("--out %s: exit %d, %q %q; want 1 saying %q", c.out, code, o, e, c.says)
		}
		after, err := os.Lstat(c.out)
		if err != nil || after.Mode() != before.Mode() || !os.SameFile(before, after) {
			t.Errorf("--out %s was changed: %v, %v", c.out, after, err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "not a backup" {
		t.Errorf("the symbolic link's target was changed: %q", b)
	}
	if entries, _ := os.ReadDir(sub); len(entries) != 0 {
		t.Errorf("the directory given as --out now holds %d entries", len(entries))
	}

	// A regular file is replaced (rotation), by a verified copy.
	o, e, code := backup(target)
	if code != 0 || !strings.Contains(o, target+": backup of "+filepath.Join(src, "damone.db")+", verified: schema damone-") {
		t.Fatalf("--out over a regular file: exit %d, %q %q; want 0 with the summary", code, o, e)
	}
	if o, e, c := storeCLIWithin(t, "store", "verify", "--file", target); c != 0 {
		t.Fatalf("the backup over a regular file: verify exit %d, %q %q", c, o, e)
	}

	// --out -: the copy on standard output, the summary on standard error.
	o, e, code = backup("-")
	if code != 0 || !strings.Contains(e, "standard output: backup of "+filepath.Join(src, "damone.db")+", verified: schema damone-") {
		t.Fatalf("--out -: exit %d, stderr %q; want 0 with the summary on stderr", code, e)
	}
	streamed := filepath.Join(t.TempDir(), "streamed.db")
	if err := os.WriteFile(streamed, []byte(o), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := bolt.Verify(streamed); err != nil {
		t.Fatalf("the store written to standard output (%d bytes) is not sound: %v", len(o), err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		t.Errorf("--out's directory holds %d entries, want the 5 made here (no temporary file left)", len(entries))
	}
}

// A named pipe as the store file is refused at once, naming it, by store
// verify (--file and --data-dir), store backup --data-dir and serve: none
// waits for a writer that never comes.
func TestNamedPipeAsStoreFile(t *testing.T) {
	svSkip(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "damone.db")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	want := path + " is a named pipe (FIFO), not a regular file"
	for _, args := range [][]string{
		{"store", "verify", "--file", path},
		{"store", "verify", "--data-dir", dir},
		{"store", "backup", "--data-dir", dir, "--out", filepath.Join(t.TempDir(), "b.db")},
		{"serve", "--store", "embedded", "--data-dir", dir, "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"},
	} {
		o, e, code := storeCLIWithin(t, args...)
		if code != 1 || !strings.Contains(e, want) {
			t.Errorf("damone %s: exit %d, %q %q; want 1 saying %q", strings.Join(args, " "), code, o, e, want)
		}
	}
	if fi, err := os.Lstat(path); err != nil || fi.Mode().Type() != os.ModeNamedPipe {
		t.Errorf("the named pipe after: %v, %v; want it left as it was", fi, err)
	}
}
