package judge_test

import (
	"fmt"
	"testing"
	"time"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/offline/judge"
	vt "github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkStoredReported: the audit's verdict on 10 000 stored sets of
// one Gateway, none reported, without and with the status comparison
// (judge.Options.Reported): the Gateway's merged list is built once, not
// once per set.
func BenchmarkStoredReported(b *testing.B) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sets := make([]*gwv1.ListenerSet, 10000)
	for i := range sets {
		sets[i] = vt.TenantSet(fmt.Sprintf("team-%d", i%100), fmt.Sprintf("s-%d", i), t0.Add(time.Duration(i)*time.Second),
			vt.Listener("web", gwv1.PortNumber(1024+i%50000), gwv1.HTTPProtocolType, fmt.Sprintf("h%d.example.com", i)))
	}
	cluster := vt.SharedCluster(sets)
	for _, reported := range []bool{false, true} {
		b.Run(fmt.Sprintf("reported=%v", reported), func(b *testing.B) {
			for b.Loop() {
				judge.Stored(cluster, cluster.Sets, judge.Options{Reported: reported})
			}
		})
	}
}
