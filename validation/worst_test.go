package validation_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/incluster"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// worstCase is a worst shape at n listeners, defaulted as kube-apiserver
// hands it over, with its stored object when it is an update.
func worstCase(s validationtest.Shape, n int) (ls, old *gwv1.ListenerSet) {
	ls = fixtures.Defaulted(s.Build(n))
	if s.Update != nil {
		old = fixtures.Defaulted(s.Update(n))
	}
	return ls, old
}

// TestWorstReportsAreBounded: on every worst object the CRD admits, of
// counts and of text, the report shows at most MaxErrors errors in
// MaxErrorBytes and warnings in kube-apiserver's budget, and counts every
// one; each object fits kube-apiserver's 3 MiB request.
func TestWorstReportsAreBounded(t *testing.T) {
	for _, s := range append(validationtest.TextShapes, validationtest.WorstShapes...) {
		t.Run(s.Name, func(t *testing.T) {
			ls, old := worstCase(s, object.MaxListeners)
			data, err := json.Marshal(ls)
			require.NoError(t, err)
			assert.Less(t, len(data), 3<<20, "over kube-apiserver's request limit")

			r := validation.Judge(ls, old, validation.Options{})
			bytes, runes := assertReportBounded(t, r)
			t.Logf("%d bytes of JSON: %d errors (%d shown, %d bytes), %d warnings (%d shown, %d runes)",
				len(data), r.Errors.Total(), len(r.Errors.List()), bytes, r.Warnings.Total(), len(r.Warnings.List()), runes)
		})
	}
}

// assertReportBounded: the report shows at most MaxErrors errors in
// MaxErrorBytes and warnings in kube-apiserver's budget, and ends with a
// count of the rest; it returns the bytes of errors and runes of warnings
// shown.
func assertReportBounded(t *testing.T, r *validation.Report) (bytes, runes int) {
	t.Helper()
	errs, warnings := r.Errors.List(), r.Warnings.List()
	assert.LessOrEqual(t, len(errs), findings.MaxErrors+1)
	for _, e := range errs {
		bytes += len(e.Error())
	}
	assert.LessOrEqual(t, bytes, findings.MaxErrorBytes+200, "the summary may pass the budget by its own length")
	for _, w := range warnings {
		n := utf8.RuneCountInString(w.String())
		assert.LessOrEqual(t, n, findings.MaxWarningRunes)
		runes += n
	}
	assert.LessOrEqual(t, runes, findings.MaxWarningsRunes)
	if r.Errors.Total() > len(errs) {
		assert.True(t, findings.IsMoreErrors(errs[len(errs)-1]), "the last error says how many more")
	}
	if r.Warnings.Total() > len(warnings) {
		assert.Equal(t, findings.KindMoreWarnings, warnings[len(warnings)-1].Kind)
	}
	return bytes, runes
}

// TestWorstDeclarationsAreBounded: each of the worst hostname declarations
// (validationtest.DeclaredShapes), with the 64-listener set of the deepest
// hostnames against it, gets the verdict its shape says, in a bounded
// report: 64 undeclared hostnames; the declaration over the limit refused
// whole, naming the annotation, the Namespace and the limit; every hostile
// entry refused, each error naming its entry escaped, with no character a
// terminal would interpret.
func TestWorstDeclarationsAreBounded(t *testing.T) {
	for _, s := range validationtest.DeclaredShapes {
		t.Run(s.Name, func(t *testing.T) {
			assert.LessOrEqual(t, len(incluster.DefaultAllowedHostnamesAnnotation)+len(s.Declaration), validationtest.MaxAnnotationBytes,
				"over what Kubernetes stores on a Namespace")
			r := validation.Judge(validationtest.DeepestHostnames(), nil, validation.Options{Cluster: validationtest.DeclaredCluster(s)})
			bytes, _ := assertReportBounded(t, r)
			errs := r.Errors.List()
			require.NotEmpty(t, errs)
			codes := map[findings.Code]int{}
			for _, e := range errs {
				if !findings.IsMoreErrors(e) {
					codes[findings.CodeOf(e)]++
				}
				assert.Equal(t, findings.Escape(e.Error()), e.Error(), "an error with a character a terminal interprets")
			}
			switch s.Name {
			case "sixty-four-undeclared", "longest-entries":
				assert.Equal(t, validationtest.MaxListeners, r.Errors.Total())
				assert.Len(t, codes, 1, "codes shown: %v", codes)
				assert.Positive(t, codes[incluster.CodeHostnameNotDeclared], "codes shown: %v", codes)
			case "over-the-limit":
				require.Equal(t, 1, r.Errors.Total(), "%v", errs)
				assert.Equal(t, incluster.CodeDeclarationMalformed, findings.CodeOf(errs[0]))
				assert.Contains(t, errs[0].Detail, fmt.Sprintf("annotation %s of Namespace %q: has 10000 entries, more than the limit of %d",
					incluster.DefaultAllowedHostnamesAnnotation, validationtest.DeclaredNamespace, incluster.MaxAllowedHostnames))
			case "hostile-entries":
				assert.Equal(t, incluster.MaxAllowedHostnames, r.Errors.Total())
				for i, e := range errs {
					if findings.IsMoreErrors(e) {
						continue
					}
					assert.Equal(t, incluster.CodeDeclarationMalformed, findings.CodeOf(e))
					assert.Contains(t, e.Detail, fmt.Sprintf(`entry %d "<>&\"\\\u2028\u2029\t\n\r\x00\x1b[31m\x7f\u0085\u009b\u202e`, i+1))
				}
			default:
				t.Fatalf("no verdict for shape %s", s.Name)
			}
			t.Logf("declaration of %d bytes: %d errors (%d shown, %d bytes)", len(s.Declaration), r.Errors.Total(), len(errs), bytes)
		})
	}
}

