package clusterview

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/config"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	gwscheme "sigs.k8s.io/gateway-api/pkg/client/clientset/versioned/scheme"
)

// Options configure the cluster-aware checks (the serve command's
// --cluster-checks, --strict and --watch-secrets). The scope's view of
// Gateways and GatewayClasses is validation.Scope's, not an option here.
type Options struct {
	// Enabled keeps a View and gives validation.Validate it as the cluster of
	// every create and update: the parent Gateway, its allowedListeners,
	// conflicts with its merged listener list, ReferenceGrants and (with
	// WatchSecrets) the referenced Secrets. Until a kind's informer has
	// synced, its checks are skipped: the webhook answers from the object
	// alone and never waits for the cache.
	Enabled bool
	// Strict denies listener conflicts and certificateRefs no ReferenceGrant
	// permits (422 with field paths); otherwise they are warnings. Needs Enabled.
	Strict bool
	// WatchSecrets also watches Secrets, as metadata only, to warn about a
	// certificateRef to a Secret that does not exist. It needs list and watch
	// on secrets in every namespace, so it is off unless asked for. Needs Enabled.
	WatchSecrets bool
	// Tenancy says who owns the listeners and how claims across owners are
	// judged: hostname declarations on Namespaces, the first claim, a
	// tenant label. Needs Enabled (the rules read Namespaces and rivals).
	Tenancy validation.Tenancy
	// RESTConfig reaches kube-apiserver; nil means controller-runtime's
	// config.GetConfig() (--kubeconfig, $KUBECONFIG, in-cluster, ~/.kube).
	RESTConfig *rest.Config
}

// Check rejects options that would silently do nothing.
func (o Options) Check() error {
	if !o.Enabled && (o.Strict || o.WatchSecrets) {
		return errors.New("strict mode and watching Secrets are part of the cluster-aware checks: enable them (--cluster-checks) too")
	}
	return nil
}

// SyncedMetric is the name of the gauge that says, per kind, whether
// the cluster view's informer has synced (1) or not (0): until it has, the
// checks that need that kind are skipped. A kind that stays at 0 usually
// lacks RBAC (list/watch) or its CRD; the webhook's log says which.
const SyncedMetric = "listenerset_webhook_cluster_view_synced"

var clusterSynced = prometheus.NewGaugeVec(prometheus.GaugeOpts{
	Name: SyncedMetric,
	Help: "1 when the cluster view's informer of the kind has synced and the cluster-aware checks that need it run; 0 before.",
}, []string{"kind"})

func init() {
	metrics.Registry.MustRegister(clusterSynced)
}

// Kinds of the cluster view, as its log lines and SyncedMetric name them.
const (
	KindGateway        = "Gateway"
	KindGatewayClass   = "GatewayClass"
	KindListenerSet    = "ListenerSet"
	KindReferenceGrant = "ReferenceGrant"
	KindNamespace      = "Namespace"
	KindSecret         = "Secret"
	KindHTTPRoute      = "HTTPRoute"
)

// View is the validation.Cluster of the server: read-only views of
// Gateways, ListenerSets and ReferenceGrants (gateway.networking.k8s.io/v1),
// and of Namespaces and, optionally, Secrets as metadata only, each kept by a
// controller-runtime informer.
//
// Every method answers from memory and never blocks: a kind whose informer
// has not synced (not started, still listing, forbidden by RBAC, CRD not
// installed) is reported as unknown, and the rules that need it are skipped.
//
// A request reads only what concerns its ListenerSet: a Gateway's
// ListenerSets come from a field index by validation.ParentKey, the rivals
// at its listeners' ports and endpoints from an index by
// validation.RivalKeys, a
// namespace's ReferenceGrants from the cache's namespace index, and the rest
// by key; nothing walks the whole cache.
//
// The cache keeps only what the rules read (see transform): every object
// keeps its namespace, name, UID and resourceVersion and no managedFields,
// annotations, labels or status but a GatewayClass's (whether a controller
// accepted it, and what it supports). Secrets are watched as
// metav1.PartialObjectMetadata (the API server sends no data) and keep
// nothing more: kubectl.kubernetes.io/last-applied-configuration holds a
// Secret applied with kubectl in full, data included. Namespaces keep their
// labels; Gateways, ListenerSets and ReferenceGrants the fields the rules
// read.
type View struct {
	cache cache.Cache
	log   logr.Logger

	gateways, classes, listenerSets, grants, namespaces, secrets, routes *watchedKind
	kinds                                                                []*watchedKind

	mu      sync.Mutex // guards stopped and the gauges against a late sync
	stopped bool
}

