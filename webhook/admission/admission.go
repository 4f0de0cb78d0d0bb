package admission

import (
	"context"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation"
)

// Paths the webhooks are served at. They follow controller-runtime's
// generated naming (/mutate-<group with dashes>-<version>-<kind>) so that
// webhook configurations written for kubebuilder-style servers fit unchanged.
const (
	// MutatePath serves the mutating (defaulting) webhook.
	MutatePath = "/mutate-gateway-networking-k8s-io-v1-listenerset"
	// ValidatePath serves the validating webhook.
	ValidatePath = "/validate-gateway-networking-k8s-io-v1-listenerset"
	// ValidateWarnPath serves its warn twin (Registration's Warn): the same
	// checks, every error a warning, for the namespaces labelled to warn.
	ValidateWarnPath = "/validate-warn-gateway-networking-k8s-io-v1-listenerset"
)

// listenerSetGK names the kind in 422 Invalid statuses, so that kubectl prints
// `The ListenerSet "x" is invalid: ...` as for a built-in type.
var listenerSetGK = schema.GroupKind{Group: gwv1.GroupName, Kind: "ListenerSet"}

// Validator rejects what Airlock Microgateway cannot serve. It implements
// controller-runtime's admission.Validator around validation.Validate, the
// verdict the offline command gives too: this type only translates it into
// a 422 Invalid status and admission warnings.
//
// The zero Validator judges the object alone. With Cluster set the verdict
// includes the cluster-aware checks, which deny in Strict mode and are
// warnings otherwise. A Cluster that does not know a kind yet (a cache that
// has not synced) only skips the checks that need it.
type Validator struct {
	// Cluster is the view of the objects around the ListenerSet; nil skips
	// the cluster-aware checks.
	Cluster validation.Cluster
	// Strict turns the cluster-aware errors into denials.
	Strict bool
	// Enforcement says what the errors do: deny (the zero value and
	// EnforcementDeny), or only warn (EnforcementWarn).
	Enforcement Enforcement
	// AddedNames are names the list-valued TLS options accept besides the
	// built-in ones (validation.Options.AddedNames).
	AddedNames validation.AddedNames
	// Scope says which ListenerSets are Airlock's; the zero Scope judges
	// every one. Classes answers its reads. The mutating webhook
	// registered beside this Validator (RegisterWith) follows the same
	// scope.
	Scope   validation.Scope
	Classes validation.Classes
	// Routes are the HTTPRoutes naming ListenerSets
	// (validation.Options.Routes): an update or a deletion is told the
	// routes it detaches; nil tells none.
	Routes validation.Routes
	// Tenancy: owners, hostname declarations and the first claim
	// (validation.Options.Tenancy); needs Cluster.
	Tenancy validation.Tenancy
	// warnedBy says what made Enforcement warn, for the
	// listenerset_webhook_would_deny_total label source: the server's flag
	// (""), or a namespace's label (WarnedByNamespace, the warn twins
	// RegisterWith serves), so that an operator tells a namespace switched
	// to warn during an incident from an adoption in warn.
	warnedBy string
}

// The values of the source label of listenerset_webhook_would_deny_total.
const (
	// WarnedByFlag: the server's --enforcement=warn.
	WarnedByFlag = "flag"
	// WarnedByNamespace: the namespace's enforcement label, through a warn
	// twin (Registration's Warn).
	WarnedByNamespace = "namespace"
)

// warnTwin is v as its warn twins judge: every error a warning, counted
// as warned by the namespace.
func (v Validator) warnTwin() Validator {
	v.Enforcement, v.warnedBy = EnforcementWarn, WarnedByNamespace
	return v
}

// source is the source label of what v warns instead of denying.
func (v Validator) source() string {
	if v.warnedBy == "" {
		return WarnedByFlag
	}
	return v.warnedBy
}

// Enforcement is what a verdict's errors do.
type Enforcement string

const (
	// EnforcementDeny denies an object with errors: a 422 Invalid status.
	EnforcementDeny Enforcement = "deny"
	// EnforcementWarn admits it, and each error that would have denied it
	// is a warning (validation.KindWouldDeny, its message beginning
	// "would be denied"), counted in listenerset_webhook_would_deny_total:
	// the first step into a cluster, before the webhook denies anything.
	EnforcementWarn Enforcement = "warn"
)

// Enforcements are the accepted values of Enforcement, the default first.
var Enforcements = []Enforcement{EnforcementDeny, EnforcementWarn}

// Choices are Enforcements (the server's flag takes one of them).
func (Enforcement) Choices() []Enforcement { return Enforcements }

