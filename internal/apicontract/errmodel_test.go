package apicontract

// The error model as the documents state it, read from them (not copied):
// docs/api.md's error table (code and HTTP status of each reason, its
// metadata keys, the `limit` values) and its sentence on the codes
// without a reason, checked against the comments of error_reason.proto.
// The end-to-end tests assert what they read here.

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
)

// codeByName maps the canonical gRPC code names to codes.
var codeByName = map[string]codes.Code{
	"OK": codes.OK, "CANCELLED": codes.Canceled, "UNKNOWN": codes.Unknown, "INVALID_ARGUMENT": codes.InvalidArgument,
	"DEADLINE_EXCEEDED": codes.DeadlineExceeded, "NOT_FOUND": codes.NotFound, "ALREADY_EXISTS": codes.AlreadyExists,
	"PERMISSION_DENIED": codes.PermissionDenied, "RESOURCE_EXHAUSTED": codes.ResourceExhausted,
	"FAILED_PRECONDITION": codes.FailedPrecondition, "ABORTED": codes.Aborted, "OUT_OF_RANGE": codes.OutOfRange,
	"UNIMPLEMENTED": codes.Unimplemented, "INTERNAL": codes.Internal, "UNAVAILABLE": codes.Unavailable,
	"DATA_LOSS": codes.DataLoss, "UNAUTHENTICATED": codes.Unauthenticated,
}

// codeName is the canonical name of a code, e.g. INVALID_ARGUMENT.
func codeName(c codes.Code) string {
	for n, cc := range codeByName {
		if cc == c {
			return n
		}
	}
	return c.String()
}

// docReason is one reason of the error model.
type docReason struct {
	code        codes.Code
	http        int            // the HTTP status
	httpByLimit map[string]int // LIMIT_EXCEEDED: another status for a `limit`
	keys        []string       // metadata keys always present
	optional    []string       // metadata keys that may be present
	limits      []string       // LIMIT_EXCEEDED: the `limit` values
}

// errorModel is the error model of docs/api.md.
type errorModel struct {
	reasons   map[string]docReason // by reason, e.g. ILLEGAL_MOVE
	bareCodes map[codes.Code]int   // codes without a reason, and their HTTP status (0: none said)
}

var (
	backticked = regexp.MustCompile("`([^`]+)`")
	lowerWord  = regexp.MustCompile(`^[a-z][a-z_]*$`)
)

// loadErrorModel reads docs/api.md's Error model section.
func loadErrorModel(t *testing.T) errorModel {
	t.Helper()
	data, err := os.ReadFile(apiDocFile)
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Error model")
	if !ok {
		t.Fatalf("%s has no Error model section", apiDocFile)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	m := errorModel{reasons: map[string]docReason{}, bareCodes: map[codes.Code]int{}}
	codeCol := regexp.MustCompile("^`([A-Z_]+)` \\((\\d{3})(?:; (\\d{3}) for `([a-z_]+)`)?\\)$")
	for _, line := range strings.Split(section, "\n") {
		cols := strings.Split(strings.Trim(strings.TrimSpace(line), "|"), "|")
		if len(cols) != 4 || !strings.HasPrefix(strings.TrimSpace(cols[1]), "`") {
			continue
		}
		for i := range cols {
			cols[i] = strings.TrimSpace(cols[i])
		}
		cm := codeCol.FindStringSubmatch(cols[0])
		if cm == nil || codeByName[cm[1]] == 0 && cm[1] != "OK" {
			t.Fatalf("docs/api.md error table: code column %q is not `CODE` (HTTP)", cols[0])
		}
		reason := strings.Trim(cols[1], "`")
		r := docReason{code: codeByName[cm[1]], httpByLimit: map[string]int{}}
		r.http, _ = strconv.Atoi(cm[2])
		if cm[3] != "" {
			r.httpByLimit[cm[4]], _ = strconv.Atoi(cm[3])
		}
		// Metadata: the lower-case backticked words; "optional `x`".
		for _, loc := range backticked.FindAllStringSubmatchIndex(cols[3], -1) {
			word := cols[3][loc[2]:loc[3]]
			if !lowerWord.MatchString(word) {
				continue
			}
			if strings.HasSuffix(strings.TrimSpace(cols[3][:loc[0]]), "optional") {
				r.optional = append(r.optional, word)
			} else {
				r.keys = append(r.keys, word)
			}
		}
		if reason == "LIMIT_EXCEEDED" {
			for _, w := range backticked.FindAllStringSubmatch(cols[2], -1) {
				if lowerWord.MatchString(w[1]) {
					r.limits = append(r.limits, w[1])
				}
			}
		}
		if _, dup := m.reasons[reason]; dup {
			t.Fatalf("docs/api.md error table: %s twice", reason)
		}
		m.reasons[reason] = r
	}
	// "Other codes carry no reason of ours: `UNAVAILABLE` (503) ..."
	_, other, ok := strings.Cut(section, "Other codes carry no reason of ours:")
	if !ok {
		t.Fatal("docs/api.md, Error model: no sentence on the codes without a reason")
	}
	other, _, _ = strings.Cut(other, "\n\n")
	other = strings.Join(strings.Fields(other), " ")
	other, _, _ = strings.Cut(other, ". ")
	for _, c := range regexp.MustCompile("`([A-Z_]+)`(?: \\((\\d{3})\\))?").FindAllStringSubmatch(other, -1) {
		code, ok := codeByName[c[1]]
		if !ok {
			t.Fatalf("docs/api.md: %q is not a gRPC code", c[1])
		}
		m.bareCodes[code], _ = strconv.Atoi(c[2])
	}
	return m
}

// httpStatus is the HTTP status docs/api.md gives an error.
func (m errorModel) httpStatus(t *testing.T, code codes.Code, reason, limit string) int {
	t.Helper()
	if reason == "" {
		h, ok := m.bareCodes[code]
		if !ok || h == 0 {
			t.Fatalf("docs/api.md gives no HTTP status for %s without a reason", codeName(code))
		}
		return h
	}
	r, ok := m.reasons[reason]
	if !ok {
		t.Fatalf("reason %s is not in docs/api.md's error table", reason)
	}
	if h, ok := r.httpByLimit[limit]; ok {
		return h
	}
	return r.http
}

// checkMetadataKeys: the keys of an error's metadata are exactly those
// documented for its reason (the always-present ones, and optional ones).
func (m errorModel) checkMetadataKeys(t *testing.T, what, reason string, md map[string]string) {
	t.Helper()
	r := m.reasons[reason]
	for _, k := range r.keys {
		if _, ok := md[k]; !ok {
			t.Errorf("%s: %s metadata %v lacks the documented key %q", what, reason, md, k)
		}
	}
	for k := range md {
		if !slices.Contains(r.keys, k) && !slices.Contains(r.optional, k) {
			t.Errorf("%s: %s metadata key %q is not documented for it (keys %v, optional %v)", what, reason, k, r.keys, r.optional)
		}
	}
	if reason == "LIMIT_EXCEEDED" && !slices.Contains(r.limits, md["limit"]) {
		t.Errorf("%s: limit %q is not one docs/api.md lists (%v)", what, md["limit"], r.limits)
	}
}

// reasonComments reads each ErrorReason value's comment from
// error_reason.proto (the generated descriptors carry no comments).
func reasonComments(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile("../../proto/damone/v1/error_reason.proto")
	if err != nil {
		t.Fatal(err)
	}
	valueRE := regexp.MustCompile(`^ERROR_REASON_([A-Z_]+) = \d+;`)
	out := map[string]string{}
	var comment []string
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "//"):
			comment = append(comment, strings.TrimSpace(strings.TrimPrefix(line, "//")))
			continue
		case valueRE.MatchString(line):
			out[valueRE.FindStringSubmatch(line)[1]] = strings.Join(comment, " ")
		}
		comment = nil
	}
	return out
}