var (
	_ validation.Cluster = (*View)(nil)
	_ validation.Classes = (*View)(nil)
	_ validation.Routes  = (*View)(nil)
)

// watchedKind is one informer of the view.
type watchedKind struct {
	name string
	obj  client.Object // the prototype GetInformer is asked for
	// index, when set, is a field index the kind's reads need; it is added
	// before the informer is published, so no read meets the informer
	// without it.
	index *fieldIndex
	// indexers, when set, are client-go indexers the kind's reads need,
	// added with index and read from indexer.
	indexers toolscache.Indexers
	// informer is set once the cache has created it (and its indexes); nil before.
	informer atomic.Pointer[cache.Informer]
	// indexer is the informer's store, set before informer when the kind
	// has indexers.
	indexer toolscache.Indexer
}

// fieldIndex is a controller-runtime cache field index (cache.IndexField),
// read with client.MatchingFields{field: value}.
type fieldIndex struct {
	field   string
	extract client.IndexerFunc
}

// parentField indexes ListenerSets by the Gateway their parentRef names. The
// keys are validation.ParentKey's, and ListenerSetsOf asks for
// validation.GatewayKey's, so the index and the rules share one decision.
// It is no API field: the cache alone answers it.
const parentField = "listenerset-webhook.parentGateway"

var byParent = &fieldIndex{field: parentField, extract: parentKeys}

// rivalIndex indexes ListenerSets by validation.RivalKeys: the keys
// ListenerSetsAt asks for (validation.PortKey, validation.EndpointKey), so
// that the conflict rule reads the rivals that share a ListenerSet's ports
// and endpoints, not every ListenerSet of its Gateway. It is a client-go
// indexer of the informer, read from the informer's own store: a
// controller-runtime List by a field index copies every object it finds
// into a new list, and a port that 10 000 tenants share would be copied on
// every request that asks whether another protocol is there.
const rivalIndex = "listenerset-webhook.rivals"

var rivalIndexers = toolscache.Indexers{rivalIndex: rivalKeys}

// routeIndex indexes HTTPRoutes by validation.RouteKeys: the ListenerSets
// their parentRefs name, the key RoutesOf asks for
// (validation.ListenerSetKey). Like rivalIndex it is a client-go indexer
// read from the informer's own store, without a copy: a set that 10 000
// routes name is read on every update that changes its listeners.
const routeIndex = "listenerset-webhook.routes"

// routeClaimIndex indexes HTTPRoutes by validation.RouteClaimKeys: the
// hostnames they claim, the keys RoutesAt asks for, so that a claim reads
// the routes whose names may overlap it, not every route.
const routeClaimIndex = "listenerset-webhook.routeClaims"

var routeIndexers = toolscache.Indexers{routeIndex: routeKeys, routeClaimIndex: routeClaimKeys}

// routeClaimKeys is routeClaimIndex's IndexFunc: an HTTPRoute's
// RouteClaimKeys.
func routeClaimKeys(obj any) ([]string, error) {
	r, ok := obj.(*gwv1.HTTPRoute)
	if !ok {
		return nil, nil
	}
	return validation.RouteClaimKeys(r), nil
}

// routeKeys is routeIndex's IndexFunc: an HTTPRoute's RouteKeys.
func routeKeys(obj any) ([]string, error) {
	r, ok := obj.(*gwv1.HTTPRoute)
	if !ok {
		return nil, nil
	}
	return validation.RouteKeys(r), nil
}

