package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/damone-rules/damone/internal/cli"
	"github.com/damone-rules/damone/internal/filekind"
	"github.com/damone-rules/damone/internal/server"
	"github.com/damone-rules/damone/internal/store/bolt"
)

const storeUsage = `Usage: damone store verify|backup ...
  damone store verify [--data-dir DIR | --file FILE]
      check an embedded store file without writing to it
  damone store backup (--from http://HOST:PORT | --data-dir DIR) --out FILE|-
      write a verified copy: hot from a running server, or of a stopped store

Both exit 0 when the file is sound, 1 when it is damaged, in use or
unreachable, 2 on a usage mistake. docs/deploy.md (Backup and restore)
says what they check and how to restore. Run 'damone store verify --help'
or 'damone store backup --help' for their flags.`

func runStore(args []string, _ io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintln(stderr, storeUsage)
		return cli.Usagef("want a subcommand: verify or backup")
	}
	switch args[0] {
	case "verify":
		return cli.InSubcommand("verify", runStoreVerify(args[1:], stdout))
	case "backup":
		return cli.InSubcommand("backup", runStoreBackup(args[1:], stdout, stderr))
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(stdout, storeUsage)
		return flag.ErrHelp
	}
	return cli.Usagef("unknown subcommand %q (want verify or backup)", args[0])
}

func runStoreVerify(args []string, stdout io.Writer) error {
	fs := cli.NewFlags("store verify", stdout, `Usage: damone store verify [--data-dir DIR | --file FILE]

Checks an embedded store file without writing to it: its meta pages, its
size against their page count, every page of every bucket, bbolt's
consistency check, the schema version, and every game, event and request
record decoded and checked against its key and its game. Prints a summary
and exits 0 if the file is sound; names the file and the damage and exits
1 if not, or if a running damone serve holds the file (then check a hot
backup: damone store backup --from).`)
	dataDir := fs.String("data-dir", "./damone-data", "data directory whose "+bolt.FileName+" to check (as damone serve --data-dir)")
	file := fs.String("file", "", "check this store file instead, e.g. a backup")
	rest, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	path := filepath.Join(*dataDir, bolt.FileName)
	if *file != "" {
		if flagSet(fs.FlagSet, "data-dir") {
			return cli.Usagef("--file and --data-dir: give one")
		}
		path = *file
	}
	sum, err := bolt.Verify(path)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(stdout, "%s: sound: %s\n", path, describe(sum))
	return err
}

// describe summarizes a sound store file.
func describe(s bolt.Summary) string {
	return fmt.Sprintf("schema %s, %d games, %d events, %d requests; %d pages of %d bytes (%d free) in %d bytes, transaction %d",
		s.Schema, s.Games, s.Events, s.Requests, s.Pages, s.PageSize, s.FreePages, s.FileSize, s.TxID) + logNote(s)
}

