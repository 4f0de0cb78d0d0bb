package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"gomodules.xyz/jsonpatch/v2"
	admissionv1 "k8s.io/api/admission/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	kjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/defaults"
)

// The two admission.Handlers below answer exactly as controller-runtime's
// admission.WithDefaulter and admission.WithValidator do for Defaulter and
// Validator, with two savings that the load tool measured
// (docs/performance.md): the ListenerSet is decoded in one JSON pass, where
// controller-runtime's universal deserializer first parses the whole object
// once more only to find its kind; and the mutating handler answers an
// object that needs no defaults without copying and comparing it.

// maxRequestSize is controller-runtime's limit on an AdmissionReview's size.
const maxRequestSize = 7 << 20

// reviewVersion is what kube-apiserver sends with admissionReviewVersions v1.
var reviewVersion = metav1.TypeMeta{APIVersion: admissionv1.SchemeGroupVersion.String(), Kind: "AdmissionReview"}

// oneParse serves wh as wh.ServeHTTP does, but decodes an admission.k8s.io/v1
// AdmissionReview in one JSON pass: controller-runtime's universal
// deserializer first parses the whole review, objects included, once more
// only to read its apiVersion and kind. With typedObjects (the validating
// webhook) the ListenerSets in it are decoded in that same pass, instead of
// being copied out as raw JSON and parsed again; the mutating webhook must
// not use it: its patch is computed against the raw object. Whatever is not a
// well-formed v1 review of a ListenerSet, of acceptable size and content type
// (an empty body, another version, an object of the wrong shape, ...) goes to
// wh.ServeHTTP as it came, so every answer stays controller-runtime's;
// wh.Handle does the rest (logger, panics, UID, patch).
//
// Except for what controller-runtime would accept although kube-apiserver
// never sends it (test/reliability's hostile requests found these): methods
// other than POST get 405; a body that is not JSON (controller-runtime's
// decoder also reads YAML) or is not an admission.k8s.io/v1 or v1beta1
// AdmissionReview (controller-runtime answers any other kind or version as
// if it were one, and allows it) gets a 400 AdmissionReview error; and a
// body that cannot be read to its end gets the 400 controller-runtime gives
// it, not an answer to the part that arrived.
type oneParse struct {
	wh           *admission.Webhook
	typedObjects bool
}

// typedReview is an admission.k8s.io/v1 AdmissionReview whose objects are
// ListenerSets: the outer object and oldObject fields take the JSON keys of
// the embedded request's RawExtensions.
type typedReview struct {
	metav1.TypeMeta `json:",inline"`
	Request         *struct {
		admissionv1.AdmissionRequest `json:",inline"`
		Object                       lastListenerSet `json:"object,omitempty"`
		OldObject                    lastListenerSet `json:"oldObject,omitempty"`
	} `json:"request,omitempty"`
}

// lastListenerSet decodes as a *gwv1.ListenerSet field would, except for a
// key given twice: the later object replaces the earlier one, as it does in
// a RawExtension (controller-runtime's answer), where a pointer field would
// merge the two objects (found by FuzzAdmissionReview). null keeps what was
// there, as in a RawExtension.
type lastListenerSet struct{ ls *gwv1.ListenerSet }

func (l *lastListenerSet) UnmarshalJSON(data []byte) error {
	if bytes.Equal(data, []byte("null")) {
		return nil
	}
	ls := &gwv1.ListenerSet{}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(data, ls); err != nil {
		return err
	}
	l.ls = ls
	return nil
}

func (h oneParse) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: an AdmissionReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	if r.Body == nil || r.Body == http.NoBody || r.Header.Get("Content-Type") != "application/json" {
		h.wh.ServeHTTP(w, r)
		return
	}
	defer r.Body.Close()
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestSize))
	if err != nil {
		// Not handed over: net/http reports a body cut short once and then
		// io.EOF, so controller-runtime would read a clean end and judge the
		// part that arrived.
		logf.FromContext(r.Context()).Error(err, "unable to read the body from the incoming request")
		writeUntyped(w, r, admission.Errored(http.StatusBadRequest, err))
		return
	}
	req, ok := admission.Request{}, false
	if len(body) < maxRequestSize {
		req, ok = h.decode(body)
		if !ok {
			if err := notAReview(body); err != nil {
				writeUntyped(w, r, admission.Errored(http.StatusBadRequest, err))
				return
			}
		}
	}
	if !ok {
		// A copy of r: net/http decides whether the connection can serve
		// another request by looking at the request's own Body after the
		// handler. Replaced, it could no longer see that a body over the
		// cap was left unread, kept the connection, and parsed the rest of
		// the body as the next request.
		rest := *r
		rest.Body = io.NopCloser(io.MultiReader(bytes.NewReader(body), r.Body))
		h.wh.ServeHTTP(w, &rest)
		return
	}
	resp := h.wh.Handle(r.Context(), req)
	out := admissionv1.AdmissionReview{TypeMeta: reviewVersion, Response: &resp.AdmissionResponse}
	if err := json.NewEncoder(w).Encode(out); err != nil {
		logf.FromContext(r.Context()).Error(err, "unable to encode and write the response")
	}
}

