package admission

import (
	"context"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/validation"
)

// ValidateRoutePath serves the HTTPRoute webhook: routes are claims
// (validation.JudgeRoute), judged when they are applied.
const ValidateRoutePath = "/validate-gateway-networking-k8s-io-v1-httproute"

// ValidateRouteWarnPath serves its warn twin (Registration's Warn).
const ValidateRouteWarnPath = "/validate-warn-gateway-networking-k8s-io-v1-httproute"

// httpRouteGK names the kind in 422 Invalid statuses: `The HTTPRoute "x"
// is invalid: ...`.
var httpRouteGK = schema.GroupKind{Group: gwv1.GroupName, Kind: "HTTPRoute"}

// routeValidator gives validation.JudgeRoute's verdict on HTTPRoute
// creates and updates, with v's cluster view, routes, scope, tenancy and
// enforcement: a route that claims names through Airlock's ListenerSets
// is denied (a 422 Invalid, as a ListenerSet is) for a hostname outside
// its Namespace's declaration, or under --first-claim=deny one another
// owner holds on the Gateway; warned otherwise. A route that names no
// ListenerSet of Airlock's (another implementation's Gateway, a Gateway
// parent) gets nothing. Without a cluster view nothing is judged.
type routeValidator struct{ v Validator }

var _ cradmission.Validator[*gwv1.HTTPRoute] = routeValidator{}

// NewRouteWebhook is the HTTPRoute webhook of v, the response with the
// audit annotation of the errors' codes, as the ListenerSet one's.
func NewRouteWebhook(v Validator) *cradmission.Webhook {
	wh := cradmission.WithValidator[*gwv1.HTTPRoute](admissionScheme, routeValidator{v: v})
	wh.Handler = withAuditCodes(wh.Handler)
	return wh
}

// ValidateCreate implements admission.Validator.
func (r routeValidator) ValidateCreate(ctx context.Context, route *gwv1.HTTPRoute) (cradmission.Warnings, error) {
	return r.respond(ctx, route, nil)
}

// ValidateUpdate implements admission.Validator: a claim the stored route
// held on the same Gateway is ratcheted.
func (r routeValidator) ValidateUpdate(ctx context.Context, oldRoute, route *gwv1.HTTPRoute) (cradmission.Warnings, error) {
	return r.respond(ctx, route, oldRoute)
}

// ValidateDelete allows every deletion: a route that goes claims nothing.
func (routeValidator) ValidateDelete(context.Context, *gwv1.HTTPRoute) (cradmission.Warnings, error) {
	return nil, nil
}

func (r routeValidator) respond(ctx context.Context, route, oldRoute *gwv1.HTTPRoute) (cradmission.Warnings, error) {
	if err := ctx.Err(); err != nil {
		return nil, abandoned(err)
	}
	v := r.v
	rep := validation.JudgeRoute(route, oldRoute, validation.Options{Cluster: v.Cluster, Routes: v.Routes, Scope: v.Scope,
		Classes: v.Classes, Tenancy: v.Tenancy})
	log := logf.FromContext(ctx)
	if rep.Errors.Total() == 0 {
		log.V(1).Info("Admitted HTTPRoute", "warningCount", rep.Warnings.Total())
		return cradmission.Warnings(rep.Warnings.List().Strings()), nil
	}
	errs := rep.Errors.List()
	if v.Enforcement == EnforcementWarn {
		recordWouldDeny(errs, v.source())
		recordCodes(ctx, AuditWouldDenyCodesKey, errs)
		log.Info("Would deny HTTPRoute (enforcement warn: admitted with warnings)", "errorCount", rep.Errors.Total(), "errors", fieldTypes(errs),
			"warnedBy", v.source())
		rep.ErrorsAsWarnings()
		return cradmission.Warnings(rep.Warnings.List().Strings()), nil
	}
	recordCodes(ctx, AuditCodesKey, errs)
	recordDenial(errs)
	log.Info("Denied HTTPRoute", "errorCount", rep.Errors.Total(), "errors", fieldTypes(errs), "warningCount", rep.Warnings.Total())
	name := route.Name
	if name == "" {
		name = route.GenerateName
	}
	return cradmission.Warnings(rep.Warnings.List().Strings()), apierrors.NewInvalid(httpRouteGK, name, errs)
}
