// Package clusterview is the validation.Cluster of the server: read-only
// controller-runtime informer caches of the objects the cluster-aware checks
// read (Gateways, ListenerSets, ReferenceGrants, Namespace labels,
// HTTPRoutes' parentRefs and hostnames and, optionally, Secret metadata), trimmed by transforms to what the rules read
// and indexed so that a request reads what concerns its ListenerSet, not the
// whole cache. It never blocks a request: a kind whose cache has not synced is unknown,
// and the checks that need it are skipped. RBACRules are the permissions it
// needs, and all it needs.
//
// What the checks warn about: docs/rules.md; their cost at scale: docs/performance.md.
package clusterview