// rivalKeys is rivalIndex's IndexFunc: a ListenerSet's RivalKeys.
func rivalKeys(obj any) ([]string, error) {
	ls, ok := obj.(*gwv1.ListenerSet)
	if !ok {
		return nil, nil
	}
	return validation.RivalKeys(ls), nil
}

// parentKeys is byParent's IndexerFunc: a ListenerSet's ParentKey, none when
// its parentRef names no Gateway.
func parentKeys(obj client.Object) []string {
	ls, ok := obj.(*gwv1.ListenerSet)
	if !ok {
		return nil
	}
	if key, ok := validation.ParentKey(ls); ok {
		return []string{key}
	}
	return nil
}

// synced tells, without blocking, whether the kind can be read.
func (k *watchedKind) synced() bool {
	if k == nil {
		return false
	}
	inf := k.informer.Load()
	return inf != nil && (*inf).HasSynced()
}

// clusterScheme knows the typed kinds of the view (gateway-api's own scheme);
// Namespaces and Secrets are read as PartialObjectMetadata, which needs no
// scheme.
var clusterScheme = gwscheme.Scheme

func metadataOf(kind string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: kind}}
}

// ErrNoAPI is New's error when no configuration reaches the Kubernetes API.
var ErrNoAPI = errors.New("the cluster view needs the Kubernetes API")

// Watch says which kinds a View keeps.
type Watch struct {
	// Scope keeps Gateways and GatewayClasses: what validation.Scope reads
	// to tell whose ListenerSet it is.
	Scope bool
	// Cluster keeps what the cluster-aware checks read: Gateways,
	// ListenerSets, ReferenceGrants, Namespaces and HTTPRoutes (the
	// routes an update or a deletion detaches).
	Cluster bool
	// Secrets keeps Secret metadata too (with Cluster).
	Secrets bool
	// NamespaceAnnotations are the Namespace annotations kept besides the
	// labels (with Cluster): the hostname declarations' key
	// (validation.Tenancy.Annotation). Every other annotation is dropped.
	NamespaceAnnotations []string
}

// New builds the view of the kinds w names on cfg (nil:
// config.GetConfig()). Nothing is listed or watched until Start; until then
// every method reports unknown, as it does for a kind w leaves out.
func New(cfg *rest.Config, w Watch, log logr.Logger) (*View, error) {
	if cfg == nil {
		var err error
		if cfg, err = config.GetConfig(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrNoAPI, err)
		}
	}
	v := &View{log: log}
	if w.Scope || w.Cluster {
		v.gateways = &watchedKind{name: KindGateway, obj: &gwv1.Gateway{}}
		v.kinds = append(v.kinds, v.gateways)
	}
	if w.Scope {
		v.classes = &watchedKind{name: KindGatewayClass, obj: &gwv1.GatewayClass{}}
		v.kinds = append(v.kinds, v.classes)
	}
	if w.Cluster {
		v.listenerSets = &watchedKind{name: KindListenerSet, obj: &gwv1.ListenerSet{}, index: byParent, indexers: rivalIndexers}
		v.grants = &watchedKind{name: KindReferenceGrant, obj: &gwv1.ReferenceGrant{}}
		v.namespaces = &watchedKind{name: KindNamespace, obj: metadataOf(KindNamespace)}
		v.routes = &watchedKind{name: KindHTTPRoute, obj: &gwv1.HTTPRoute{}, indexers: routeIndexers}
		v.kinds = append(v.kinds, v.listenerSets, v.grants, v.namespaces, v.routes)
		if w.Secrets {
			v.secrets = &watchedKind{name: KindSecret, obj: metadataOf(KindSecret)}
			v.kinds = append(v.kinds, v.secrets)
		}
	}
	c, err := cache.New(cfg, cache.Options{
		Scheme: clusterScheme,
		// One transform for all kinds, switching on the type, rather than
		// ByObject: with ByObject, cache.New asks the API server's discovery
		// whether each kind is namespaced, so an API server that is down or
		// slow would fail or hold up the webhook's start. Without it nothing
		// here does I/O before Start. (The field index, too, is added once
		// the informer exists, in watch, not here.)
		DefaultTransform: w.transform,
		// Reads never create informers: the view has exactly the ones above.
		ReaderFailOnMissingInformer: true,
		DefaultWatchErrorHandler: func(_ context.Context, r *toolscache.Reflector, err error) {
			watchError(log, r.TypeDescription(), err)
		},
	})
	if err != nil {
		return nil, fmt.Errorf("cluster view: %w", err)
	}
	v.cache = c
	return v, nil
}

