package k8s_test

// The Dockerfile is not built here (no Docker engine on the project's
// machines), so these checks hold it to what the manifests and the
// Makefile assume.

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/damone-rules/damone/k8s"
)

func readRootFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(filepath.Dir(k8s.Dir()), name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// instructions returns the Dockerfile's instructions as [KEYWORD, rest].
func instructions(dockerfile string) [][2]string {
	var out [][2]string
	for _, line := range strings.Split(dockerfile, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kw, rest, _ := strings.Cut(line, " ")
		out = append(out, [2]string{strings.ToUpper(kw), strings.TrimSpace(rest)})
	}
	return out
}

// imageEgtbDir is where the image holds its endgame tables, the
// manifests' DAMONE_EGTB_DIR.
const imageEgtbDir = "/egtb"

func TestDockerfile(t *testing.T) {
	ins := instructions(readRootFile(t, "Dockerfile"))
	var froms []string
	var user, entrypoint, cmd, label string
	var runs, copies []string
	for _, in := range ins {
		switch in[0] {
		case "FROM":
			froms = append(froms, in[1])
			user, entrypoint, cmd, label = "", "", "", "" // per stage: keep the final stage's
			copies = nil
		case "COPY":
			copies = append(copies, in[1])
		case "LABEL":
			label = in[1]
		case "USER":
			user = in[1]
		case "ENTRYPOINT":
			entrypoint = in[1]
		case "CMD":
			cmd = in[1]
		case "RUN":
			runs = append(runs, in[1])
		}
	}
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got FROM %v", froms)
	}
	final := froms[len(froms)-1]
	if !regexp.MustCompile(`^gcr\.io/distroless/static-debian\d+:nonroot@sha256:[0-9a-f]{64}$`).MatchString(final) {
		t.Errorf("final stage FROM %q: want distroless static nonroot pinned by digest", final)
	}
	if !strings.Contains(strings.Join(runs, "\n"), `make build VERSION="${VERSION}"`) {
		t.Errorf("the build stage does not run `make build` with the VERSION build-arg: the image would not hold the binary make build makes")
	}
	// The image says the version its binary prints (docs/releases.md).
	if label != `org.opencontainers.image.version="${VERSION}"` {
		t.Errorf("final stage LABEL %q: want org.opencontainers.image.version=\"${VERSION}\", the VERSION build-arg", label)
	}
	if entrypoint != `["/damone"]` || cmd != `["serve"]` {
		t.Errorf("ENTRYPOINT %s CMD %s: want [\"/damone\"] and [\"serve\"] (the manifests pass args [serve])", entrypoint, cmd)
	}

	// The endgame tables the manifests read (DAMONE_EGTB_DIR) are built,
	// checked and copied into the final stage.
	allRuns := strings.Join(runs, "\n")
	if !slices.Contains(copies, "--from=build /out/egtb "+imageEgtbDir) ||
		!strings.Contains(allRuns, "egtb build --pieces 4") || !strings.Contains(allRuns, "--out /out/egtb") || !strings.Contains(allRuns, "egtb verify --quiet /out/egtb") {
		t.Errorf("the image does not build, verify and hold the endgame tables at %s (COPY %v)", imageEgtbDir, copies)
	}

	// The numeric USER is what every pod runs as.
	uid, gid, ok := strings.Cut(user, ":")
	u, errU := strconv.ParseInt(uid, 10, 64)
	g, errG := strconv.ParseInt(gid, 10, 64)
	if !ok || errU != nil || errG != nil || u == 0 {
		t.Fatalf("USER %q: want a numeric non-root uid:gid", user)
	}
	for _, o := range renderedOverlays(t, k8s.Dir()) {
		for _, d := range o.deployments {
			sc := d.Spec.Template.Spec.SecurityContext
			if sc == nil || sc.RunAsUser == nil || *sc.RunAsUser != u || sc.RunAsGroup == nil || *sc.RunAsGroup != g {
				t.Errorf("%s: Deployment/%s does not run as the image's USER %s", o.overlay, d.Name, user)
			}
		}
	}
}

func TestDockerignore(t *testing.T) {
	ignored := map[string]bool{}
	for _, line := range strings.Split(readRootFile(t, ".dockerignore"), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			ignored[line] = true
		}
	}
	for _, want := range []string{".git", "bin/"} {
		if !ignored[want] {
			t.Errorf(".dockerignore does not leave out %s", want)
		}
	}
	for _, need := range []string{"go.mod", "go.sum", "Makefile", "cmd/", "internal/", "gen/", "*.go", "**/*.go"} {
		if ignored[need] {
			t.Errorf(".dockerignore leaves out %s, which make build needs", need)
		}
	}
}
