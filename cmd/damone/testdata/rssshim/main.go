// Command rssshim runs a program and writes its peak resident set size to
// a file: rssshim OUT PROGRAM ARGS... It exists because a child's
// ru_maxrss is at least its parent's high-water mark when the child was
// started with vfork (as Go starts children), so a big test process cannot
// measure a small child directly; this process stays small.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: rssshim OUT PROGRAM ARGS...")
		os.Exit(125)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		fmt.Fprintln(os.Stderr, "rssshim:", err)
		os.Exit(125)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss * 1024 // Linux reports kilobytes
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(rss, 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "rssshim:", err)
		os.Exit(125)
	}
	os.Exit(code)
}