// watchError logs a failed list or watch of an informer, which then backs
// off and tries again, like client-go's default handler does: a watch that
// ends or expires is routine (the informer lists or watches again); anything
// else, such as missing RBAC, is an error an operator should see.
func watchError(log logr.Logger, kind string, err error) {
	switch {
	case errors.Is(err, io.EOF):
	case errors.Is(err, io.ErrUnexpectedEOF), apierrors.IsResourceExpired(err), apierrors.IsGone(err):
		log.V(1).Info("Cluster view: watch ended; restarting it", "type", kind, "reason", err.Error())
	default:
		log.Error(err, "Cluster view: list or watch failed; until this kind has synced, the checks that need it are skipped",
			"type", kind)
	}
}

// Start runs the informers until ctx is cancelled, then returns nil. Each
// kind's informer is created in the background and retried with backoff when
// that fails (e.g. the Gateway API CRDs are not installed yet), so nothing
// here can stop the webhook. A kind is logged, and its SyncedMetric
// set to 1, once it has synced.
func (v *View) Start(ctx context.Context) error {
	for _, k := range v.kinds {
		clusterSynced.WithLabelValues(k.name).Set(0)
		go v.watch(ctx, k)
	}
	err := v.cache.Start(ctx)
	v.mu.Lock()
	v.stopped = true
	for _, k := range v.kinds {
		clusterSynced.WithLabelValues(k.name).Set(0)
	}
	v.mu.Unlock()
	if err != nil && ctx.Err() == nil {
		v.log.Error(err, "Cluster view stopped; the cluster-aware checks are skipped from now on")
	}
	return nil
}