func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func runStoreBackup(args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlags("store backup", stdout, `Usage: damone store backup (--from http://HOST:PORT | --data-dir DIR) --out FILE|-

Copies an embedded store to FILE. With --from, a hot backup from a
running damone serve: GET `+server.BackupPath+` on its metrics address, a
consistent snapshot taken while it serves. With --data-dir, the file of a
store no server is running on. The copy is written beside FILE, synced,
verified as damone store verify does, and only then renamed to FILE
(replacing an older one). FILE must be a new path or a regular file: a
symbolic link, a directory, a device or a named pipe is refused. With
--out -, the copy is verified in a temporary file, then written to
standard output, and the summary goes to standard error. Exits 0 with a
summary, 1 if --out is refused, the copy failed or is not sound (FILE is
then left as it was).`)
	from := fs.String("from", "", "metrics address of the running server: http://HOST:PORT (or HOST:PORT)")
	dataDir := fs.String("data-dir", "", "data directory of a store no server is running on")
	out := fs.String("out", "", "the backup file to write: a new path or a regular file (replaced); - for standard output")
	timeout := fs.Duration("timeout", 30*time.Minute, "give up on a --from backup after this long")
	rest, err := fs.ParseArgs(args)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return cli.Usagef("unexpected argument %q", rest[0])
	}
	switch {
	case (*from == "") == (*dataDir == ""):
		return cli.Usagef("give one of --from (a running server) and --data-dir (a stopped one)")
	case *out == "":
		return cli.Usagef("--out FILE is required")
	case *timeout <= 0:
		return cli.Usagef("--timeout must be positive, got %v", *timeout)
	}
	// An interrupt (Ctrl-C, SIGTERM) ends the copy through ctx, so the
	// temporary file is removed rather than left holding every game; with
	// SIGPIPE received here, a write to a closed pipe fails with EPIPE
	// instead of killing the process before it can clean up.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	defer signal.Stop(pipe)
	var fill func(w io.Writer) (int64, error)
	source := ""
	if *from != "" {
		u, err := backupURL(*from)
		if err != nil {
			return cli.Usagef("--from %q: %v", *from, err)
		}
		source = u
		fill = func(w io.Writer) (int64, error) { return fetchBackup(ctx, u, *timeout, w) }
	} else {
		source = filepath.Join(*dataDir, bolt.FileName)
		fill = func(w io.Writer) (int64, error) { return bolt.BackupFile(source, ctxWriter{ctx, w}) }
	}
	if *out == "-" {
		sum, err := streamVerified(ctx, stdout, fill)
		if err != nil {
			return fmt.Errorf("backup of %s to standard output: %w", source, err)
		}
		_, err = fmt.Fprintf(stderr, "standard output: backup of %s, verified: %s\n", source, describe(sum))
		return err
	}
	if err := checkOut(*out, *dataDir); err != nil {
		return err
	}
	sum, err := writeVerified(ctx, *out, fill)
	if err != nil {
		return fmt.Errorf("backup of %s: %w", source, err)
	}
	_, err = fmt.Fprintf(stdout, "%s: backup of %s, verified: %s\n", *out, source, describe(sum))
	return err
}

// outKind refuses a backup's --out that is anything but a new path or a
// regular file: renaming over a symbolic link, a device or a named pipe
// would replace it with a file holding every game (as root, /dev/null
// included), and opening a named pipe would wait for a reader.
func outKind(out string) error {
	info, err := os.Lstat(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	what := ""
	switch t := info.Mode().Type(); {
	case info.Mode().IsRegular():
		return nil
	case t&fs.ModeSymlink != 0:
		target, _ := os.Readlink(out)
		what = fmt.Sprintf("a symbolic link (to %s): give the file it names, or a new path", target)
	case t&fs.ModeDir != 0:
		what = "a directory: give a file's path, e.g. " + filepath.Join(out, "damone-backup.db")
	default:
		what = filekind.Of(info.Mode())
	}
	if !strings.Contains(what, ":") {
		what += ", not a regular file: a backup is written to a new path or over a regular file only (--out - writes it to standard output)"
	}
	return fmt.Errorf("--out %s is %s", out, what)
}

// checkOut refuses a backup's --out that would replace a store: the file
// of a running server (renaming over it would leave the server writing
// to a file with no name, and lose everything it acknowledges after), or
// the --data-dir store being copied.
func checkOut(out, dataDir string) error {
	if err := outKind(out); err != nil {
		return err
	}
	busy, err := inUse(out)
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	if busy {
		return fmt.Errorf("--out %s is in use by another process (the store of a running damone serve?): write the backup elsewhere", out)
	}
	if dataDir == "" {
		return nil
	}
	src, err1 := os.Stat(filepath.Join(dataDir, bolt.FileName))
	dst, err2 := os.Stat(out)
	if err1 == nil && err2 == nil && os.SameFile(src, dst) {
		return fmt.Errorf("--out %s is the store being copied (--data-dir %s): write the backup elsewhere", out, dataDir)
	}
	return nil
}

// backupURL is the backup endpoint of a metrics address given as
// http://HOST:PORT or HOST:PORT.
func backupURL(from string) (string, error) {
	if !strings.Contains(from, "://") {
		from = "http://" + from
	}
	u, err := url.Parse(from)
	if err != nil {
		return "", err
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("scheme %q: want http", u.Scheme)
	}
	if u.Host == "" || (u.Path != "" && u.Path != "/" && u.Path != server.BackupPath) {
		return "", errors.New("want the metrics address, http://HOST:PORT")
	}
	u.Path = server.BackupPath
	return u.String(), nil
}

// fetchBackup streams a hot backup into w; a short body (the server cut
// it, or the connection broke) is an error.
func fetchBackup(interrupt context.Context, u string, timeout time.Duration, w io.Writer) (int64, error) {
	ctx, cancel := context.WithTimeout(interrupt, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if interrupt.Err() != nil {
			return 0, errInterrupted
		}
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return 0, fmt.Errorf("%s: %s", resp.Status, firstLine(body))
	}
	if resp.ContentLength < 0 {
		return 0, errors.New("no Content-Length: not a damone backup endpoint")
	}
	n, err := io.Copy(w, resp.Body)
	if err == nil && n != resp.ContentLength {
		err = fmt.Errorf("%d of %d bytes", n, resp.ContentLength)
	}
	if err != nil {
		if interrupt.Err() != nil {
			return n, errInterrupted
		}
		return n, fmt.Errorf("the transfer broke off: %w", err)
	}
	return n, nil
}

// errInterrupted ends a backup that got SIGINT or SIGTERM.
var errInterrupted = errors.New("interrupted")

// ctxWriter fails once ctx, the backup's signal context, is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if c.ctx.Err() != nil {
		return 0, errInterrupted
	}
	return c.w.Write(p)
}

