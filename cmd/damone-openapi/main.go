// Command damone-openapi finishes the API's OpenAPI documents after
// protoc-gen-openapiv2 (`make generate` runs it after buf):
//
//   - gen/openapiv2/damone.swagger.json gets the heartbeat line of the
//     idle WatchGame and AnalyzePosition streams in their stream envelope,
//     which the plugin's options cannot express;
//   - gen/openapiv3/damone.openapi.json is that document converted to
//     OpenAPI 3.0 (kin-openapi's openapi2conv), its stream routes' error
//     answers typed application/json and the side token an HTTP bearer
//     scheme;
//   - each directory gets an embed.go that holds its document for the
//     server (internal/apidocs);
//   - gen/swaggerui gets Swagger UI's script, style and licence from the
//     swagger-ui-dist npm package that package-lock.json pins, with an
//     embed.go, for the API reference page. The style's data: images
//     (icons) become files beside it (img-HASH.EXT), which the page's
//     CSP (img-src 'self') allows; nothing else is changed.
//
// Both documents are validated; a document that does not validate is an
// error and nothing is written.
//
// Usage: go run ./cmd/damone-openapi [-dir gen] [-swagger-ui node_modules/swagger-ui-dist]
package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi2"
	"github.com/getkin/kin-openapi/openapi2conv"
	"github.com/getkin/kin-openapi/openapi3"
)

// streams are the operations whose idle streams get heartbeats
// (internal/server, HeartbeatLine).
var streams = []string{"GameService_WatchGame", "AnalysisService_AnalyzePosition"}

const heartbeatDoc = "Sent instead of a result when the stream has been silent for the server's " +
	"--stream-heartbeat (15 s by default): always the empty object. It carries no result and " +
	"no sequence, so it moves no resume point; skip it."

const ndjson = "application/x-ndjson"

