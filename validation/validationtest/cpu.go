package validationtest

import (
	"syscall"
	"testing"
	"time"
)

// ReportCPU reports the process's CPU time (user and system, every thread:
// the garbage collector's too) per op, as cpu-ns/op: on a machine other
// work shares, wall time per op grows with the load, CPU time much less
// (docs/performance.md). Call the function it returns after the loop.
func ReportCPU(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64((processCPU()-start).Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
