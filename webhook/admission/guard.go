package admission

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	cradmission "sigs.k8s.io/controller-runtime/pkg/webhook/admission"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	kjson "sigs.k8s.io/json"

	"github.com/airlock/listenerset-webhook/webhook/inflight"
)

// reviewGuard stands in front of a controller-runtime admission.Webhook and
// refuses what kube-apiserver never sends but controller-runtime alone would
// answer as if it were a review (the hostile-request battery in
// test/reliability found each of these). In order, as controller-runtime
// checks what it checks too, so that those answers stay its own:
//
//   - a method other than POST: 405 with Allow: POST;
//   - a body that cannot be read to its end (net/http reports a body cut
//     short once and then io.EOF, so a second reader would judge the part
//     that arrived), or that reaches maxRequestSize: 400 or 413, and the
//     connection closes, since the rest of the body was not read and must
//     not be taken for the next request; an empty body;
//   - a Content-Type other than application/json (controller-runtime's
//     decoder also reads YAML);
//   - anything but an admission.k8s.io/v1 or v1beta1 AdmissionReview in JSON
//     with a request.uid: controller-runtime decodes any apiVersion and kind
//     into a v1 review, finds apiVersion and kind case-insensitively (so a
//     "KIND" beside "kind" is refused), and answers a review without uid,
//     whose answer kube-apiserver would discard anyway;
//   - a DELETE: allowed at once, neither object decoded. DELETE is not
//     registered, but should a configuration send one, no review may block
//     a deletion: controller-runtime's validating webhook decodes oldObject
//     for Validator.ValidateDelete and denied a deletion whose stored object
//     did not decode ("json: cannot unmarshal string into Go struct field
//     ListenerSetSpec.spec.listeners"), and the object checks below would
//     deny one whose oldObject is not a ListenerSet. Both webhooks answer
//     so, as controller-runtime's defaulting webhook already did;
//   - a request.object or request.oldObject that is not a JSON object, or
//     that names another apiVersion or kind than a gateway.networking.k8s.io/v1
//     ListenerSet. controller-runtime's decoder refuses most of these by its
//     scheme, but it reads the kind case-insensitively: a Pod with a "KIND":
//     "ListenerSet" field was judged as a ListenerSet, its own fields ignored.
//     An object that names neither is accepted, as controller-runtime's
//     decoder accepts it (kube-apiserver has sent embedded objects without
//     them, kubernetes/kubernetes#74373).
//
// Refusals other than the 405 are AdmissionReviews that deny with that code,
// as controller-runtime writes its own: typed and with the uid once the body
// is known to be a review, untyped before. A review whose deadline
// (inflight.Limiter) has passed by the time its body is read gets the
// limiter's 429 instead, and is not decoded further. Everything else goes to
// next with the body as read, so every other answer to a well-formed review
// is controller-runtime's. Reading the body here once more than
// controller-runtime does costs tens of microseconds for a usual ListenerSet
// (BenchmarkHandler), next to the milliseconds of kube-apiserver's round
// trip; keeping the checks apart from controller-runtime's decoding is
// worth that.
type reviewGuard struct{ next http.Handler }

// maxRequestSize is controller-runtime's limit on an AdmissionReview's size
// (admission.Webhook.ServeHTTP reads no more). A body of exactly this size is
// refused too, as a reader capped there cannot tell it from a longer one.
const maxRequestSize = 7 << 20

// reviewVersions are the AdmissionReview versions kube-apiserver may send
// (admissionReviewVersions); controller-runtime answers in the version it got.
var reviewVersions = []string{admissionv1.SchemeGroupVersion.String(), "admission.k8s.io/v1beta1"}

// listenerSetTypeMeta is what request.object and request.oldObject may name.
var listenerSetTypeMeta = metav1.TypeMeta{APIVersion: gwv1.GroupVersion.String(), Kind: listenerSetGK.Kind}

// reviewHead is what the guard reads of a review; controller-runtime decodes
// the rest. The objects are RawExtensions, as in admissionv1.AdmissionRequest,
// so that a key given twice is read as controller-runtime reads it (the later
// one, unless it is null).
type reviewHead struct {
	metav1.TypeMeta `json:",inline"`
	Request         *struct {
		UID       types.UID             `json:"uid"`
		Operation admissionv1.Operation `json:"operation"`
		Object    runtime.RawExtension  `json:"object"`
		OldObject runtime.RawExtension  `json:"oldObject"`
	} `json:"request"`
}

