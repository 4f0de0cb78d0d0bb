package admission_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	ctrlwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/test/load/floor"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
	"github.com/airlock/listenerset-webhook/webhook/internal/reviewtest"
)

// BenchmarkHandler is the whole in-process HTTP path of one admission
// request, as registered on controller-runtime's webhook server (with its
// metrics): read the body, decode the AdmissionReview and check it
// (reviewGuard), decode the ListenerSet (controller-runtime), default,
// validate, encode the response. Objects are sent as kube-apiserver
// sends them, defaulted by the CRD. "floor" is the same server with the
// decode-and-allow handler of the load tool: the difference is our work.
func BenchmarkHandler(b *testing.B) {
	ours := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: ours}))
	floorMux := http.NewServeMux()
	floor.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: floorMux}))

	update := fixtures.Defaulted(fixtures.TwoListeners())
	update.Spec.Listeners[0].Hostname = ptrTo[gwv1.Hostname]("www.example.com")
	cases := []struct {
		name string
		body []byte
	}{
		{"two-listeners", fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(fixtures.TwoListeners()), nil)},
		{"two-listeners-update", fixtures.Review("1", admissionv1.Update, update, fixtures.Defaulted(fixtures.TwoListeners()))},
		{"reference-example", fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(fixtures.ReferenceExample()), nil)},
		{"sixty-four-tls", fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(fixtures.SixtyFour()), nil)},
		{"many-errors", fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(fixtures.ManyErrors()), nil)},
		{"undefaulted", fixtures.Review("1", admissionv1.Create, fixtures.TwoListeners(), nil)},
	}
	for _, server := range []struct {
		name string
		mux  *http.ServeMux
	}{{"ours", ours}, {"floor", floorMux}} {
		for _, path := range []struct{ name, path string }{{"mutate", admission.MutatePath}, {"validate", admission.ValidatePath}} {
			for _, c := range cases {
				b.Run(server.name+"/"+path.name+"/"+c.name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(len(c.body)))
					for b.Loop() {
						req := httptest.NewRequest(http.MethodPost, path.path, bytes.NewReader(c.body))
						req.Header.Set("Content-Type", "application/json")
						rec := httptest.NewRecorder()
						server.mux.ServeHTTP(rec, req)
						if rec.Code != http.StatusOK {
							b.Fatalf("status %d: %s", rec.Code, rec.Body)
						}
					}
				})
			}
		}
	}
}

func ptrTo[T any](v T) *T { return &v }

// BenchmarkHandlerWorst is BenchmarkHandler's path for every worst object
// the CRD admits (validationtest.WorstShapes at 64 listeners), through
// both webhooks, with the size of the answer.
func BenchmarkHandlerWorst(b *testing.B) {
	mux := http.NewServeMux()
	admission.Register(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}))
	for _, s := range validationtest.WorstShapes {
		body := reviewtest.Worst(s)
		for _, path := range []struct{ name, path string }{{"mutate", admission.MutatePath}, {"validate", admission.ValidatePath}} {
			b.Run(path.name+"/"+s.Name, func(b *testing.B) { benchmarkRequest(b, mux, path.path, body) })
		}
	}
}

// benchmarkRequest posts body to path on mux, over and over, and reports
// the answer's size.
func benchmarkRequest(b *testing.B, mux http.Handler, path string, body []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	defer validationtest.ReportCPU(b)()
	var size int
	for b.Loop() {
		req := httptest.NewRequest(http.MethodPost, path, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %.300s", rec.Code, rec.Body)
		}
		size = rec.Body.Len()
	}
	b.ReportMetric(float64(size), "response-bytes")
}

// BenchmarkHandlerWorstDeclared is BenchmarkHandlerWorst's validating path
// for the 64-listener set of the deepest hostnames against each worst
// hostname declaration (validationtest.DeclaredShapes), the Validator's
// cluster holding the declaring Namespace, with the size of the answer.
func BenchmarkHandlerWorstDeclared(b *testing.B) {
	for _, s := range validationtest.DeclaredShapes {
		mux := http.NewServeMux()
		admission.RegisterWith(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}), admission.Validator{Cluster: validationtest.DeclaredCluster(s)})
		body := fixtures.Review("1", admissionv1.Create, fixtures.Defaulted(validationtest.DeepestHostnames()), nil)
		b.Run("validate/"+s.Name, func(b *testing.B) { benchmarkRequest(b, mux, admission.ValidatePath, body) })
	}
}

// BenchmarkHandlerWorstRoute is the HTTPRoute webhook's path for the worst
// route (validationtest.WorstRouteCluster: 16 hostnames by 64 parentRefs,
// each a set of 64 listeners without a hostname), its hostnames declared
// or each refused and warned, with the size of the answer.
func BenchmarkHandlerWorstRoute(b *testing.B) {
	for _, refused := range []bool{false, true} {
		c, route := validationtest.WorstRouteCluster(validationtest.WorstRouteParents, refused)
		mux := http.NewServeMux()
		admission.RegisterWith(ctrlwebhook.NewServer(ctrlwebhook.Options{WebhookMux: mux}), admission.Validator{Cluster: c, Routes: c})
		body := fixtures.RouteReview("1", admissionv1.Create, route, nil)
		name := "declared"
		if refused {
			name = "refused"
		}
		// the verdict benchmarked is the one named: a route the webhook
		// did not judge would be cheap
		req := httptest.NewRequest(http.MethodPost, admission.ValidateRoutePath, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, req)
		if denied := bytes.Contains(rec.Body.Bytes(), []byte(`"allowed":false`)); denied != refused {
			b.Fatalf("%s: denied %v: %.300s", name, denied, rec.Body)
		}
		b.Run("validate/"+name, func(b *testing.B) { benchmarkRequest(b, mux, admission.ValidateRoutePath, body) })
	}
}
