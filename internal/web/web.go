// Package web serves the board in the browser: one page, embedded in the
// binary, that creates, plays, watches and analyses games through the
// public REST API (docs/web.md). It knows no rules: legal moves, the
// judging of a move and the game's end all come from the server.
//
// Routes, for the REST port's mux:
//
//	GET /                 the page (new game, watch by name)
//	GET /games/{id}       the page, showing games/{id}
//	GET /assets/{hash}/F  the page's scripts, style and icon
//
// The page is HTML that loads same-origin files only; every answer carries
// a Content-Security-Policy that allows nothing else and no inline script.
// Assets are addressed by a hash of their content, so they are cached
// for a year and a new binary's page never mixes with an old one's files.
package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
)

//go:embed assets
var assets embed.FS

// ContentSecurityPolicy is sent with every answer of the page: scripts,
// styles, images and fetches from the page's own origin only, no inline
// script or style, no plugin, no framing, no form posting elsewhere.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// File is one embedded answer: its body, content type and entity tag, and
// its gzipped form, made once on first use (most clients accept gzip; a
// file nobody asks for costs nothing at start). Use NewFile.
type File struct {
	body        []byte
	contentType string
	etag        string
	once        sync.Once
	gz          []byte
}

// NewFile makes a File of body served as contentType; tag is the text of
// its entity tag (unquoted), e.g. a hash of its content.
func NewFile(body []byte, contentType, tag string) *File {
	return &File{body: body, contentType: contentType, etag: `"` + tag + `"`}
}

func (f *File) gzipped() []byte {
	f.once.Do(func() {
		var buf bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
		zw.Write(f.body)
		zw.Close()
		f.gz = buf.Bytes()
	})
	return f.gz
}

// Site serves the page and its assets. The zero value is not usable: use
// New.
type Site struct {
	page   *File
	files  map[string]*File // by name, under /assets/{hash}/
	prefix string           // "/assets/{hash}/"
}

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
}

// New reads the embedded files. The page's asset references
// ("/assets/_/…") are rewritten to the hashed prefix.
func New() (*Site, error) {
	sum := sha256.New()
	type asset struct {
		body        []byte
		contentType string
	}
	files := map[string]asset{}
	var page []byte
	err := fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		if name == "index.html" {
			page = b
			return nil
		}
		ct, ok := contentTypes[path.Ext(name)]
		if !ok {
			return fmt.Errorf("web: no content type for %s", name)
		}
		fmt.Fprintf(sum, "%s\x00%d\x00", name, len(b))
		sum.Write(b)
		files[name] = asset{b, ct}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if page == nil {
		return nil, fmt.Errorf("web: assets/index.html is missing")
	}
	hash := hex.EncodeToString(sum.Sum(nil))[:16]
	s := &Site{files: map[string]*File{}, prefix: "/assets/" + hash + "/"}
	for name, f := range files {
		s.files[name] = NewFile(f.body, f.contentType, hash)
	}
	page = bytes.ReplaceAll(page, []byte("/assets/_/"), []byte(s.prefix))
	// The page's own tag: its text changes without its assets too.
	pageSum := sha256.Sum256(page)
	s.page = NewFile(page, contentTypes[".html"], hex.EncodeToString(pageSum[:])[:16])
	return s, nil
}

// AssetPrefix is the path under which the assets are served now,
// "/assets/{hash}/".
func (s *Site) AssetPrefix() string { return s.prefix }

// Register adds the page's routes to mux.
func (s *Site) Register(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /games/{id}", s.servePage)
	mux.HandleFunc("GET /assets/{hash}/{name}", s.serveAsset)
}

// servePage answers with the page itself; the script reads the game from
// the path and a side's token from the fragment, which the browser never
// sends.
func (s *Site) servePage(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	// Revalidated each time, so a new binary's page (and asset hash) is
	// seen at once; the ETag makes that a 304.
	h.Set("Cache-Control", "no-cache")
	// The fragment never leaves the browser; no-referrer keeps the path
	// (a game's name) from leaving it too.
	h.Set("Referrer-Policy", "no-referrer")
	s.page.Serve(w, r)
}

func (s *Site) serveAsset(w http.ResponseWriter, r *http.Request) {
	f, ok := s.files[r.PathValue("name")]
	if !ok || "/assets/"+r.PathValue("hash")+"/" != s.prefix {
		// An old page's asset after an upgrade is gone too: its hash no
		// longer matches, and a reload fetches the new page.
		s.notFound(w)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	f.Serve(w, r)
}

func (s *Site) notFound(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusNotFound)
	w.Write([]byte("not found\n"))
}

// Serve answers r with f: the page's Content-Security-Policy and nosniff,
// a 304 when If-None-Match holds its tag, gzipped when the client accepts
// it, no body for HEAD. Callers set their caching headers first.
func (f *File) Serve(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Vary", "Accept-Encoding")
	// Each encoding is its own representation, with its own tag.
	body, etag := f.body, f.etag
	gz := acceptsGzip(r.Header.Get("Accept-Encoding"))
	if gz {
		body, etag = f.gzipped(), strings.TrimSuffix(f.etag, `"`)+`-gzip"`
	}
	h.Set("ETag", etag)
	if match := r.Header.Get("If-None-Match"); match == "*" || match != "" && strings.Contains(match, etag) {
		w.WriteHeader(http.StatusNotModified)
		return
	}
	if gz {
		h.Set("Content-Encoding", "gzip")
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	if r.Method == http.MethodHead {
		return
	}
	w.Write(body)
}

// acceptsGzip reports whether an Accept-Encoding value admits gzip (a
// "gzip;q=0" refuses it).
func acceptsGzip(v string) bool {
	for part := range strings.SplitSeq(v, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), "gzip") {
			continue
		}
		for param := range strings.SplitSeq(params, ";") {
			k, q, _ := strings.Cut(strings.TrimSpace(param), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				n, err := strconv.ParseFloat(strings.TrimSpace(q), 64)
				return err == nil && n > 0
			}
		}
		return true
	}
	return false
}