// Check refuses an Enforcement other than these ("" is deny).
func (e Enforcement) Check() error {
	if e == "" || slices.Contains(Enforcements, e) {
		return nil
	}
	return fmt.Errorf("enforcement %q: %s", string(e), findings.MustBe(Enforcements))
}

var _ cradmission.Validator[*gwv1.ListenerSet] = Validator{}

// ValidateCreate gives the verdict on ls: on errors a 422 Invalid status
// error whose causes name each field; the warnings either way.
func (v Validator) ValidateCreate(ctx context.Context, ls *gwv1.ListenerSet) (cradmission.Warnings, error) {
	return v.respond(ctx, ls, nil)
}

// ValidateUpdate gives the verdict on newLS as an update of oldLS: errors
// the update leaves unchanged are ratcheted into warnings (see
// validation.Validate), so objects stored before a rule existed stay editable.
func (v Validator) ValidateUpdate(ctx context.Context, oldLS, newLS *gwv1.ListenerSet) (cradmission.Warnings, error) {
	return v.respond(ctx, newLS, oldLS)
}

func (v Validator) respond(ctx context.Context, ls, oldLS *gwv1.ListenerSet) (cradmission.Warnings, error) {
	if err := ctx.Err(); err != nil {
		// The deadline passed while the objects were decoded: the verdict
		// would not be read (reviewGuard has answered 429), so it is not
		// worked out, and the core goes to a request that can still be
		// answered.
		return nil, abandoned(err)
	}
	r := validation.Judge(ls, oldLS, validation.Options{Cluster: v.Cluster, Strict: v.Strict, AddedNames: v.AddedNames,
		Scope: v.Scope, Classes: v.Classes, Routes: v.Routes, Tenancy: v.Tenancy})
	recordScope(webhookValidating, r.Scope)
	if v.Enforcement == EnforcementWarn && r.Errors.Total() > 0 {
		wouldDeny(ctx, r, v.source())
		recordCodes(ctx, AuditWouldDenyCodesKey, r.Errors.List())
		r.ErrorsAsWarnings()
	} else if r.Errors.Total() > 0 {
		recordCodes(ctx, AuditCodesKey, r.Errors.List())
	}
	return cradmission.Warnings(r.Warnings.List().Strings()), verdict(ctx, ls, r)
}

// abandoned is the error of work given up at its deadline. No one reads it:
// reviewGuard has answered the request with the limiter's 429 already.
func abandoned(err error) error {
	return fmt.Errorf("abandoned at the request's deadline: %w", err)
}

// ValidateDelete allows every deletion: nothing about a ListenerSet being
// removed can break Airlock Microgateway. (The deletion webhook at
// DeletePath, not this Validator, says which routes it detaches.)
func (Validator) ValidateDelete(context.Context, *gwv1.ListenerSet) (cradmission.Warnings, error) {
	return nil, nil
}

// verdict turns r's errors into the 422 Invalid status kube-apiserver
// itself returns for invalid objects, counts each error shown in
// listenerset_webhook_denials_total and logs the denial. It returns nil when
// there are no errors. The report is bounded (findings/report.go), so
// are the status and the log line: the counts are exact, the paths those of
// the errors shown.
//
// The logger in ctx comes from controller-runtime's admission.Webhook
// (DefaultLogConstructor) and already carries requestID (the admission UID),
// object, namespace, name, resource and user. Only field paths and error
// types are logged: values and details quote user input, and a log line needs
// no more than what finds the rule.
func verdict(ctx context.Context, ls *gwv1.ListenerSet, r *validation.Report) error {
	log := logf.FromContext(ctx)
	if r.Errors.Total() == 0 {
		log.V(1).Info("Admitted ListenerSet", "warningCount", r.Warnings.Total())
		return nil
	}
	errs := r.Errors.List()
	recordDenial(errs)
	log.Info("Denied ListenerSet", "errorCount", r.Errors.Total(), "errors", fieldTypes(errs), "warningCount", r.Warnings.Total())
	return apierrors.NewInvalid(listenerSetGK, displayName(ls), errs)
}

// wouldDeny counts and logs the errors of r that the enforcement "warn"
// lets through, as verdict does a denial's: the log line and
// listenerset_webhook_would_deny_total show what deny would refuse, and
// source what made it warn.
func wouldDeny(ctx context.Context, r *validation.Report, source string) {
	errs := r.Errors.List()
	recordWouldDeny(errs, source)
	logf.FromContext(ctx).Info("Would deny ListenerSet (enforcement warn: admitted with warnings)",
		"errorCount", r.Errors.Total(), "errors", fieldTypes(errs), "warningCount", r.Warnings.Total(), "warnedBy", source)
}