// TestWorstCostIsLinear: the bytes a verdict allocates grow at most
// linearly with the object: on each worst shape at 16, 32 and 64
// listeners they grow at most linearly (assertLinear). A shape may grow slower: a
// report that is full stops building messages. Allocated bytes, not time:
// they repeat from run to run.
func TestWorstCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of verdicts")
	}
	for _, s := range validationtest.WorstShapes {
		t.Run(s.Name, func(t *testing.T) {
			var cost [3]float64
			for k, n := range []int{16, 32, 64} {
				ls, old := worstCase(s, n)
				cost[k] = allocatedBytes(func() { validation.Judge(ls, old, validation.Options{}) })
			}
			t.Logf("allocated: %.0f, %.0f, %.0f bytes at 16, 32, 64 listeners", cost[0], cost[1], cost[2])
			assertLinear(t, cost)
		})
	}
}

// TestListCostIsLinear: the same within one listener, in the length of its
// lists: the list-valued options of 256, 512 and 1 024 names (a selector's
// lists are bounded by MaxSelectorItems and not walked past it).
func TestListCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("a few seconds of verdicts")
	}
	for _, tc := range []struct {
		name  string
		build func(k int) *gwv1.ListenerSet
	}{
		{"option-items", func(k int) *gwv1.ListenerSet {
			ls := validationtest.MostListErrors(1)
			for key := range ls.Spec.Listeners[0].TLS.Options {
				ls.Spec.Listeners[0].TLS.Options[key] = validationtest.UnknownNames(256 * k)
			}
			return ls
		}},
		{"repeated-option-items", func(k int) *gwv1.ListenerSet {
			ls := validationtest.MostListErrors(1)
			for key := range ls.Spec.Listeners[0].TLS.Options {
				ls.Spec.Listeners[0].TLS.Options[key] = gwv1.AnnotationValue(strings.Repeat("h2,", 256*k) + "h2")
			}
			return ls
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var cost [3]float64
			var verdicts [3]func()
			for i, k := range []int{1, 2, 4} {
				ls := fixtures.Defaulted(tc.build(k))
				verdicts[i] = func() { validation.Judge(ls, nil, validation.Options{}) }
				cost[i] = allocatedBytes(verdicts[i])
			}
			t.Logf("allocated: %.0f, %.0f, %.0f bytes at 1, 2, 4 times the length", cost[0], cost[1], cost[2])
			assertLinear(t, cost)
			// Time too, for a rule that is quadratic without allocating
			// (a scan of the items before each one): the least of
			// interleaved runs, and a wide margin, as time varies.
			small, large := leastTime(verdicts[0], verdicts[2])
			t.Logf("time: %v at 1 time, %v at 4 times the length", small, large)
			assert.LessOrEqual(t, float64(large), 10*float64(small), "4 times the length took %v, 1 time %v: more than linear", large, small)
		})
	}
}

// assertLinear: costs at 1, 2 and 4 times the size grow at most linearly,
// with some slack (2.5 times at twice the size, 4.5 at four times); a
// quadratic cost would be 4 and 16 times.
func assertLinear(t *testing.T, cost [3]float64) {
	t.Helper()
	assert.LessOrEqual(t, cost[1], 2.5*cost[0], "twice the size: more than linear: %v", cost)
	assert.LessOrEqual(t, cost[2], 4.5*cost[0], "four times the size: more than linear: %v", cost)
}

// leastTime is the least CPU time of each of a and b over interleaved runs:
// the time of this thread alone, so that other processes on
// the machine do not count, and with the collector off, whose work in one
// run and not another is the largest noise. Where the thread's time is not
// available, wall time.
func leastTime(a, b func()) (time.Duration, time.Duration) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var least [2]time.Duration
	for range 21 {
		for i, f := range []func(){a, b} {
			start := threadTime()
			f()
			if d := threadTime() - start; least[i] == 0 || d < least[i] {
				least[i] = d
			}
		}
	}
	return least[0], least[1]
}

// threadTime is the CPU time the calling thread has used
// (CLOCK_THREAD_CPUTIME_ID), or the wall clock where it cannot tell.
func threadTime() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ts.Nano())
}

// allocatedBytes is what one call of f allocates, the least of five runs.
func allocatedBytes(f func()) float64 {
	// One P: the verdict keeps the maps of long lists in a sync.Pool, whose
	// private slot is per P, so that a run moved to another P between one
	// verdict's Put and the next one's Get allocates the map anew (seen
	// under load: 19 400, 109 848, 164 520 bytes at 1, 2, 4 times).
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	least := -1.0
	for range 5 {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		if b := float64(after.TotalAlloc - before.TotalAlloc); least < 0 || b < least {
			least = b
		}
	}
	return least
}