// watch creates k's informer and its field index, retrying until they
// exist, publishes the informer, and records when it has synced. A goroutine
// stuck in a request that never returns (an API server that accepts but
// never answers) is left behind on shutdown rather than holding Start up.
func (v *View) watch(ctx context.Context, k *watchedKind) {
	backoff := wait.Backoff{Duration: time.Second, Factor: 2, Jitter: 0.1, Steps: 7, Cap: time.Minute}
	indexed, indexers := k.index == nil, k.indexers == nil
	for {
		inf, err := v.cache.GetInformer(ctx, k.obj, cache.BlockUntilSynced(false))
		if err == nil && !indexed {
			// The informer may be running already: client-go indexes the
			// objects it holds when an index is added, and every later one.
			err = v.cache.IndexField(ctx, k.obj, k.index.field, k.index.extract)
			indexed = err == nil
		}
		if err == nil && !indexers {
			err = addIndexers(inf, k)
			indexers = err == nil
		}
		if err == nil {
			k.informer.Store(&inf)
			break
		}
		if ctx.Err() != nil {
			return
		}
		delay := backoff.Step()
		v.log.Error(err, "Cluster view: cannot watch this kind yet; its checks are skipped meanwhile", "kind", k.name, "retryIn", delay.Round(time.Second))
		select {
		case <-ctx.Done():
			return
		case <-time.After(delay):
		}
	}
	start := time.Now()
	// The informer's own signal, without polling; false when ctx ends first.
	// Reads do not wait for it: they ask HasSynced (watchedKind.synced).
	if !toolscache.WaitFor(ctx, "", (*k.informer.Load()).HasSyncedChecker()) {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.stopped {
		clusterSynced.WithLabelValues(k.name).Set(1)
		v.log.Info("Cluster view synced; its checks are on", "kind", k.name, "after", time.Since(start).Round(time.Millisecond))
	}
}

// addIndexers adds k's client-go indexers to its informer and keeps the
// informer's store for reading them.
func addIndexers(inf cache.Informer, k *watchedKind) error {
	shared, ok := inf.(toolscache.SharedIndexInformer)
	if !ok {
		return fmt.Errorf("the cache's %s informer is a %T, not a client-go SharedIndexInformer: its indexes cannot be read", k.name, inf)
	}
	if err := inf.AddIndexers(k.indexers); err != nil {
		return err
	}
	k.indexer = shared.GetIndexer()
	return nil
}

// Synced tells whether every kind of the view has synced.
func (v *View) Synced() bool {
	for _, k := range v.kinds {
		if !k.synced() {
			return false
		}
	}
	return true
}

// get reads one object of a synced kind: found, or known=false on any error
// but NotFound (which only a bug would cause once the kind has synced).
func (v *View) get(k *watchedKind, namespace, name string, out client.Object) (found, known bool) {
	if !k.synced() {
		return false, false
	}
	err := v.cache.Get(context.Background(), client.ObjectKey{Namespace: namespace, Name: name}, out)
	switch {
	case err == nil:
		return true, true
	case apierrors.IsNotFound(err):
		return false, true
	default:
		v.log.V(1).Info("Cluster view: read failed; check skipped", "kind", k.name, "error", err.Error())
		return false, false
	}
}

// Gateway implements validation.Cluster.
func (v *View) Gateway(namespace, name string) (*gwv1.Gateway, bool) {
	gw := &gwv1.Gateway{}
	found, known := v.get(v.gateways, namespace, name, gw)
	if !found {
		return nil, known
	}
	return gw, true
}

// GatewayClass implements validation.Classes.
func (v *View) GatewayClass(name string) (*gwv1.GatewayClass, bool) {
	gc := &gwv1.GatewayClass{}
	found, known := v.get(v.classes, "", name, gc)
	if !found {
		return nil, known
	}
	return gc, true
}

// ListenerSetsOf implements validation.Cluster from the byParent index:
// without a namespace, the cache looks the key up across namespaces (a
// ListenerSet's parent may be in another one), one index lookup.
func (v *View) ListenerSetsOf(gatewayNamespace, gatewayName string) ([]*gwv1.ListenerSet, bool) {
	return list(v, v.listenerSets, &gwv1.ListenerSetList{}, func(l *gwv1.ListenerSetList) []gwv1.ListenerSet { return l.Items },
		client.MatchingFields{parentField: validation.GatewayKey(gatewayNamespace, gatewayName)})
}

// ListenerSetsAt implements validation.Cluster from the rivalIndex: one
// lookup in the informer's store, and the objects are the cache's own (no
// copy; the rules only read).
func (v *View) ListenerSetsAt(key string) ([]*gwv1.ListenerSet, bool) {
	k := v.listenerSets
	if k == nil || !k.synced() {
		return nil, false
	}
	return rivalsAt(k.indexer, key, v.log)
}

// rivalsAt reads the ListenerSets filed under key in indexer's rivalIndex.
func rivalsAt(indexer toolscache.Indexer, key string, log logr.Logger) ([]*gwv1.ListenerSet, bool) {
	return byIndex[gwv1.ListenerSet](indexer, rivalIndex, key, KindListenerSet, log)
}

// byIndex reads the objects of type *T filed under key in indexer's index:
// the store's own objects, no copy.
func byIndex[T any](indexer toolscache.Indexer, index, key, kind string, log logr.Logger) ([]*T, bool) {
	objs, err := indexer.ByIndex(index, key)
	if err != nil {
		log.V(1).Info("Cluster view: index lookup failed; check skipped", "kind", kind, "error", err.Error())
		return nil, false
	}
	out := make([]*T, 0, len(objs))
	for _, o := range objs {
		if t, ok := o.(*T); ok {
			out = append(out, t)
		}
	}
	return out, true
}

// RoutesOf implements validation.Routes from the routeIndex: one lookup in
// the informer's store, the cache's own objects (no copy; the rules only
// read). Until HTTPRoutes have synced (or where their CRD is not
// installed, as the watch then retries) it is unknown, and no route
// warning is given.
func (v *View) RoutesOf(namespace, name string) ([]*gwv1.HTTPRoute, bool) {
	k := v.routes
	if k == nil || !k.synced() {
		return nil, false
	}
	return byIndex[gwv1.HTTPRoute](k.indexer, routeIndex, validation.ListenerSetKey(namespace, name), KindHTTPRoute, v.log)
}

// RoutesAt implements validation.Routes from the routeClaimIndex, as
// RoutesOf from its index.
func (v *View) RoutesAt(key string) ([]*gwv1.HTTPRoute, bool) {
	k := v.routes
	if k == nil || !k.synced() {
		return nil, false
	}
	return byIndex[gwv1.HTTPRoute](k.indexer, routeClaimIndex, key, KindHTTPRoute, v.log)
}

// ListenerSet implements validation.Cluster: one read of the informer's
// store, the cache's own object (no copy; the rules only read).
func (v *View) ListenerSet(namespace, name string) (*gwv1.ListenerSet, bool) {
	k := v.listenerSets
	if k == nil || !k.synced() {
		return nil, false
	}
	obj, exists, err := k.indexer.GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, false
	}
	ls, ok := obj.(*gwv1.ListenerSet)
	if !exists || !ok {
		return nil, true
	}
	return ls, true
}

