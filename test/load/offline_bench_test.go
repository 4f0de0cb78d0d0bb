package main

import (
	"io"
	"strconv"
	"testing"

	"github.com/airlock/listenerset-webhook/offline"
	offlinereport "github.com/airlock/listenerset-webhook/offline/report"
	"github.com/airlock/listenerset-webhook/test/testproc"
)

// BenchmarkOfflineScale is the offline scale figure's command in process:
// `validate -f DIR` of one Gateway shared by n ListenerSets
// (writeOfflineScale's directory, 4 listeners each, no conflicts), for a CPU
// profile (-cpuprofile) of where a set's time goes, at 1 000 sets (make
// bench runs it). The target (10 000 sets in <= 10 s) is the binary's,
// -offline-scale; here ms/set is wall time and cpu-ms/set the process's CPU
// time (every core, the garbage collector's too) per ListenerSet.
func BenchmarkOfflineScale(b *testing.B) {
	for _, n := range []int{1000} {
		b.Run("sets="+strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			if err := writeOfflineScale(dir, n, *offlineNamespaces); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			cpu := testproc.CPUTime()
			for b.Loop() {
				if code := offline.Validate([]string{dir}, offline.Options{Stdout: io.Discard, Stderr: io.Discard}); code != offlinereport.ExitValid {
					b.Fatalf("exit %d, want %d: the input has no conflict", code, offlinereport.ExitValid)
				}
			}
			sets := float64(b.N * n)
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/sets, "ms/set")
			b.ReportMetric(float64((testproc.CPUTime()-cpu).Milliseconds())/sets, "cpu-ms/set")
		})
	}
}
