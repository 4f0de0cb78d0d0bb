package webhook

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/defaults"
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
)

// listenerSetGK names the kind in 422 Invalid statuses, so that kubectl prints
// `The ListenerSet "x" is invalid: ...` as for a built-in type.
var listenerSetGK = schema.GroupKind{Group: gwv1.GroupName, Kind: "ListenerSet"}

// Defaulter sets what the ListenerSet CRD schema would default. It implements
// controller-runtime's admission.Defaulter; the mutating handler
// (handlers.go, as admission.WithDefaulter would) turns the change into a
// JSON patch, answers without a patch when nothing changed, and never
// removes fields that the Go types do not know (a newer CRD's fields
// survive).
type Defaulter struct{}

var _ admission.Defaulter[*gwv1.ListenerSet] = Defaulter{}

// Default sets ls's unset defaulted fields in place via defaults.ListenerSet.
func (Defaulter) Default(_ context.Context, ls *gwv1.ListenerSet) error {
	defaults.ListenerSet(ls)
	return nil
}

// Validator rejects what Airlock Microgateway cannot serve. It implements
// controller-runtime's admission.Validator. It judges a defaulted copy of the
// object, so that an object written against an older CRD (which defaulted
// less, or not at all) is judged as it will be stored, exactly like the
// offline validate command does.
//
// The zero Validator judges the object alone. With Cluster set it also runs
// the cluster-aware checks (validation.ValidateListenerSetInCluster): their
// warnings are always added; listener conflicts and references no
// ReferenceGrant permits deny the request in Strict mode (ratcheted on
// update: see validation.ValidateListenerSetUpdateInCluster) and are warnings
// otherwise. A Cluster that does not know a kind yet (a cache that has not
// synced) only skips the checks that need it.
type Validator struct {
	// Cluster is the view of the objects around the ListenerSet; nil skips
	// the cluster-aware checks.
	Cluster validation.Cluster
	// Strict turns the cluster-aware errors into denials.
	Strict bool
}

var _ admission.Validator[*gwv1.ListenerSet] = Validator{}

// ValidateCreate validates ls. On errors it returns a 422 Invalid status
// error whose causes name each field; validation's warnings are returned as
// admission warnings either way.
func (v Validator) ValidateCreate(ctx context.Context, ls *gwv1.ListenerSet) (admission.Warnings, error) {
	ls = defaulted(ls)
	errs, warnings := validation.ValidateListenerSet(ls)
	errs, warnings = v.inCluster(ls, nil, errs, warnings)
	return admission.Warnings(warnings), verdict(ctx, ls, errs, len(warnings))
}

// ValidateUpdate validates newLS against oldLS: errors the stored object
// already had on an unchanged value are ratcheted into warnings by
// validation.ValidateListenerSetUpdate, so old objects stay editable.
func (v Validator) ValidateUpdate(ctx context.Context, oldLS, newLS *gwv1.ListenerSet) (admission.Warnings, error) {
	newLS, oldLS = defaulted(newLS), defaulted(oldLS)
	errs, warnings := validation.ValidateListenerSetUpdate(newLS, oldLS)
	errs, warnings = v.inCluster(newLS, oldLS, errs, warnings)
	return admission.Warnings(warnings), verdict(ctx, newLS, errs, len(warnings))
}

// inCluster appends the cluster-aware findings on ls (oldLS is the stored
// object on update, nil on create) to the object's own errs and warnings:
// its errors as denials (Strict) or as warnings, and its warnings.
func (v Validator) inCluster(ls, oldLS *gwv1.ListenerSet, errs field.ErrorList, warnings validation.Warnings) (field.ErrorList, validation.Warnings) {
	if v.Cluster == nil {
		return errs, warnings
	}
	var (
		clusterErrs     field.ErrorList
		clusterWarnings validation.Warnings
	)
	if v.Strict && oldLS != nil {
		clusterErrs, clusterWarnings = validation.ValidateListenerSetUpdateInCluster(ls, oldLS, v.Cluster)
	} else {
		clusterErrs, clusterWarnings = validation.ValidateListenerSetInCluster(ls, v.Cluster)
	}
	return validation.MergeClusterFindings(ls, v.Cluster, errs, warnings, clusterErrs, clusterWarnings, v.Strict)
}

