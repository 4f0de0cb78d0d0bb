package localcluster

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// TestMakeRunCtrlC types Ctrl-C into `make run` on a terminal (a
// pseudo-terminal) and checks that make exits 0 having printed only the
// progress lines and the instructions. GNU make ends with SIGINT itself
// (exit 130) once SIGINT reaches it, so this passes only while hack/run
// keeps Ctrl-C to itself.
func TestMakeRunCtrlC(t *testing.T) {
	root := runPrerequisites(t)
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("no make on PATH")
	}
	tty, term, err := openPTY()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer tty.Close()
	dir := t.TempDir()
	cmd := exec.Command("make", "--no-print-directory", "run", "RUN_FLAGS=-dir="+dir)
	cmd.Dir = root
	// Not a sub-make of a `make test` that may have started this test.
	cmd.Env = append(os.Environ(), "MAKEFLAGS=", "MFLAGS=", "MAKELEVEL=")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = term, term, term
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		term.Close()
		t.Fatal(err)
	}
	term.Close()
	out := &syncBuffer{}
	read := make(chan struct{})
	go func() {
		defer close(read)
		buf := make([]byte, 4096)
		for {
			n, err := tty.Read(buf)
			_, _ = out.Write(buf[:n])
			if err != nil {
				return // EIO once every process has closed the terminal
			}
		}
	}()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// After a failure: closing the terminal hangs up its foreground group,
	// and hack/run stops everything on SIGHUP.
	t.Cleanup(func() { tty.Close(); _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })

	waitForOutput(t, out, done, runLastLine, 10*time.Minute)
	if _, err := tty.Write([]byte{0x03}); err != nil { // Ctrl-C
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("make run after Ctrl-C: %v, want exit status 0\n--- output:\n%s", err, out.String())
		}
	case <-time.After(2 * time.Minute):
		t.Fatalf("make run still running 2m after Ctrl-C\n--- output:\n%s", out.String())
	}
	select { // the output up to the end
	case <-read:
	case <-time.After(10 * time.Second):
		t.Error("the terminal is still open 10s after make exited")
	}
	checkRunOutput(t, out.String(), []string{`compiling \./hack/run and the webhook`}, filepath.Join(dir, "run.log"))
	checkRunLog(t, filepath.Join(dir, "run.log"))
}

// openPTY opens a pseudo-terminal: the controlling side (tty) and the
// terminal a program runs on (term).
func openPTY() (tty, term *os.File, err error) {
	tty, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fd := tty.Fd()
	var unlock int32
	var n uint32
	if err := ioctl(fd, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		tty.Close()
		return nil, nil, fmt.Errorf("unlocking the pseudo-terminal: %w", err)
	}
	if err := ioctl(fd, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		tty.Close()
		return nil, nil, fmt.Errorf("numbering the pseudo-terminal: %w", err)
	}
	term, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		tty.Close()
		return nil, nil, err
	}
	return tty, term, nil
}

func ioctl(fd, req uintptr, arg unsafe.Pointer) error {
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, req, uintptr(arg)); errno != 0 {
		return errno
	}
	return nil
}
