package admission

import (
	"context"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/airlock/listenerset-webhook/findings"
)

// Keys of the audit annotations the validating webhook returns.
// kube-apiserver records each in the request's audit event under the
// webhook's name, e.g. "validate.listenersets.microgateway.airlock.com/codes":
// "LS104,LS106", so an audit pipeline finds the denials of a rule by its
// code (docs/codes.md) without parsing messages. A key takes no prefix of
// its own: kube-apiserver refuses a key with two.
const (
	// AuditCodesKey: the codes of a denial's errors.
	AuditCodesKey = "codes"
	// AuditWouldDenyCodesKey: under enforcement warn, the codes of the
	// errors that would have denied the object.
	AuditWouldDenyCodesKey = "would-deny-codes"
)

// auditCodes carries a verdict's codes from Validator, which
// controller-runtime's WithValidator lets return only warnings and an
// error, to withAuditCodes, which owns the response.
type auditCodes struct{ key, value string }

type auditCodesContextKey struct{}

// withAuditCodes adds the audit annotation of the verdict next answers
// with, when it has errors.
func withAuditCodes(next cradmission.Handler) cradmission.Handler {
	return cradmission.HandlerFunc(func(ctx context.Context, req cradmission.Request) cradmission.Response {
		var codes auditCodes
		resp := next.Handle(context.WithValue(ctx, auditCodesContextKey{}, &codes), req)
		if codes.value != "" {
			if resp.AuditAnnotations == nil {
				resp.AuditAnnotations = map[string]string{}
			}
			resp.AuditAnnotations[codes.key] = codes.value
		}
		return resp
	})
}

// recordCodes hands the codes of errs to withAuditCodes, under key.
func recordCodes(ctx context.Context, key string, errs field.ErrorList) {
	codes, ok := ctx.Value(auditCodesContextKey{}).(*auditCodes)
	if !ok {
		return // called outside the webhook's handler (a test of Validator alone)
	}
	codes.key, codes.value = key, codeList(errs)
}

// codeList is the distinct codes of errs, sorted and comma-separated: one
// entry per code, so the value is bounded by the catalog, not by the object
// (the errors are a bounded report already; its summary's code, LS001, says
// that some were not shown).
func codeList(errs field.ErrorList) string {
	var codes []string
	for _, e := range errs {
		if c := string(findings.CodeOf(e)); c != "" && !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	slices.Sort(codes)
	return strings.Join(codes, ",")
}
