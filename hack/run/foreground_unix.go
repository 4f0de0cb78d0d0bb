//go:build linux || darwin

package main

import (
	"os"
	"os/signal"
	"syscall"
	"unsafe"
)

// foreground moves this process into a process group of its own and makes
// that the terminal's foreground group, so that Ctrl-C interrupts this
// process (and the children it starts) but not the make or go command that
// started it: both end non-zero once SIGINT reaches them, whatever this
// process then does. GNU make re-raises SIGINT on itself (exit 130), and go
// run exits 1 after an interrupt (golang/go#40467). Ctrl-Z is ignored: it
// would stop this group alone, and the shell, which waits for make, would
// never hand the terminal back.
//
// It does nothing when stdin is not a terminal or this process is not in its
// foreground group (started in the background, or by a test). The returned
// function gives the terminal back to the group that had it.
func foreground() (restore func()) {
	noop := func() {}
	tty := int(os.Stdin.Fd())
	fg, err := tcgetpgrp(tty)
	if err != nil || fg != syscall.Getpgrp() {
		return noop
	}
	// A process outside the foreground group that sets it is sent SIGTTOU,
	// which would stop it.
	signal.Ignore(syscall.SIGTTOU)
	defer signal.Reset(syscall.SIGTTOU)
	if err := syscall.Setpgid(0, 0); err != nil {
		return noop
	}
	if err := tcsetpgrp(tty, syscall.Getpgrp()); err != nil {
		_ = syscall.Setpgid(0, fg) // back where Ctrl-C reaches
		return noop
	}
	signal.Ignore(syscall.SIGTSTP)
	return func() {
		signal.Ignore(syscall.SIGTTOU)
		_ = tcsetpgrp(tty, fg)
	}
}

func tcgetpgrp(fd int) (int, error) {
	var pgrp int32
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCGPGRP), uintptr(unsafe.Pointer(&pgrp))); errno != 0 {
		return 0, errno
	}
	return int(pgrp), nil
}

func tcsetpgrp(fd, pgrp int) error {
	p := int32(pgrp)
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), uintptr(syscall.TIOCSPGRP), uintptr(unsafe.Pointer(&p))); errno != 0 {
		return errno
	}
	return nil
}