func (g reviewGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		http.Error(w, "method not allowed: an AdmissionReview is POSTed", http.StatusMethodNotAllowed)
		return
	}
	var body []byte
	if r.Body != nil {
		var err error
		body, err = io.ReadAll(io.LimitReader(r.Body, maxRequestSize))
		if err != nil {
			logf.FromContext(r.Context()).Error(err, "unable to read the body from the incoming request")
			w.Header().Set("Connection", "close")
			refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, err)
			return
		}
	}
	if len(body) >= maxRequestSize {
		w.Header().Set("Connection", "close")
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusRequestEntityTooLarge,
			fmt.Errorf("request entity is too large; limit is %d bytes", maxRequestSize))
		return
	}
	if len(body) == 0 {
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, errors.New("request body is empty"))
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		refuse(w, r, metav1.TypeMeta{}, "", http.StatusBadRequest, fmt.Errorf("contentType=%s, expected application/json", ct))
		return
	}
	if inflight.Expired(w, r) {
		return
	}
	tm, uid, deletion, err := checkReview(body)
	if err != nil {
		refuse(w, r, tm, uid, http.StatusBadRequest, err)
		return
	}
	if deletion {
		answer(w, r, tm, uid, cradmission.Allowed("").AdmissionResponse)
		return
	}
	// A copy of r with the body as read: r itself keeps its Body, by which
	// net/http decides after the handler whether the connection can serve
	// another request.
	next := *r
	next.Body = io.NopCloser(bytes.NewReader(body))
	g.next.ServeHTTP(w, &next)
}

// checkReview returns why body is not a review the guard hands on, with the
// review's type and uid to answer with when it is a review; nil when it can
// be handed on. deletion says the review is of a DELETE, whose objects it
// does not look at.
func checkReview(body []byte) (tm metav1.TypeMeta, uid types.UID, deletion bool, err error) {
	var head reviewHead
	if err := kjson.UnmarshalCaseSensitivePreserveInts(body, &head); err != nil {
		return metav1.TypeMeta{}, "", false, fmt.Errorf("the body is not a JSON AdmissionReview: %w", err)
	}
	// controller-runtime finds apiVersion and kind case-insensitively
	// (apimachinery's SimpleMetaFactory uses encoding/json) and answers in
	// the kind it found: a review with a "KIND": "Foo" field beside "kind"
	// was answered as one of kind Foo (found by FuzzAdmissionReview).
	var found metav1.TypeMeta
	if err := json.Unmarshal(body, &found); err != nil || found != head.TypeMeta {
		return metav1.TypeMeta{}, "", false, errors.New("ambiguous apiVersion or kind: more than one field named so up to case")
	}
	if head.Kind != "AdmissionReview" || !slices.Contains(reviewVersions, head.APIVersion) {
		return metav1.TypeMeta{}, "", false, fmt.Errorf("expected an AdmissionReview of %s, got apiVersion %q kind %q",
			strings.Join(reviewVersions, " or "), head.APIVersion, head.Kind)
	}
	if head.Request == nil || head.Request.UID == "" {
		// kube-apiserver always sends a uid and discards an answer whose
		// uid does not match, so a request without one is not from it.
		return head.TypeMeta, "", false, errors.New("request.uid is required")
	}
	if head.Request.Operation == admissionv1.Delete {
		return head.TypeMeta, head.Request.UID, true, nil
	}
	for _, o := range []struct {
		field string
		raw   []byte
	}{{"object", head.Request.Object.Raw}, {"oldObject", head.Request.OldObject.Raw}} {
		if len(o.raw) == 0 {
			continue // absent or null: controller-runtime's decoder answers if it needs it
		}
		// Exact case, as the object is decoded. Case variants need no second
		// look here: controller-runtime's decoder finds the kind
		// case-insensitively too, and the scheme it decodes with turns
		// anything it then finds but a ListenerSet into a 400.
		var tm metav1.TypeMeta
		if err := kjson.UnmarshalCaseSensitivePreserveInts(o.raw, &tm); err != nil {
			return head.TypeMeta, head.Request.UID, false, fmt.Errorf("request.%s is not a JSON object: %w", o.field, err)
		}
		if tm != (metav1.TypeMeta{}) && tm != listenerSetTypeMeta {
			return head.TypeMeta, head.Request.UID, false, fmt.Errorf("request.%s: expected a ListenerSet of %s, got apiVersion %q kind %q",
				o.field, listenerSetTypeMeta.APIVersion, tm.APIVersion, tm.Kind)
		}
	}
	return head.TypeMeta, head.Request.UID, false, nil
}

// refuse answers as controller-runtime's admission.Errored does: a 200 whose
// AdmissionReview denies with code and err. tm is the review's type ("" when
// the body is not known to be a review), uid its request's.
func refuse(w http.ResponseWriter, r *http.Request, tm metav1.TypeMeta, uid types.UID, code int32, err error) {
	answer(w, r, tm, uid, cradmission.Errored(code, err).AdmissionResponse)
}

// answer writes resp for the review of type tm and uid uid as
// controller-runtime's admission.Webhook writes its answers.
func answer(w http.ResponseWriter, r *http.Request, tm metav1.TypeMeta, uid types.UID, resp admissionv1.AdmissionResponse) {
	resp.UID = uid
	if err := json.NewEncoder(w).Encode(admissionv1.AdmissionReview{TypeMeta: tm, Response: &resp}); err != nil {
		logf.FromContext(r.Context()).Error(err, "unable to encode and write the response")
	}
}