func main() {
	dir := flag.String("dir", "gen", "the generated code's directory")
	swaggerUI := flag.String("swagger-ui", "node_modules/swagger-ui-dist", "the swagger-ui-dist package's directory")
	flag.Parse()
	err := run(*dir)
	if err == nil {
		err = copySwaggerUI(*swaggerUI, filepath.Join(*dir, "swaggerui"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "damone-openapi:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	v2Path := filepath.Join(dir, "openapiv2", "damone.swagger.json")
	raw, err := os.ReadFile(v2Path)
	if err != nil {
		return err
	}
	var doc2 openapi2.T
	if err := json.Unmarshal(raw, &doc2); err != nil {
		return fmt.Errorf("%s: %w", v2Path, err)
	}
	if err := addHeartbeats(&doc2); err != nil {
		return fmt.Errorf("%s: %w", v2Path, err)
	}
	v2, err := marshal(&doc2)
	if err != nil {
		return err
	}
	// Converted from the written bytes, so the two documents cannot differ
	// by anything the conversion does not do.
	var again openapi2.T
	if err := json.Unmarshal(v2, &again); err != nil {
		return err
	}
	doc3, err := openapi2conv.ToV3(&again)
	if err != nil {
		return fmt.Errorf("convert to OpenAPI 3: %w", err)
	}
	fixV3(doc3)
	if err := doc3.Validate(context.Background()); err != nil {
		return fmt.Errorf("the OpenAPI 3 document does not validate: %w", err)
	}
	v3, err := marshal(doc3)
	if err != nil {
		return err
	}
	v3Dir := filepath.Join(dir, "openapiv3")
	if err := os.MkdirAll(v3Dir, 0o755); err != nil {
		return err
	}
	for _, f := range []struct{ path, body string }{
		{v2Path, string(v2)},
		{filepath.Join(dir, "openapiv2", "embed.go"), embedGo("openapiv2", "2.0", "damone.swagger.json")},
		{filepath.Join(v3Dir, "damone.openapi.json"), string(v3)},
		{filepath.Join(v3Dir, "embed.go"), embedGo("openapiv3", "3.0", "damone.openapi.json")},
	} {
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// addHeartbeats adds the heartbeat property to the stream envelope
// ({"result", "error"}) of each heartbeat stream's 200 answer.
func addHeartbeats(doc *openapi2.T) error {
	for _, id := range streams {
		op := findOp(doc, id)
		if op == nil {
			return fmt.Errorf("no operation %s", id)
		}
		r := op.Responses.Value("200")
		if r == nil || r.Schema == nil || r.Schema.Value == nil || r.Schema.Value.Properties["result"] == nil {
			return fmt.Errorf("%s: its 200 answer is not a stream envelope", id)
		}
		hb := &openapi2.SchemaRef{Value: &openapi2.Schema{
			Type: &openapi3.Types{"object"}, Description: heartbeatDoc, MaxProps: new(uint64),
		}}
		r.Schema.Value.Properties["heartbeat"] = hb
	}
	return nil
}

func findOp(doc *openapi2.T, id string) *openapi2.Operation {
	for _, item := range doc.Paths {
		for _, op := range item.Operations() {
			if op.OperationID == id {
				return op
			}
		}
	}
	return nil
}

// fixV3 corrects what the conversion cannot know: a stream refused before
// its first line answers the plain status JSON, not NDJSON; and the side
// token, an API key named Authorization in OpenAPI 2, is a bearer token.
func fixV3(doc *openapi3.T) {
	for _, item := range doc.Paths.Map() {
		for _, op := range item.Operations() {
			def := op.Responses.Default()
			if def == nil || def.Value == nil {
				continue
			}
			if mt := def.Value.Content.Get(ndjson); mt != nil {
				def.Value.Content = openapi3.NewContentWithJSONSchemaRef(mt.Schema)
			}
		}
	}
	if s := doc.Components.SecuritySchemes["SideToken"]; s != nil && s.Value != nil {
		desc := s.Value.Description
		s.Value = openapi3.NewSecurityScheme().WithType("http").WithScheme("bearer")
		s.Value.Description = desc
	}
}

func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func embedGo(pkg, version, file string) string {
	return fmt.Sprintf(`// Code generated by cmd/damone-openapi; DO NOT EDIT.

// Package %[1]s holds the damone API's OpenAPI %[2]s document, as served
// by the REST port (docs/api.md, OpenAPI).
package %[1]s

import _ "embed"

// Document is %[3]s: JSON.
//
//go:embed %[3]s
var Document []byte
`, pkg, version, file)
}

// swaggerUIFiles are the files of swagger-ui-dist the reference page
// needs, and its licence.
var swaggerUIFiles = []string{"swagger-ui-bundle.js", "swagger-ui.css", "LICENSE", "NOTICE"}

func copySwaggerUI(from, to string) error {
	var pkg struct{ Name, Version string }
	raw, err := os.ReadFile(filepath.Join(from, "package.json"))
	if err == nil {
		err = json.Unmarshal(raw, &pkg)
	}
	if err != nil || pkg.Name != "swagger-ui-dist" {
		return fmt.Errorf("%s is not the swagger-ui-dist package (run npm ci): %v", from, err)
	}
	if err := os.RemoveAll(to); err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, name := range swaggerUIFiles {
		b, err := os.ReadFile(filepath.Join(from, name))
		if err != nil {
			return err
		}
		if name == "swagger-ui.css" {
			if b, err = inlineImagesToFiles(b, to); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(to, name), b, 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(to, "embed.go"), []byte(fmt.Sprintf(`// Code generated by cmd/damone-openapi; DO NOT EDIT.

// Package swaggerui holds Swagger UI's script and style, as the npm
// package swagger-ui-dist %[1]s ships them (its LICENSE and NOTICE beside
// them), for the API reference page (internal/apidocs).
package swaggerui

import "embed"

// Version is swagger-ui-dist's version.
const Version = %[1]q

// Files holds swagger-ui-bundle.js, swagger-ui.css and the style's
// images (img-*).
//
//go:embed swagger-ui-bundle.js swagger-ui.css img-*
var Files embed.FS
`, pkg.Version)), 0o644)
}

// dataURL matches url("data:TYPE[;PARAM]...,DATA") (with \" escapes in
// DATA) and url(data:TYPE[;PARAM]...,DATA) in CSS.
var dataURL = regexp.MustCompile(`url\("data:([^;,"]+)((?:;[^;,"]+)*),((?:[^"\\]|\\.)*)"\)|url\(data:([^;,)]+)((?:;[^;,)]+)*),([^)]*)\)`)

var imageExt = map[string]string{"image/svg+xml": ".svg", "image/png": ".png", "image/jpeg": ".jpg"}

// inlineImagesToFiles writes each data: image of css to dir as
// img-HASH.EXT and points the rule at /docs/api/img-HASH.EXT.
func inlineImagesToFiles(css []byte, dir string) ([]byte, error) {
	var err error
	out := dataURL.ReplaceAllFunc(css, func(m []byte) []byte {
		sub := dataURL.FindSubmatch(m)
		typ, params, data := sub[1], sub[2], sub[3]
		if len(typ) == 0 {
			typ, params, data = sub[4], sub[5], sub[6]
		}
		ext, ok := imageExt[string(typ)]
		if !ok {
			err = fmt.Errorf("swagger-ui.css: a data: URL of type %s", typ)
			return m
		}
		var body []byte
		if strings.HasSuffix(string(params), ";base64") {
			body, err = base64.StdEncoding.DecodeString(string(data))
		} else {
			var text string
			text, err = url.PathUnescape(strings.ReplaceAll(string(data), `\"`, `"`))
			body = []byte(text)
		}
		if err != nil {
			return m
		}
		sum := sha256.Sum256(body)
		name := "img-" + hex.EncodeToString(sum[:])[:12] + ext
		if werr := os.WriteFile(filepath.Join(dir, name), body, 0o644); werr != nil {
			err = werr
		}
		return []byte("url(/docs/api/" + name + ")")
	})
	return out, err
}
