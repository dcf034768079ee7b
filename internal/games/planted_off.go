//go:build !faultinject

package games

// The production build carries no planted bug: these are constant no-ops
// the compiler removes (planted_faultinject.go has the bugs the fault
// test must catch).

func planted(string) bool { return false }

func plantedStaleGet(string) (*Game, bool) { return nil, false }

func plantedStalePut(*Game) {}
