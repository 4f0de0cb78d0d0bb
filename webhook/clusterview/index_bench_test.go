package clusterview

import (
	"fmt"
	"testing"

	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation/validationtest"
)

// BenchmarkListenerSetIndexes: what the informer's indexes cost while it
// fills its store with 10 000 ListenerSets of one Gateway (its initial list,
// the time to ready of make bench-scale's one-gateway shape): the byParent
// field index alone (before issue 20) and with rivalIndex.
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