// maxLoggedBytes bounds what a log line lists of its errors, as its JSON
// encoder writes them (findings.JSONLen), so that with the rest of the
// line (the request's object, user and counts) it stays under 16 KiB. The
// report has cut each path to findings.MaxPathBytes already; this
// bounds how many of them one line names.
const maxLoggedBytes = 8 << 10

// fieldTypes is what a log line says of errs: each path and error type, as
// many as maxLoggedBytes holds, then how many more there were.
func fieldTypes(errs field.ErrorList) []string {
	out := make([]string, 0, len(errs))
	n := 0
	for i, e := range errs {
		s := e.Field + " (" + string(e.Type) + ")"
		if n += findings.JSONLen(s) + len(`"",`); n > maxLoggedBytes {
			return append(out, fmt.Sprintf(loggedMore, len(errs)-i))
		}
		out = append(out, s)
	}
	return out
}

// loggedMore ends a log line's list of errors that does not name them all.
const loggedMore = "and %d more shown in the response"

// displayName is the name kubectl will quote. An object created with
// generateName may reach a webhook before kube-apiserver has generated its
// name; the prefix then says more than "".
func displayName(ls *gwv1.ListenerSet) string {
	if ls.Name == "" {
		return ls.GenerateName
	}
	return ls.Name
}

// NewMutatingWebhook returns the defaulting webhook for every ListenerSet
// (the zero scope).
func NewMutatingWebhook() *cradmission.Webhook {
	return NewMutatingWebhookFor(validation.Scope{}, nil)
}

// NewMutatingWebhookFor returns the defaulting webhook: the defaulting
// handler (patch.go), whose patch sets what the ListenerSet CRD schema would
// default and never removes anything, so that a newer CRD's fields survive,
// for the ListenerSets scope judges (read through classes); every other one
// is admitted without a patch.
func NewMutatingWebhookFor(scope validation.Scope, classes validation.Classes) *cradmission.Webhook {
	return &cradmission.Webhook{Handler: defaulting{decoder: cradmission.NewDecoder(admissionScheme), scope: scope, classes: classes}}
}

// NewValidatingWebhook returns the validating webhook (the zero Validator:
// the object alone).
func NewValidatingWebhook() *cradmission.Webhook {
	return NewValidatingWebhookFor(Validator{})
}

// NewValidatingWebhookFor is NewValidatingWebhook with v, e.g. one with a
// cluster view: controller-runtime's admission.WithValidator around v, its
// response with the audit annotation of the errors' codes (AuditCodesKey).
//
// DELETE is not registered (the webhook configurations name CREATE and
// UPDATE only). Should one come, reviewGuard allows it before anything is
// decoded (RegisterWith): controller-runtime alone would decode oldObject
// for Validator.ValidateDelete and deny a deletion whose stored object does
// not decode.
func NewValidatingWebhookFor(v Validator) *cradmission.Webhook {
	wh := cradmission.WithValidator[*gwv1.ListenerSet](admissionScheme, v)
	wh.Handler = withAuditCodes(wh.Handler)
	return wh
}

// Register registers the webhooks on srv at MutatePath, ValidatePath,
// DeletePath and ValidateRoutePath, and the warn twins at ValidateWarnPath
// and ValidateRouteWarnPath, each behind reviewGuard (Run's server bounds each request, see
// Options.RequestTimeout). srv instruments them with controller-runtime's
// webhook metrics (controller_runtime_webhook_requests_total, _latency_seconds,
// _requests_in_flight). Tests use it with a server whose WebhookMux they serve
// over httptest.
func Register(srv ctrlwebhook.Server) {
	RegisterWith(srv, Validator{})
}

// RegisterWith is Register with the validating webhook's Validator v.
func RegisterWith(srv ctrlwebhook.Server, v Validator) {
	srv.Register(MutatePath, reviewGuard{next: NewMutatingWebhookFor(v.Scope, v.Classes)})
	srv.Register(ValidatePath, reviewGuard{next: NewValidatingWebhookFor(v)})
	srv.Register(DeletePath, reviewGuard{next: NewDeletionWebhook(v), deletions: true})
	srv.Register(ValidateRoutePath, reviewGuard{next: NewRouteWebhook(v), object: httpRouteTypeMeta})
	// The warn twins: whatever --enforcement says, a namespace whose label
	// selects them (the chart's webhook.enforcementLabel) is warned, never
	// denied, with the same findings.
	w := v.warnTwin()
	srv.Register(ValidateWarnPath, reviewGuard{next: NewValidatingWebhookFor(w)})
	srv.Register(ValidateRouteWarnPath, reviewGuard{next: NewRouteWebhook(w), object: httpRouteTypeMeta})
}