// writeUntyped answers as controller-runtime does when it has not decoded
// a review: an AdmissionReview without apiVersion and kind.
func writeUntyped(w http.ResponseWriter, r *http.Request, resp admission.Response) {
	if err := json.NewEncoder(w).Encode(admissionv1.AdmissionReview{Response: &resp.AdmissionResponse}); err != nil {
		logf.FromContext(r.Context()).Error(err, "unable to encode and write the response")
	}
}

// reviewVersions are the AdmissionReview versions kube-apiserver may send
// (admissionReviewVersions) and controller-runtime answers in kind.
var reviewVersions = []string{admissionv1.SchemeGroupVersion.String(), "admission.k8s.io/v1beta1"}

// notAReview explains why body is not JSON or not an AdmissionReview of a
// version in reviewVersions; it returns nil for one that is. It reads JSON
// as decode does (case-sensitive), so "APIVERSION" is no apiVersion.
func notAReview(body []byte) error {
	var tm metav1.TypeMeta
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &tm); err != nil {
		return fmt.Errorf("the body is not a JSON object: %w", err)
	}
	if tm.Kind != reviewVersion.Kind || !slices.Contains(reviewVersions, tm.APIVersion) {
		return fmt.Errorf("expected an AdmissionReview of %s, got apiVersion %q kind %q",
			strings.Join(reviewVersions, " or "), tm.APIVersion, tm.Kind)
	}
	// controller-runtime finds apiVersion and kind case-insensitively
	// (apimachinery's SimpleMetaFactory, with encoding/json) and answers in
	// the kind it found: a review that also had "KIND": "Foo" was answered
	// as kind Foo (found by FuzzAdmissionReview).
	var found metav1.TypeMeta
	if err := json.Unmarshal(body, &found); err != nil || found != tm {
		return errors.New(`ambiguous apiVersion or kind: more than one field named so up to case`)
	}
	return nil
}

// decode reads a v1 AdmissionReview; ok is false for anything else.
func (h oneParse) decode(body []byte) (admission.Request, bool) {
	if !h.typedObjects {
		var review admissionv1.AdmissionReview
		if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil ||
			review.TypeMeta != reviewVersion || review.Request == nil {
			return admission.Request{}, false
		}
		return admission.Request{AdmissionRequest: *review.Request}, true
	}
	var review typedReview
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &review); err != nil ||
		review.TypeMeta != reviewVersion || review.Request == nil {
		return admission.Request{}, false
	}
	req := admission.Request{AdmissionRequest: review.Request.AdmissionRequest}
	if review.Request.Object.ls != nil {
		req.Object = runtime.RawExtension{Object: review.Request.Object.ls}
	}
	if review.Request.OldObject.ls != nil {
		req.OldObject = runtime.RawExtension{Object: review.Request.OldObject.ls}
	}
	return req, true
}

// decodeListenerSet decodes an object of an AdmissionRequest. It reads JSON
// as kube-apiserver's own decoder does (case-sensitive field names, integers
// kept as integers; fields the Go types do not know are ignored).
//
// An object that names another kind or version is refused: decoding a
// Gateway or a Pod as a ListenerSet would ignore its fields and judge (or
// patch) what is left. One that names none is accepted, as
// controller-runtime's decoder accepts it (kube-apiserver has sent embedded
// objects without them, kubernetes/kubernetes#74373).
func decodeListenerSet(raw runtime.RawExtension) (*gwv1.ListenerSet, error) {
	ls, ok := raw.Object.(*gwv1.ListenerSet)
	if !ok || len(raw.Raw) != 0 { // not decoded already (oneParse)
		if len(raw.Raw) == 0 {
			return nil, errors.New("there is no content to decode")
		}
		ls = &gwv1.ListenerSet{}
		if err := kjson.UnmarshalCaseSensitivePreserveInts(raw.Raw, ls); err != nil {
			return nil, err
		}
	}
	if (ls.APIVersion != "" || ls.Kind != "") && (ls.APIVersion != listenerSetAPIVersion || ls.Kind != listenerSetGK.Kind) {
		return nil, fmt.Errorf("expected a ListenerSet of %s, got apiVersion %q kind %q", listenerSetAPIVersion, ls.APIVersion, ls.Kind)
	}
	return ls, nil
}