// NamespaceLabels implements validation.Cluster.
func (v *View) NamespaceLabels(name string) (map[string]string, bool) {
	ns := metadataOf(KindNamespace)
	found, known := v.get(v.namespaces, "", name, ns)
	if !found {
		return nil, known
	}
	return ns.Labels, true
}

// NamespaceAnnotations implements validation.Cluster: the annotations
// Watch.NamespaceAnnotations keeps.
func (v *View) NamespaceAnnotations(name string) (map[string]string, bool) {
	ns := metadataOf(KindNamespace)
	found, known := v.get(v.namespaces, "", name, ns)
	if !found {
		return nil, known
	}
	return ns.Annotations, true
}

// ReferenceGrants implements validation.Cluster. client.InNamespace is an
// index lookup already, so no field index of our own: in controller-runtime
// v0.25.2, CacheReader.List (pkg/cache/internal/cache_reader.go) answers a
// namespace without a field selector with
// indexer.ByIndex(toolscache.NamespaceIndex, namespace), and every informer
// the cache creates carries that index (pkg/cache/internal/informers.go:
// toolscache.Indexers{NamespaceIndex: MetaNamespaceIndexFunc}).
func (v *View) ReferenceGrants(namespace string) ([]*gwv1.ReferenceGrant, bool) {
	return list(v, v.grants, &gwv1.ReferenceGrantList{}, func(l *gwv1.ReferenceGrantList) []gwv1.ReferenceGrant { return l.Items },
		client.InNamespace(namespace))
}

// list lists kind k from the cache through an index (opts select one),
// unknown until its informer has synced. The objects are the cache's own (no
// deep copy on every admission): the rules only read.
func list[T any, L client.ObjectList](v *View, k *watchedKind, into L, items func(L) []T, opts ...client.ListOption) ([]*T, bool) {
	if !k.synced() {
		return nil, false
	}
	if err := v.cache.List(context.Background(), into, append(opts, client.UnsafeDisableDeepCopy)...); err != nil {
		v.log.V(1).Info("Cluster view: list failed; check skipped", "kind", k.name, "error", err.Error())
		return nil, false
	}
	all := items(into)
	out := make([]*T, len(all))
	for i := range all {
		out[i] = &all[i]
	}
	return out, true
}

// SecretExists implements validation.Cluster; without WatchSecrets it is
// never known.
func (v *View) SecretExists(namespace, name string) (bool, bool) {
	return v.get(v.secrets, namespace, name, metadataOf(KindSecret))
}

