package clusterview

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkListenerSetIndexes: what the informer's indexes cost while it
// fills its store with 10 000 ListenerSets of one Gateway (its initial list,
// the time to ready of make bench-scale's one-gateway shape): the byParent
// field index alone (before the rival index) and with rivalIndex.
func BenchmarkListenerSetIndexes(b *testing.B) {
	sets := validationtest.Tenants(10000)
	for i, ls := range sets {
		ls.Spec.Listeners = append(ls.Spec.Listeners, validationtest.Listener("http", 80, gwv1.HTTPProtocolType, validationtest.TenantHostname(i)))
	}
	parent := toolscache.Indexers{parentField: func(obj any) ([]string, error) { return parentKeys(obj.(client.Object)), nil }}
	both := toolscache.Indexers{parentField: parent[parentField], rivalIndex: rivalKeys}
	for name, indexers := range map[string]toolscache.Indexers{"parent": parent, "parent+rivals": both} {
		b.Run(fmt.Sprintf("%s/sets=%d", name, len(sets)), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, indexers)
				for _, ls := range sets {
					if err := store.Add(ls); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// BenchmarkRouteCache: the memory a cached HTTPRoute costs, 10 000 routes
// as the informer keeps them (transformed to parentRefs, hostnames and
// identity, in a store with the routeIndex), reported as bytes/route: the
// heap the filled store holds over an empty one. Each route has the shape
// of the scale figure's (one parentRef by sectionName, one hostname) and
// rules the transform drops.
func BenchmarkRouteCache(b *testing.B) {
	const n = 10000
	mk := func(i int) *gwv1.HTTPRoute {
		r := fullRoute()
		r.Name, r.Namespace = fmt.Sprintf("route-%05d", i), fmt.Sprintf("tenant-%02d", i%100)
		r.Spec.ParentRefs[0].Name = gwv1.ObjectName(fmt.Sprintf("ls-%05d", i%100))
		r.Spec.Hostnames = []gwv1.Hostname{gwv1.Hostname(validationtest.TenantHostname(i % 100))}
		return r
	}
	for b.Loop() {
		b.ReportMetric(cachedBytes(b, routeIndexers, n, func(i int) client.Object { return mk(i) }), "bytes/route")
	}
}

// cachedBytes is the heap a store with indexers holds per object once it
// has the n objects obj(i), transformed as the informer keeps them: the
// heap after over the heap before, each collected.
func cachedBytes(b *testing.B, indexers toolscache.Indexers, n int, obj func(i int) client.Object) float64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	store := toolscache.NewIndexer(toolscache.MetaNamespaceKeyFunc, indexers)
	for i := range n {
		out, err := Watch{}.transform(obj(i))
		if err != nil {
			b.Fatal(err)
		}
		if err := store.Add(out); err != nil {
			b.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(store)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// BenchmarkListenerSetCache: the memory a cached ListenerSet costs, the
// 10 000 sets of 1 000 owners of make bench-scale's owners shape
// (validationtest.OwnedSets) as the informer keeps them (transformed, in a
// store with the byParent and rival indexes), reported as bytes/set: the
// heap the filled store holds over an empty one, and the rival index's
// keys per set. "rivals" files each set under every validation.RivalKeys
// key; "rivals-without-claims" leaves out the first-claim rule's
// (validation.ClaimKey and UnderKey), to show what those cost.
func BenchmarkListenerSetCache(b *testing.B) {
	const n = 10000
	parent := func(obj any) ([]string, error) { return parentKeys(obj.(client.Object)), nil }
	withoutClaims := func(obj any) ([]string, error) {
		keys, err := rivalKeys(obj)
		return slices.DeleteFunc(keys, func(k string) bool {
			return strings.HasPrefix(k, "claim ") || strings.HasPrefix(k, "under ")
		}), err
	}
	for _, c := range []struct {
		name  string
		rival toolscache.IndexFunc
	}{{"rivals", rivalKeys}, {"rivals-without-claims", withoutClaims}} {
		b.Run(fmt.Sprintf("%s/sets=%d", c.name, n), func(b *testing.B) {
			sets := validationtest.OwnedSets(n)
			keys := 0
			for _, ls := range sets {
				k, _ := c.rival(ls)
				keys += len(k)
			}
			indexers := toolscache.Indexers{parentField: parent, rivalIndex: c.rival}
			for b.Loop() {
				b.ReportMetric(cachedBytes(b, indexers, n, func(i int) client.Object { return sets[i].DeepCopy() }), "bytes/set")
			}
			b.ReportMetric(float64(keys)/n, "keys/set")
		})
	}
}
