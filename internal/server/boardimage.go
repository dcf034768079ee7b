package server

import (
	"bytes"
	"net/http"
	"strconv"

	"github.com/damone-rules/damone/internal/boardsvg"
	"github.com/damone-rules/damone/internal/engine"
)

// BoardImagePath is the REST route that draws a position as an SVG image
// (docs/api.md, Board images).
const BoardImagePath = "/board.svg"

// boardImageHandler serves GET (and HEAD) /board.svg?position=TEXT
// [&flip=true|false|1|0][&size=PIXELS][&last_move=MOVE]: the position
// drawn by internal/boardsvg. A bad parameter is 400 INVALID_ARGUMENT in
// the gateway's error model, its field violation naming the parameter;
// another method is the gateway's 405 METHOD_NOT_ALLOWED.
func boardImageHandler(bs *bodies) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			bs.routeError(w, r, http.StatusMethodNotAllowed)
			return
		}
		q := r.URL.Query()
		bad := func(field, msg string) { bs.answer(w, r, invalidStatus(field, msg)) }
		if len(q["position"]) != 1 || q.Get("position") == "" {
			bad("position", "give the position once, in the text form of docs/notation.md (e.g. R:RMh1:BMa8:0)")
			return
		}
		pos, err := engine.ParsePosition(q.Get("position"))
		if err != nil {
			bad("position", err.Error())
			return
		}
		var opts boardsvg.Options
		if v, ok := q["flip"]; ok {
			switch {
			case len(v) == 1 && (v[0] == "true" || v[0] == "1"):
				opts.Flip = true
			case len(v) == 1 && (v[0] == "false" || v[0] == "0"):
			default:
				bad("flip", "want true, false, 1 or 0, once; got "+engine.Quote(q.Get("flip")))
				return
			}
		}
		if v, ok := q["size"]; ok {
			n, err := strconv.Atoi(q.Get("size"))
			if len(v) != 1 || err != nil || n < boardsvg.MinSize || n > boardsvg.MaxSize {
				bad("size", "want a whole number of pixels from "+strconv.Itoa(boardsvg.MinSize)+" to "+
					strconv.Itoa(boardsvg.MaxSize)+", once; got "+engine.Quote(q.Get("size")))
				return
			}
			opts.Size = n
		}
		if v, ok := q["last_move"]; ok {
			if len(v) != 1 {
				bad("last_move", "give the last move once")
				return
			}
			m, err := boardsvg.ParseMove(v[0])
			if err != nil {
				bad("last_move", err.Error())
				return
			}
			opts.LastMove = &m
		}
		var buf bytes.Buffer
		if err := boardsvg.Render(&buf, pos, opts); err != nil {
			bs.answer(w, r, toStatus(err))
			return
		}
		h := w.Header()
		h.Set("Content-Type", "image/svg+xml")
		// The image depends on the query alone.
		h.Set("Cache-Control", "public, max-age=86400, immutable")
		// Opened on its own, the image may run nothing and fetch nothing.
		h.Set("Content-Security-Policy", "default-src 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Length", strconv.Itoa(buf.Len()))
		w.WriteHeader(http.StatusOK)
		if r.Method != http.MethodHead {
			w.Write(buf.Bytes()) //nolint:errcheck // the client went away
		}
	})
}
