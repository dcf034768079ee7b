//go:build !unix

package main

import "context"

// lowerPriority is a no-op where there is no nice.
func lowerPriority(int) error { return nil }

// lockDir takes no lock where there is no flock: two servers sharing a
// default set's directory both build it (the same bytes, written
// atomically).
func lockDir(context.Context, string, func()) (func(), error) { return func() {}, nil }
