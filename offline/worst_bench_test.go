package offline_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"

	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/offline"
	"github.com/airlock/listenerset-webhook/test/testproc"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkValidateWorst is `validate -f FILE` in process on each worst
// object the CRD admits (validationtest.WorstShapes at 64 listeners, the
// files hack/worst writes), as YAML and as JSON: the whole command but its
// start (reading, kube-apiserver's part, the verdict, the text report).
// The target is for the binary (<= 1 s, <= 128 MiB, a text report of
// <= 256 KiB; docs/performance.md); this shows where the time and the
// allocations go, and the report's bytes; cpu-ns/op is the process's CPU
// time (every core, the garbage collector's too).
func BenchmarkValidateWorst(b *testing.B) {
	dir := b.TempDir()
	for _, s := range validationtest.WorstShapes {
		if s.Update != nil {
			continue // an update needs a stored object: the webhook's figure
		}
		ls := s.Build(validation.MaxListeners)
		for _, f := range []struct {
			ext     string
			marshal func(any) ([]byte, error)
		}{{".yaml", yaml.Marshal}, {".json", json.Marshal}} {
			data, err := f.marshal(ls)
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(dir, s.Name+f.ext)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			b.Run(s.Name+f.ext, func(b *testing.B) {
				b.ReportAllocs()
				var out countingWriter
				cpu := testproc.CPUTime()
				for b.Loop() {
					out = countingWriter{}
					offline.Validate([]string{path}, offline.Options{Stdout: &out, Stderr: &out})
				}
				b.ReportMetric(float64((testproc.CPUTime()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(len(data)), "input-bytes")
				b.ReportMetric(float64(out.n), "report-bytes")
			})
		}
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += len(p); return len(p), nil }
