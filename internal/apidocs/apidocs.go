// Package apidocs serves the API's description on the REST port: the
// OpenAPI documents of gen/openapiv2 and gen/openapiv3, and an API
// reference page that renders the OpenAPI 3 one with Swagger UI
// (gen/swaggerui, from the swagger-ui-dist npm package), all embedded in
// the binary (docs/api.md, OpenAPI).
//
// Routes, for the REST port's mux:
//
//	GET /openapi/v2.json    the OpenAPI 2.0 (Swagger) document
//	GET /openapi/v3.json    the OpenAPI 3.0 document
//	GET /docs/api           the reference page
//	GET /docs/api/{file}    its script, style and icon
//
// The page answers carry the board page's Content-Security-Policy
// (internal/web): same-origin scripts, styles, images and fetches only.
package apidocs

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"net/http"
	"path"

	"github.com/damone-rules/damone/gen/openapiv2"
	"github.com/damone-rules/damone/gen/openapiv3"
	"github.com/damone-rules/damone/gen/swaggerui"
	"github.com/damone-rules/damone/internal/web"
)

//go:embed assets
var assets embed.FS

// Paths of the documents and the page.
const (
	V2Path   = "/openapi/v2.json"
	V3Path   = "/openapi/v3.json"
	PagePath = "/docs/api"
)

var contentTypes = map[string]string{
	".html": "text/html; charset=utf-8",
	".js":   "text/javascript; charset=utf-8",
	".css":  "text/css; charset=utf-8",
	".svg":  "image/svg+xml",
	".json": "application/json",
	".png":  "image/png",
	".jpg":  "image/jpeg",
}

func newFile(name string, body []byte) *web.File {
	sum := sha256.Sum256(body)
	return web.NewFile(body, contentTypes[path.Ext(name)], hex.EncodeToString(sum[:])[:16])
}

// Handler serves the documents and, if page, the reference page.
type Handler struct {
	docs  map[string]*web.File // by path
	files map[string]*web.File // the page's, by name under PagePath
	page  *web.File
}

// New reads the embedded documents and page.
func New(page bool) (*Handler, error) {
	h := &Handler{docs: map[string]*web.File{
		V2Path: newFile(V2Path, openapiv2.Document),
		V3Path: newFile(V3Path, openapiv3.Document),
	}}
	if !page {
		return h, nil
	}
	h.files = map[string]*web.File{}
	// Swagger UI's script, style and the style's images.
	entries, err := swaggerui.Files.ReadDir(".")
	if err != nil {
		return nil, fmt.Errorf("apidocs: %w", err)
	}
	for _, e := range entries {
		b, err := swaggerui.Files.ReadFile(e.Name())
		if err != nil {
			return nil, fmt.Errorf("apidocs: %w", err)
		}
		if contentTypes[path.Ext(e.Name())] == "" {
			return nil, fmt.Errorf("apidocs: no content type for %s", e.Name())
		}
		h.files[e.Name()] = newFile(e.Name(), b)
	}
	for _, name := range []string{"index.html", "reference.js", "icon.svg"} {
		b, err := assets.ReadFile("assets/" + name)
		if err != nil {
			return nil, fmt.Errorf("apidocs: %w", err)
		}
		if name == "index.html" {
			h.page = newFile(name, b)
		} else {
			h.files[name] = newFile(name, b)
		}
	}
	return h, nil
}

// Register adds the routes to mux.
func (h *Handler) Register(mux *http.ServeMux) {
	for p, f := range h.docs {
		mux.HandleFunc("GET "+p, func(w http.ResponseWriter, r *http.Request) {
			// Readable by API tools on other origins (an editor, a
			// generator running in a browser); it holds nothing secret.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			write(w, r, f)
		})
	}
	if h.page == nil {
		return
	}
	mux.HandleFunc("GET "+PagePath, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Referrer-Policy", "no-referrer")
		write(w, r, h.page)
	})
	mux.HandleFunc("GET "+PagePath+"/{name}", func(w http.ResponseWriter, r *http.Request) {
		f, ok := h.files[r.PathValue("name")]
		if !ok {
			w.Header().Set("Content-Security-Policy", web.ContentSecurityPolicy)
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		write(w, r, f)
	})
}

// write serves f revalidated each time, so a new binary's document is
// seen at once; the ETag makes that a 304.
func write(w http.ResponseWriter, r *http.Request, f *web.File) {
	w.Header().Set("Cache-Control", "no-cache")
	f.Serve(w, r)
}
