//go:build unix

package main

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lowerPriority gives process pid the lowest CPU priority (nice 19), so
// that serving always comes first.
func lowerPriority(pid int) error {
	return syscall.Setpriority(syscall.PRIO_PROCESS, pid, 19)
}

// lockDir takes the exclusive lock on the file at path, polling until it
// is free (calling waiting once if it is not) or ctx ends; unlock releases
// it.
func lockDir(ctx context.Context, path string, waiting func()) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	told := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			f.Close()
			return nil, err
		}
		if !told {
			waiting()
			told = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
