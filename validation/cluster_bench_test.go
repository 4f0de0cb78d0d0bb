package validation_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkClusterScale is the create on a Gateway that tenants
// share: a new ListenerSet (HTTP on 80, HTTPS on 443, its own hostname)
// judged with cluster checks against 0, 1 000 and 10 000 ListenerSets, every
// one on 443 with its own hostname. Its time and allocations at 10 000 must
// be within 1.2 times those at 0 (docs/performance.md, "Cluster scale").
func BenchmarkClusterScale(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("rivals=%d", n), func(b *testing.B) {
			cluster := validationtest.SharedCluster(validationtest.Tenants(n))
			ls := validationtest.NewTenant()
			opts := validation.Options{Cluster: cluster, Strict: true}
			if errs, _ := validation.Validate(ls, nil, opts); len(errs) != 0 {
				b.Fatal(errs)
			}
			b.ReportAllocs()
			defer validationtest.ReportCPU(b)()
			for b.Loop() {
				validation.Validate(ls, nil, opts)
			}
		})
	}
}

// BenchmarkClusterScaleWildcard is BenchmarkClusterScale's create with a
// wildcard hostname, *.example.com, above every tenant's: the overlap rule
// cannot find the names under a wildcard by key, so it reads the rivals on
// the port (overlapRivals), and the first-claim rule those filed under the
// wildcard (UnderKey): its cost grows with them, linearly. The verdict: an
// OverlappingTLSConfig warning and a first-claim warning, each naming the
// oldest tenant.
func BenchmarkClusterScaleWildcard(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("rivals=%d", n), func(b *testing.B) {
			cluster := validationtest.SharedCluster(validationtest.Tenants(n))
			ls := validationtest.NewTenant()
			*ls.Spec.Listeners[1].Hostname = "*.example.com"
			opts := validation.Options{Cluster: cluster, Strict: true}
			errs, warnings := validation.Validate(ls, nil, opts)
			if len(errs) != 0 || len(warnings) != 2 || warnings[0].Code != object.CodeMergedOverlapping || warnings[1].Code != validation.CodeHostnameClaimed ||
				!strings.Contains(warnings[1].Message, validationtest.TenantHostname(0)) {
				b.Fatal(errs, warnings)
			}
			b.ReportAllocs()
			defer validationtest.ReportCPU(b)()
			for b.Loop() {
				validation.Validate(ls, nil, opts)
			}
		})
	}
}

// BenchmarkMostClusterRivals is the "most cluster rivals" worst object: 64
// listeners, each conflicting with many of n rivals, in each shape. Its
// verdict is 64 conflicts whatever n (one per listener, naming the rival
// that wins by precedence), and its cost grows with the rivals it must read,
// not with their square.
func BenchmarkMostClusterRivals(b *testing.B) {
	for _, shape := range validationtest.MostRivalsShapes {
		sizes := []int{1000, 10000}
		if shape == validationtest.RivalsEveryPort {
			sizes = []int{100, 1000} // 64 listeners per rival: 64 000 at 1 000
		}
		for _, n := range sizes {
			b.Run(fmt.Sprintf("%s/rivals=%d", shape, n), func(b *testing.B) {
				ls, rivals := validationtest.MostRivals(shape, n)
				opts := validation.Options{Cluster: validationtest.SharedCluster(rivals), Strict: true}
				errs, _ := validation.Validate(ls, nil, opts)
				if len(errs) != validationtest.MaxListeners {
					b.Fatalf("%d errors, want one conflict per listener (%d): %v", len(errs), validationtest.MaxListeners, errs)
				}
				b.ReportAllocs()
				defer validationtest.ReportCPU(b)()
				for b.Loop() {
					validation.Validate(ls, nil, opts)
				}
			})
		}
	}
}

// BenchmarkOwnersScale is the create on a Gateway that many owners share,
// with their declarations (validationtest.OwnedCluster): owner 1's new set
// judged with the tenancy rules on (declared hostnames, the first claim in
// warn mode) against 0 and 10 000 sets of 1 000 owners. It reads its
// owner's declaration and its hostname's claim keys, one of which holds
// its owner's wildcard set; its cost at 10 000 must be within 1.2 times
// that at 0 (docs/performance.md, "Owners").
func BenchmarkOwnersScale(b *testing.B) {
	for _, n := range []int{0, 1000, 10000} {
		b.Run(fmt.Sprintf("sets=%d", n), func(b *testing.B) {
			cluster := validationtest.OwnedCluster(n)
			ls := validationtest.NewOwnedSet("new")
			opts := validation.Options{Cluster: cluster, Strict: true, Tenancy: validation.Tenancy{FirstClaim: validation.ClaimWarn}}
			if errs, warnings := validation.Validate(ls, nil, opts); len(errs) != 0 || len(warnings) != 0 {
				b.Fatal(errs, warnings)
			}
			b.ReportAllocs()
			defer validationtest.ReportCPU(b)()
			for b.Loop() {
				validation.Validate(ls, nil, opts)
			}
		})
	}
}