// ValidateDelete allows every deletion: nothing about a ListenerSet being
// removed can break Airlock Microgateway. (The handler built by
// NewValidatingWebhook does not even get here; see allowDeletes.)
func (Validator) ValidateDelete(context.Context, *gwv1.ListenerSet) (admission.Warnings, error) {
	return nil, nil
}

// defaulted returns ls defaulted, as a copy when defaulting changes anything;
// the object in the request stays as sent (a validating webhook must not
// change it anyway). Objects from kube-apiserver come defaulted by the CRD,
// so usually nothing is copied.
func defaulted(ls *gwv1.ListenerSet) *gwv1.ListenerSet {
	if !defaults.Needed(ls) {
		return ls
	}
	ls = ls.DeepCopy()
	defaults.ListenerSet(ls)
	return ls
}

// verdict turns errs into the 422 Invalid status kube-apiserver itself
// returns for invalid objects, counts each error in
// listenerset_webhook_denials_total and logs the denial. It returns nil when
// errs is empty.
//
// The logger in ctx comes from controller-runtime's admission.Webhook
// (DefaultLogConstructor) and already carries requestID (the admission UID),
// object, namespace, name, resource and user. Only field paths and error
// types are logged: values and details quote user input, and a log line needs
// no more than what finds the rule.
func verdict(ctx context.Context, ls *gwv1.ListenerSet, errs field.ErrorList, warningCount int) error {
	log := logf.FromContext(ctx)
	if len(errs) == 0 {
		log.V(1).Info("Admitted ListenerSet", "warningCount", warningCount)
		return nil
	}
	recordDenial(errs)
	paths := make([]string, 0, len(errs))
	for _, e := range errs {
		paths = append(paths, e.Field+" ("+string(e.Type)+")")
	}
	log.Info("Denied ListenerSet", "errorCount", len(errs), "errors", paths, "warningCount", warningCount)
	return apierrors.NewInvalid(listenerSetGK, displayName(ls), errs)
}

// displayName is the name kubectl will quote. An object created with
// generateName may reach a webhook before kube-apiserver has generated its
// name; the prefix then says more than "".
func displayName(ls *gwv1.ListenerSet) string {
	if ls.Name == "" {
		return ls.GenerateName
	}
	return ls.Name
}

// NewMutatingWebhook returns the defaulting webhook: controller-runtime's
// admission.WithDefaulter around Defaulter, whose patch never removes
// anything (keepUnknownFields). It answers DELETE itself, allowing without
// decoding anything.
func NewMutatingWebhook() *admission.Webhook {
	wh := admission.WithDefaulter[*gwv1.ListenerSet](admissionScheme, Defaulter{})
	wh.Handler = keepUnknownFields(wh.Handler)
	return wh
}

// NewValidatingWebhook returns the validating webhook (the zero Validator:
// the object alone).
func NewValidatingWebhook() *admission.Webhook {
	return NewValidatingWebhookFor(Validator{})
}

// NewValidatingWebhookFor is NewValidatingWebhook with v, e.g. one with a
// cluster view: controller-runtime's admission.WithValidator around v.
//
// DELETE is not registered (the webhook configurations name CREATE and
// UPDATE only), so nothing here treats it specially: should one come, it
// goes the way controller-runtime sends it, to Validator.ValidateDelete,
// which allows. kube-apiserver sends the object being deleted as oldObject
// on every DELETE, which is what controller-runtime decodes for it.
func NewValidatingWebhookFor(v Validator) *admission.Webhook {
	return admission.WithValidator[*gwv1.ListenerSet](admissionScheme, v)
}

// Register registers both webhooks on srv at MutatePath and ValidatePath,
// each behind reviewGuard (Run's server bounds each request, see
// Options.RequestTimeout). srv instruments them with controller-runtime's
// webhook metrics (controller_runtime_webhook_requests_total, _latency_seconds,
// _requests_in_flight). Tests use it with a server whose WebhookMux they serve
// over httptest.
func Register(srv ctrlwebhook.Server) {
	RegisterWith(srv, Validator{})
}

// RegisterWith is Register with the validating webhook's Validator v.
func RegisterWith(srv ctrlwebhook.Server, v Validator) {
	srv.Register(MutatePath, reviewGuard{NewMutatingWebhook()})
	srv.Register(ValidatePath, reviewGuard{NewValidatingWebhookFor(v)})
}
