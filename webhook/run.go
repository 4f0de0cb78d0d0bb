package webhook

import (
	"context"
	"net/http"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/go-logr/logr"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/certs"
	"github.com/airlock/listenerset-webhook/webhook/clusterview"
	"github.com/airlock/listenerset-webhook/webhook/inflight"
	"github.com/airlock/listenerset-webhook/webhook/serving"
)

// Options configure Run, one part each.
type Options struct {
	// Server is the HTTPS server: address, TLS, timeouts, shutdown, probes
	// and metrics.
	Server serving.Options
	// Certs says where the serving certificate comes from.
	Certs certs.Options
	// Cluster configures the cluster-aware checks (off unless Enabled).
	Cluster clusterview.Options
	// InFlight bounds the work in flight and each request's time (in front
	// of the webhook handlers).
	InFlight inflight.Options
	// Enforcement says whether errors deny (the default) or only warn.
	Enforcement admission.Enforcement
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones.
	AddedNames validation.AddedNames
	// Scope says which ListenerSets are Airlock's (their parent Gateway's
	// GatewayClass names one of its controller names); on, the cluster
	// view keeps Gateways and GatewayClasses for it, and with
	// Cluster.Enabled the class warnings (LS317, LS318) read the class it
	// decided by. The zero Scope judges every ListenerSet, watches no
	// GatewayClass (so gives no class warning) and, without
	// Cluster.Enabled, reads nothing from the API.
	Scope validation.Scope
	// Register puts the admission handlers on the webhook server; nil means
	// admission.RegisterWith (the mutating, the validating and the deletion
	// webhook; the validating and the deletion one read the cluster view
	// when Cluster.Enabled). Tests replace them.
	Register func(ctrlwebhook.Server)
}

// Run serves the ListenerSet webhooks until ctx is cancelled, then shuts down
// in phases (serving.Run). It wires the parts: the certificate source and the
// cluster view run as the server's components, and the admission handlers
// are registered on controller-runtime's webhook server, used as a registrar
// only (it wraps each handler in its webhook metrics), behind the in-flight
// limiter, which gives each request its deadline; serving is
// serving.Run's, for the timeouts, cipher suites and shutdown that
// controller-runtime's server does not let us set. Logs go to the logger in
// ctx, or controller-runtime's global logger (log.SetLogger).
func Run(ctx context.Context, opts Options) error {
	log := logf.FromContext(ctx).WithName("listenerset-webhook")
	if err := opts.Server.Check(); err != nil {
		return err
	}
	limiter, err := inflight.New(opts.InFlight)
	if err != nil {
		return err
	}
	if err := opts.Enforcement.Check(); err != nil {
		return err
	}
	if err := opts.Scope.Unknown.Check(); err != nil {
		return err
	}
	validator, view, err := newValidator(opts.Cluster, opts.Scope, log)
	if err != nil {
		return err
	}
	validator.Enforcement = opts.Enforcement
	validator.AddedNames = opts.AddedNames
	if len(opts.AddedNames) > 0 {
		log.Info("Names added to the TLS option lists", "names", opts.AddedNames.Settings())
	}
	if opts.Enforcement == admission.EnforcementWarn {
		log.Info("Enforcement warn: no ListenerSet is denied; what would deny one is a warning, counted in " + admission.WouldDenyMetric)
	}
	source, err := certs.New(ctx, opts.Certs, opts.Server.Host, log)
	if err != nil {
		return err
	}
	mux := http.NewServeMux()
	registrar := ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux})
	if opts.Register != nil {
		opts.Register(registrar)
	} else {
		admission.RegisterWith(registrar, validator)
	}
	components := []serving.Component{source}
	if view != nil {
		components = append(components, view)
	}
	log.Info("Limiting the work in flight", "maxInFlightBytes", limiter.MaxBytes(), "defaultTimeout", limiter.DefaultTimeout().String())
	return serving.Run(ctx, opts.Server, log, limiter.Handler(mux), source.GetCertificate, components...)
}

// newValidator is the Validator Run serves, with the view it reads
// (returned so Run can start it; nil when it reads nothing).
func newValidator(opts clusterview.Options, scope validation.Scope, log logr.Logger) (admission.Validator, *clusterview.View, error) {
	if err := opts.Check(); err != nil {
		return admission.Validator{}, nil, err
	}
	w := clusterview.Watch{Scope: scope.On(), Cluster: opts.Enabled, Secrets: opts.WatchSecrets,
		NamespaceAnnotations: []string{opts.Tenancy.Annotation()}}
	if !w.Scope && !w.Cluster {
		log.Info("Scope off: every ListenerSet is judged with Airlock Microgateway's rules")
		return admission.Validator{}, nil, nil
	}
	view, err := clusterview.New(opts.RESTConfig, w, log.WithName("cluster-view"))
	if err != nil {
		return admission.Validator{}, nil, err
	}
	v := admission.Validator{Scope: scope}
	if w.Scope {
		v.Classes = view
		log.Info("Judging the ListenerSets whose parent Gateway's GatewayClass names one of these controllers; "+
			"until the Gateways and GatewayClasses have synced, a parent is unknown",
			"controllerNames", scope.ControllerNames, "unknownParent", unknownParent(scope.Unknown))
	} else {
		log.Info("Scope off: every ListenerSet is judged with Airlock Microgateway's rules")
	}
	if w.Cluster {
		v.Cluster, v.Routes, v.Strict, v.Tenancy = view, view, opts.Strict, opts.Tenancy
		log.Info("Cluster-aware checks on; each kind's checks start once its informer has synced", "strict", opts.Strict,
			"firstClaim", opts.Tenancy.Mode(), "allowedHostnamesAnnotation", opts.Tenancy.Annotation(), "tenantLabel", opts.Tenancy.TenantLabel)
	}
	log.Info("Cluster view", "kinds", view.Kinds())
	return v, view, nil
}

// unknownParent is u as the flag spells it ("" is the default, judge).
func unknownParent(u validation.UnknownParent) validation.UnknownParent {
	if u == "" {
		return validation.UnknownJudge
	}
	return u
}