// transform trims each object to what the rules read before it is cached,
// so the view's memory grows with what the checks need, not with the
// objects' size: everything else (managedFields, annotations, labels but a
// Namespace's, status but a GatewayClass's, finalizers, owner references, and the spec the rules
// never read) is left out. What is kept is listed, not what is dropped, so a
// field new in a later Gateway API version is not cached either. It builds
// new objects that share only the kept parts with the decoded one, so the
// rest is garbage as soon as the informer has stored the trimmed copy.
//
// An object of a kind without a trim is an error (a kind added to the view
// without one), which TestEveryKindHasATransform catches.
func (w Watch) transform(in any) (any, error) {
	switch o := in.(type) {
	case *gwv1.Gateway:
		return keepGatewayRead(o), nil
	case *gwv1.GatewayClass:
		return keepClassRead(o), nil
	case *gwv1.ListenerSet:
		return keepListenerSetRead(o), nil
	case *gwv1.ReferenceGrant:
		return keepGrantRead(o), nil
	case *gwv1.HTTPRoute:
		return keepRouteRead(o), nil
	case *metav1.PartialObjectMetadata:
		// The view's metadata-only kinds: Namespaces (cluster-scoped) and
		// Secrets (namespaced).
		if o.Namespace == "" {
			return keepNamespaceRead(o, w.NamespaceAnnotations), nil
		}
		return keepSecretIdentity(o), nil
	}
	return nil, fmt.Errorf("cluster view: no transform for %T", in)
}

// identity is the metadata every cached object keeps: its key (namespace,
// name), UID, and the resourceVersion the informer resumes watching from.
func identity(m *metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion}
}

// keepGatewayRead keeps what the scope and the rules read of a Gateway:
// its creation time (a set stored before it was never judged on it),
// spec.gatewayClassName (whose it is), its listeners' name, port, protocol
// and hostname (the merged listener list) and spec.allowedListeners (which
// namespaces it admits).
func keepGatewayRead(gw *gwv1.Gateway) *gwv1.Gateway {
	out := &gwv1.Gateway{TypeMeta: gw.TypeMeta, ObjectMeta: identity(&gw.ObjectMeta)}
	out.CreationTimestamp = gw.CreationTimestamp
	out.Spec.GatewayClassName = gw.Spec.GatewayClassName
	out.Spec.AllowedListeners = gw.Spec.AllowedListeners
	if len(gw.Spec.Listeners) > 0 {
		out.Spec.Listeners = make([]gwv1.Listener, len(gw.Spec.Listeners))
		for i, l := range gw.Spec.Listeners {
			out.Spec.Listeners[i] = gwv1.Listener{Name: l.Name, Hostname: l.Hostname, Port: l.Port, Protocol: l.Protocol}
		}
	}
	return out
}

// keepClassRead keeps what the scope and the class warnings read of a
// GatewayClass: its spec.controllerName (whose it is), its status
// conditions' type, status, reason, message and observedGeneration (whether
// a controller accepted it; at most 8, the CRD's limit) and
// status.supportedFeatures (whether that controller reads ListenerSets; at
// most 64 names, the CRD's limit).
func keepClassRead(gc *gwv1.GatewayClass) *gwv1.GatewayClass {
	out := &gwv1.GatewayClass{TypeMeta: gc.TypeMeta, ObjectMeta: identity(&gc.ObjectMeta),
		Spec: gwv1.GatewayClassSpec{ControllerName: gc.Spec.ControllerName}}
	if len(gc.Status.Conditions) > 0 {
		out.Status.Conditions = make([]metav1.Condition, len(gc.Status.Conditions))
		for i, c := range gc.Status.Conditions {
			out.Status.Conditions[i] = metav1.Condition{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message,
				ObservedGeneration: c.ObservedGeneration}
		}
	}
	out.Status.SupportedFeatures = gc.Status.SupportedFeatures
	return out
}

// keepListenerSetRead keeps what the rules read of a rival ListenerSet: its
// creation time (precedence), when it came to its Gateway (its generation
// and at most two managedFields entries, validation.TrimmedManagedFields),
// spec.parentRef (its Gateway, and the byParent index) and its listeners'
// name, port, protocol, hostname and allowedRoutes (which HTTPRoutes
// attach: routes claim names through it, package routes' routeclaims.go).
func keepListenerSetRead(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	out := &gwv1.ListenerSet{TypeMeta: ls.TypeMeta, ObjectMeta: identity(&ls.ObjectMeta)}
	out.CreationTimestamp = ls.CreationTimestamp
	out.ManagedFields = validation.TrimmedManagedFields(ls)
	out.Generation = ls.Generation
	out.Spec.ParentRef = ls.Spec.ParentRef
	if len(ls.Spec.Listeners) > 0 {
		out.Spec.Listeners = make([]gwv1.ListenerEntry, len(ls.Spec.Listeners))
		for i, l := range ls.Spec.Listeners {
			out.Spec.Listeners[i] = gwv1.ListenerEntry{Name: l.Name, Hostname: l.Hostname, Port: l.Port, Protocol: l.Protocol,
				AllowedRoutes: l.AllowedRoutes}
		}
	}
	return out
}

