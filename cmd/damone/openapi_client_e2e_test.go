package main

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenAPIClient: the documents the real binary serves validate with
// @apidevtools/swagger-parser (apart from kin-openapi, which the generator
// and internal/apidocs use), and a client generated from the OpenAPI 3
// one (openapi-typescript's types, openapi-fetch's calls; the npm packages
// of package-lock.json) type-checks and plays against the server
// (clients/openapi/client.ts). scripts/test-deps installs the packages.
func TestOpenAPIClient(t *testing.T) {
	s := svStart(t)
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := func(name string) string {
		p := filepath.Join(root, "node_modules", ".bin", name)
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("%s: run scripts/test-deps (npm ci)", p)
		}
		return p
	}
	out := filepath.Join(root, "build", "openapi-client")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	fetch := func(path, file string) string {
		resp, err := http.Get(s.url(path))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s: %d", path, resp.StatusCode)
		}
		p := filepath.Join(out, file)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	v2, v3 := fetch("/openapi/v2.json", "v2.json"), fetch("/openapi/v3.json", "v3.json")
	run := func(env []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), env...)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, b.String())
		}
		return b.String()
	}
	if got := run(nil, "node", "clients/openapi/validate.mjs", v2, v3); !strings.Contains(got, "valid Swagger 2.0") || !strings.Contains(got, "valid OpenAPI 3.0") {
		t.Fatalf("validate.mjs: %s", got)
	}
	run(nil, bin("openapi-typescript"), v3, "-o", filepath.Join(out, "damone.ts"))
	run(nil, bin("tsc"), "-p", "clients/openapi")
	got := run([]string{"DAMONE_HTTP=" + s.httpAddr}, "node", filepath.Join(out, "js", "clients", "openapi", "client.js"))
	if !strings.Contains(got, "openapi client: ok") {
		t.Fatalf("client: %s", got)
	}
}