// listenerSetAPIVersion is the only version the webhooks are registered
// for; kube-apiserver converts others to it (matchPolicy Equivalent).
var listenerSetAPIVersion = gwv1.GroupVersion.String()

// errNoUID answers a request without uid: kube-apiserver always sends one
// and discards an answer whose uid does not match, so a request without one
// does not come from it.
var errNoUID = errors.New("request.uid is required")

// validatingHandler runs Validator on CREATE, UPDATE and DELETE requests.
type validatingHandler struct{ v Validator }

func (h validatingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.UID == "" {
		return admission.Errored(http.StatusBadRequest, errNoUID)
	}
	ctx = admission.NewContextWithRequest(ctx, req)
	var (
		warnings admission.Warnings
		err      error
	)
	switch req.Operation {
	case admissionv1.Connect:
	case admissionv1.Create:
		obj, derr := decodeListenerSet(req.Object)
		if derr != nil {
			return admission.Errored(http.StatusBadRequest, derr)
		}
		warnings, err = h.v.ValidateCreate(ctx, obj)
	case admissionv1.Update:
		obj, derr := decodeListenerSet(req.Object)
		if derr != nil {
			return admission.Errored(http.StatusBadRequest, derr)
		}
		old, derr := decodeListenerSet(req.OldObject)
		if derr != nil {
			return admission.Errored(http.StatusBadRequest, derr)
		}
		warnings, err = h.v.ValidateUpdate(ctx, old, obj)
	case admissionv1.Delete:
		old, derr := decodeListenerSet(req.OldObject)
		if derr != nil {
			return admission.Errored(http.StatusBadRequest, derr)
		}
		warnings, err = h.v.ValidateDelete(ctx, old)
	default:
		return admission.Errored(http.StatusBadRequest, fmt.Errorf("unknown operation %q", req.Operation))
	}
	if err != nil {
		var apiStatus apierrors.APIStatus
		if errors.As(err, &apiStatus) {
			status := apiStatus.Status()
			return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: &status}}.WithWarnings(warnings...)
		}
		return admission.Denied(err.Error()).WithWarnings(warnings...)
	}
	return admission.Allowed("").WithWarnings(warnings...)
}

// mutatingHandler runs Defaulter and answers with a JSON patch from the
// object as sent to the defaulted one, or with no patch when nothing
// changes.
type mutatingHandler struct{ d Defaulter }

func (h mutatingHandler) Handle(ctx context.Context, req admission.Request) admission.Response {
	if req.Operation == admissionv1.Delete {
		return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{
			Allowed: true, Result: &metav1.Status{Code: http.StatusOK},
		}}
	}
	if req.UID == "" {
		return admission.Errored(http.StatusBadRequest, errNoUID)
	}
	ctx = admission.NewContextWithRequest(ctx, req)
	obj, err := decodeListenerSet(req.Object)
	if err != nil {
		return admission.Errored(http.StatusBadRequest, err)
	}
	if !defaults.Needed(obj) {
		return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Allowed: true}}
	}
	if err := h.d.Default(ctx, obj); err != nil {
		var apiStatus apierrors.APIStatus
		if errors.As(err, &apiStatus) {
			status := apiStatus.Status()
			return admission.Response{AdmissionResponse: admissionv1.AdmissionResponse{Result: &status}}
		}
		return admission.Denied(err.Error())
	}
	marshalled, err := json.Marshal(obj)
	if err != nil {
		return admission.Errored(http.StatusInternalServerError, err)
	}
	return keepUnknownFields(admission.PatchResponseFromRaw(req.Object.Raw, marshalled))
}

// keepUnknownFields drops every "remove" operation from r: defaulting only
// sets what is unset, so a removal can only come from what the Go types
// drop from the object as sent (a newer CRD's field, an explicit null or
// empty value they omit), and the patch must add defaults, never remove
// anything. controller-runtime's dropSchemeRemovals, which this was,
// drops only the removals that a patch to the undefaulted object has as
// well; that misses a field inside an object the Go types omit whole
// ("spec": {"x": 1} without parentRef: that patch removes /spec, this one
// /spec/x, and x was removed).
func keepUnknownFields(r admission.Response) admission.Response {
	if !r.Allowed || r.PatchType == nil {
		return r
	}
	r.Patches = slices.DeleteFunc(r.Patches, func(p jsonpatch.JsonPatchOperation) bool { return p.Operation == "remove" })
	if len(r.Patches) == 0 {
		r.PatchType = nil
	}
	return r
}