// TestErrorModelDocumentsAgree: docs/api.md's error table has a row for
// every ErrorReason (but UNSPECIFIED) and no other; each row's code is the
// one the reason's comment in error_reason.proto begins with; its metadata
// keys are the comment's ("Metadata: none" for none), and every lower-case
// name the comment's Metadata part gives is a key or a `limit` value of
// the row.
func TestErrorModelDocumentsAgree(t *testing.T) {
	m := loadErrorModel(t)
	comments := reasonComments(t)
	values := damonev1.ErrorReason(0).Descriptor().Values()
	if len(m.reasons) != values.Len()-1 {
		t.Errorf("docs/api.md's error table has %d reasons, the ErrorReason enum %d (UNSPECIFIED aside)", len(m.reasons), values.Len()-1)
	}
	for i := range values.Len() {
		if values.Get(i).Number() == 0 {
			continue
		}
		reason := strings.TrimPrefix(string(values.Get(i).Name()), "ERROR_REASON_")
		r, ok := m.reasons[reason]
		if !ok {
			t.Errorf("%s: no row in docs/api.md's error table", reason)
			continue
		}
		comment := comments[reason]
		if !strings.HasPrefix(comment, codeName(r.code)+" ") && !strings.HasPrefix(comment, codeName(r.code)+":") {
			t.Errorf("%s: docs/api.md says %s, error_reason.proto's comment begins %q", reason, codeName(r.code), comment[:min(40, len(comment))])
		}
		_, mdPart, ok := strings.Cut(comment, "Metadata:")
		if !ok {
			t.Errorf("%s: error_reason.proto's comment has no Metadata part", reason)
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(mdPart), "none") != (len(r.keys)+len(r.optional) == 0) {
			t.Errorf("%s: error_reason.proto says Metadata:%s; docs/api.md keys %v optional %v", reason, mdPart[:min(20, len(mdPart))], r.keys, r.optional)
		}
		for _, k := range append(slices.Clone(r.keys), r.optional...) {
			if !strings.Contains(mdPart, "`"+k+"`") {
				t.Errorf("%s: docs/api.md's metadata key %q is not in error_reason.proto's Metadata part", reason, k)
			}
		}
		for _, w := range backticked.FindAllStringSubmatch(mdPart, -1) {
			if lowerWord.MatchString(w[1]) && !slices.Contains(r.keys, w[1]) && !slices.Contains(r.optional, w[1]) && !slices.Contains(r.limits, w[1]) {
				t.Errorf("%s: error_reason.proto's Metadata names `%s`, which docs/api.md's row has as neither key nor limit", reason, w[1])
			}
		}
	}
	if len(m.bareCodes) == 0 {
		t.Error("docs/api.md names no code without a reason")
	}
}
