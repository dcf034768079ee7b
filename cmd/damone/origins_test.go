package main

import (
	"slices"
	"testing"
)

// TestParseOrigins: --cors-origins takes "*" or origins exactly as a
// browser sends them, scheme://host[:port]; anything else, a wildcard
// inside a host or a port beyond 65535 included, is refused rather than
// given to the CORS library to read its own way.
func TestParseOrigins(t *testing.T) {
	for in, want := range map[string][]string{
		"":                          nil,
		"*":                         {"*"},
		"https://board.example.org": {"https://board.example.org"},
		"http://a.example:8080, http://b.example": {"http://a.example:8080", "http://b.example"},
		"http://[::1]:3000":                       {"http://[::1]:3000"},
	} {
		got, err := parseOrigins(in)
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("parseOrigins(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"foo", "ftp://a.example", "http://a.example/", "http://a.example,",
		"http://*.a.example", "https://*", "http://a.example:99999", "http://a.example:0", "http://a.example:",
		"http://user@a.example"} {
		if got, err := parseOrigins(in); err == nil {
			t.Errorf("parseOrigins(%q) = %q; want an error", in, got)
		}
	}
}
