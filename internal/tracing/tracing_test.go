package tracing

import (
	"strings"
	"testing"
)

// TestRedactedHidesPassword: whatever the endpoint's shape, a password in
// it never reaches a log line or an error (docs/deploy.md, Secrets).
func TestRedactedHidesPassword(t *testing.T) {
	for _, endpoint := range []string{
		"http://bob:S3cretPW@collector:4317",
		"https://bob:S3cretPW@collector:4317/v1/traces",
		"ftp://bob:S3cretPW@collector:4317",
		"//bob:S3cretPW@collector:4317",
		"bob:S3cretPW@collector:4317", // the scheme forgotten: bob: is taken as one
		"collector:S3cretPW@x",
		"http://bob:S3cret%zzPW@collector:4317",
		"http://bob:S3cretPW@[::1",
		" http://bob:S3cretPW@collector:4317",
	} {
		got := Redacted(endpoint)
		if strings.Contains(got, "S3cret") {
			t.Errorf("Redacted(%q) = %q: shows the password", endpoint, got)
		}
		if err := CheckEndpoint(endpoint); err != nil && strings.Contains(err.Error(), "S3cret") {
			t.Errorf("CheckEndpoint(%q) = %q: shows the password", endpoint, err)
		}
	}
	// What holds no password is shown as it is, to help find the mistake.
	for endpoint, want := range map[string]string{
		"http://collector:4317": "http://collector:4317",
		"collector:4317":        "collector:4317",
		"http://bob@collector":  "http://bob@collector",
	} {
		if got := Redacted(endpoint); got != want {
			t.Errorf("Redacted(%q) = %q, want %q", endpoint, got, want)
		}
	}
}
