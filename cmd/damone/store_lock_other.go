//go:build !unix

package main

// inUse cannot tell here; the backup then relies on the operator.
func inUse(string) (bool, error) { return false, nil }