// firstLine is the start of an error body worth showing: its first line,
// at most 200 bytes (a web server's HTML page says nothing more useful).
func firstLine(b []byte) string {
	s, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

// streamVerified writes a store file to w: written by fill into a
// temporary file (in os.TempDir), verified, then copied to w. Nothing
// reaches w unless the copy is sound; the temporary file is removed.
func streamVerified(ctx context.Context, w io.Writer, fill func(io.Writer) (int64, error)) (bolt.Summary, error) {
	tmp, err := os.CreateTemp("", ".damone-backup-*.db")
	if err != nil {
		return bolt.Summary{}, err
	}
	name := tmp.Name()
	defer os.Remove(name)
	defer tmp.Close()
	n, err := fill(tmp)
	if err == nil && ctx.Err() != nil {
		err = errInterrupted
	}
	if err != nil {
		return bolt.Summary{}, err
	}
	sum, err := bolt.Verify(name)
	if err != nil {
		return bolt.Summary{}, fmt.Errorf("the copy (%d bytes) is not sound, so nothing was written: %w", n, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return bolt.Summary{}, err
	}
	if _, err := io.Copy(ctxWriter{ctx, w}, tmp); err != nil {
		return bolt.Summary{}, fmt.Errorf("writing to standard output: %w", err)
	}
	sum.Path = "-"
	return sum, nil
}

// writeVerified writes a store file to out through a temporary file beside
// it: written by fill, synced, verified, then renamed over out. Nothing is
// left behind on an error.
func writeVerified(ctx context.Context, out string, fill func(io.Writer) (int64, error)) (bolt.Summary, error) {
	dir, base := filepath.Split(out)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".part-*")
	if err != nil {
		return bolt.Summary{}, err
	}
	name := tmp.Name()
	defer os.Remove(name) // after the rename, there is nothing there
	n, err := fill(tmp)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return bolt.Summary{}, err
	}
	sum, err := bolt.Verify(name)
	if err != nil {
		return bolt.Summary{}, fmt.Errorf("the copy (%s bytes) is not sound, so %s was not written: %w", strconv.FormatInt(n, 10), out, err)
	}
	if ctx.Err() != nil {
		return bolt.Summary{}, fmt.Errorf("%w: %s was not written", errInterrupted, out)
	}
	if err := outKind(out); err != nil {
		return bolt.Summary{}, fmt.Errorf("%w (since the backup began): not replaced", err)
	}
	if busy, err := inUse(out); err != nil || busy {
		return bolt.Summary{}, fmt.Errorf("%s became in use by another process while the backup was written: not replaced", out)
	}
	if err := os.Rename(name, out); err != nil {
		return bolt.Summary{}, err
	}
	sum.Path = out
	if d, err := os.Open(dir); err == nil { // make the rename durable
		err = d.Sync()
		d.Close()
		if err != nil {
			return bolt.Summary{}, err
		}
	}
	return sum, nil
}

// logNote mentions the writes of a log beside the file that it does not
// hold yet.
func logNote(s bolt.Summary) string {
	if s.LogGroups == 0 {
		return ""
	}
	return fmt.Sprintf("; its write-ahead log holds %d more writes in %d groups, which the next start writes into it", s.LogWrites, s.LogGroups)
}