// keepGrantRead keeps a ReferenceGrant's spec.from and spec.to: who may
// reference what.
func keepGrantRead(g *gwv1.ReferenceGrant) *gwv1.ReferenceGrant {
	return &gwv1.ReferenceGrant{TypeMeta: g.TypeMeta, ObjectMeta: identity(&g.ObjectMeta),
		Spec: gwv1.ReferenceGrantSpec{From: g.Spec.From, To: g.Spec.To}}
}

// keepRouteRead keeps what attachment and the route claims read of an
// HTTPRoute: its identity, creation time and when its parentRefs were
// written (validation.TrimmedRouteManagedFields: when it came to a Gateway),
// spec.parentRefs and spec.hostnames; its rules, the bulk of a route, are
// dropped.
func keepRouteRead(r *gwv1.HTTPRoute) *gwv1.HTTPRoute {
	out := &gwv1.HTTPRoute{TypeMeta: r.TypeMeta, ObjectMeta: identity(&r.ObjectMeta)}
	out.CreationTimestamp = r.CreationTimestamp
	out.ManagedFields = validation.TrimmedRouteManagedFields(r)
	out.Spec.ParentRefs = r.Spec.ParentRefs
	out.Spec.Hostnames = r.Spec.Hostnames
	return out
}

// keepNamespaceRead caches a Namespace's name, labels and the annotations
// of keys only (a kubectl-applied Namespace's last-applied annotation alone
// can be as large as the object).
func keepNamespaceRead(m *metav1.PartialObjectMetadata, keys []string) *metav1.PartialObjectMetadata {
	out := &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: identity(&m.ObjectMeta)}
	out.Labels = m.Labels
	for _, k := range keys {
		if v, ok := m.Annotations[k]; ok {
			if out.Annotations == nil {
				out.Annotations = map[string]string{}
			}
			out.Annotations[k] = v
		}
	}
	return out
}

// keepSecretIdentity caches that a Secret exists and nothing else: no labels
// and, above all, no annotations (a kubectl-applied Secret's last-applied
// annotation carries its data).
func keepSecretIdentity(m *metav1.PartialObjectMetadata) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: identity(&m.ObjectMeta)}
}

// Kinds names the kinds the view watches, for logs.
func (v *View) Kinds() []string {
	kinds := make([]string, len(v.kinds))
	for i, k := range v.kinds {
		kinds[i] = k.name
	}
	return kinds
}

// RBACRules are the permissions a view of w needs, and all it needs: get,
// list and watch on its Gateway API kinds and on namespaces, and with
// Secrets list and watch on secrets (metadata only is read, but RBAC has no
// metadata-only permission); none for a view of nothing. The Helm chart's
// ClusterRole carries the same rules (test/chart holds it to them), and the
// end-to-end tests run a view with exactly these.
func RBACRules(w Watch) []rbacv1.PolicyRule {
	var resources []string
	if w.Scope || w.Cluster {
		resources = append(resources, "gateways")
	}
	if w.Scope {
		resources = append(resources, "gatewayclasses")
	}
	if w.Cluster {
		resources = append(resources, "listenersets", "referencegrants", "httproutes")
	}
	if resources == nil {
		return nil
	}
	rules := []rbacv1.PolicyRule{{APIGroups: []string{gwv1.GroupName}, Resources: resources, Verbs: []string{"get", "list", "watch"}}}
	if w.Cluster {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch"}})
	}
	if w.Cluster && w.Secrets {
		rules = append(rules, rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list", "watch"}})
	}
	return rules
}
