package main

// The worst hostname declarations through the real webhook (-scale-worst):
// after a size's measured creates, Namespaces declaring each of
// validationtest.DeclaredShapes' declarations are created through
// kube-apiserver, and the 64-listener set of the deepest hostnames in each
// is sent to the webhook's validating path as kube-apiserver sends it: the
// time, the answer's size and the peak RSS the request raises
// (docs/performance.md, "Worst objects").

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/airlock/listenerset-webhook/validation"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/test/load/fixtures"
	"github.com/airlock/listenerset-webhook/validation/validationtest"
	"github.com/airlock/listenerset-webhook/webhook/admission"
)

var scaleWorst = flag.Bool("scale-worst", false, "scale figure: after each size's measured creates, send the 64-listener set of the deepest hostnames "+
	"against each worst hostname declaration (validationtest.DeclaredShapes, on Namespaces created through kube-apiserver) to the webhook: time, answer size, peak RSS")

// Bounds of one worst request (docs/performance.md, "Worst objects").
const (
	targetWorstMs       = 100.0
	targetWorstResponse = 64 << 10
	targetWorstRSSMiB   = 48.0
)

// worstRepeats is how many times each worst request is sent, one after
// the other: on a shared machine one answer's time is mostly the others'
// work, the median of a few much less.
const worstRepeats = 5

// worstResult is one worst declaration's requests to the webhook.
type worstResult struct {
	Shape            string `json:"shape"`
	DeclarationBytes int    `json:"declarationBytes"`
	RequestBytes     int    `json:"requestBytes"`
	// The least, median and most time of worstRepeats requests, and the
	// webhook's CPU per request over them.
	MinMs         float64 `json:"minMs"`
	Ms            float64 `json:"medianMs"`
	MaxMs         float64 `json:"maxMs"`
	CPUMs         float64 `json:"cpuMs"`
	ResponseBytes int     `json:"responseBytes"`
	Causes        int     `json:"causes"`
	// PeakRSSGrowthMiB is the peak RSS during the requests over the RSS
	// before them (VmHWM reset through /proc/<pid>/clear_refs).
	PeakRSSGrowthMiB float64 `json:"peakRssGrowthMiB"`
	// Message is the start of the denial's message.
	Message string `json:"message"`
	// Problem says how the verdict is not the shape's; empty when it is.
	Problem string `json:"problem,omitempty"`
}

// worstNamespace is the Namespace declaring shape k's declaration.
func worstNamespace(k int) string { return fmt.Sprintf("%s-%d", validationtest.DeclaredNamespace, k) }

// worstSet is the DeclaredShapes' set in namespace, on the first Gateway,
// as kube-apiserver sends it.
func worstSet(namespace string) *gwv1.ListenerSet {
	ls := validationtest.DeepestHostnames()
	ls.Namespace = namespace
	ls.Spec.ParentRef.Namespace, ls.Spec.ParentRef.Name = ptr.To(gwv1.Namespace(scaleNS(0))), scaleGateway
	return fixtures.Defaulted(ls)
}

// worst creates the declaring Namespaces (once), waits until the webhook's
// view has each (a small set there is denied), and sends each shape's
// request once.
func (c *scaleCluster) worst(ctx context.Context, srv *server) ([]worstResult, error) {
	for k, s := range validationtest.DeclaredShapes {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: worstNamespace(k), Labels: map[string]string{scaleTeamLabel: "true"},
			Annotations: map[string]string{validation.DefaultAllowedHostnamesAnnotation: s.Declaration}}}
		if err := c.cl.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("namespace %s (%s): %w", ns.Name, s.Name, err)
		}
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(c.ca)
	hc := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "127.0.0.1", MinVersion: tls.VersionTLS12}}}
	defer hc.CloseIdleConnections()
	url := srv.baseURL() + admission.ValidatePath
	for k := range validationtest.DeclaredShapes {
		small := worstSet(worstNamespace(k))
		small.Spec.Listeners = small.Spec.Listeners[:1]
		body := fixtures.Review("seen", admissionv1.Create, small, nil)
		deadline := time.Now().Add(time.Minute)
		for {
			resp, _, err := postReview(hc, url, body)
			if err != nil {
				return nil, err
			}
			if !resp.Allowed {
				break
			}
			if time.Now().After(deadline) {
				return nil, fmt.Errorf("the webhook did not see namespace %s's declaration within a minute", worstNamespace(k))
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	var out []worstResult
	for k, s := range validationtest.DeclaredShapes {
		body := fixtures.Review(fmt.Sprintf("worst-%d", k), admissionv1.Create, worstSet(worstNamespace(k)), nil)
		r := worstResult{Shape: s.Name, DeclarationBytes: len(s.Declaration), RequestBytes: len(body)}
		resp, err := timeWorst(ctx, srv, hc, url, body, &r)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		r.Problem = worstProblem(s.Name, resp)
		say("scale: worst declaration %s: median %.1f ms, CPU %.0f ms, answer %d bytes, peak RSS +%.1f MiB", s.Name, r.Ms, r.CPUMs, r.ResponseBytes, r.PeakRSSGrowthMiB)
		out = append(out, r)
	}
	return out, nil
}

// timeWorst posts body to url worstRepeats times, one after the other,
// and fills r's times, the webhook's CPU per request, the answer's size
// and causes, its message's start and the peak RSS the requests raised
// (VmHWM reset before them); it returns the last answer.
func timeWorst(ctx context.Context, srv *server, hc *http.Client, url string, body []byte, r *worstResult) (*admissionv1.AdmissionResponse, error) {
	if err := resetPeakRSS(srv); err != nil {
		return nil, err
	}
	rss0, _, err := srv.memory()
	if err != nil {
		return nil, err
	}
	cpu0, err := srv.cpu()
	if err != nil {
		return nil, err
	}
	var took []time.Duration
	var resp *admissionv1.AdmissionResponse
	for range worstRepeats {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		start := time.Now()
		resp, r.ResponseBytes, err = postReview(hc, url, body)
		took = append(took, time.Since(start))
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(took)
	cpu1, err := srv.cpu()
	if err != nil {
		return nil, err
	}
	_, peak, err := srv.memory()
	if err != nil {
		return nil, err
	}
	r.MinMs, r.Ms, r.MaxMs = ms(took[0]), ms(took[len(took)/2]), ms(took[len(took)-1])
	r.CPUMs, r.PeakRSSGrowthMiB = ms(cpu1-cpu0)/worstRepeats, mib(peak-rss0)
	if resp.Result != nil {
		r.Message = findings.Cut(resp.Result.Message, 300, "...")
		if resp.Result.Details != nil {
			r.Causes = len(resp.Result.Details.Causes)
		}
	}
	return resp, nil
}

// worstProblem says how resp is not the verdict shape's declaration earns:
// a denial, naming the limit for the declaration over it, and every
// hostile entry escaped.
func worstProblem(shape string, resp *admissionv1.AdmissionResponse) string {
	if resp.Allowed || resp.Result == nil {
		return "allowed, want a denial"
	}
	msg := resp.Result.Message
	if findings.Escape(msg) != msg {
		return "a character a terminal interprets in the message"
	}
	var want string
	switch shape {
	case "over-the-limit":
		want = fmt.Sprintf("more than the limit of %d", validation.MaxAllowedHostnames)
	case "hostile-entries":
		want = `entry 1 "<>&\"\\\u2028\u2029\t\n\r\x00\x1b[31m`
	default:
		want = "is not among the hostnames Namespace"
	}
	if !strings.Contains(msg, want) {
		return fmt.Sprintf("the message does not say %q", want)
	}
	return ""
}

// postReview posts an AdmissionReview and decodes the answer, with its size.
func postReview(hc *http.Client, url string, body []byte) (*admissionv1.AdmissionResponse, int, error) {
	resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, 0, fmt.Errorf("status %d: %.300s", resp.StatusCode, data)
	}
	var review admissionv1.AdmissionReview
	if err := json.Unmarshal(data, &review); err != nil || review.Response == nil {
		return nil, 0, fmt.Errorf("not an AdmissionReview answer (%v): %.300s", err, data)
	}
	return review.Response, len(data), nil
}

// resetPeakRSS sets the server's VmHWM to its VmRSS (clear_refs 5, Linux).
func resetPeakRSS(srv *server) error {
	return os.WriteFile(filepath.Join("/proc", strconv.Itoa(srv.proc.Pid()), "clear_refs"), []byte("5"), 0)
}

// worstTargets are the bounds over every worst request of every size (the
// declarations', -scale-worst, and the route-creates shape's worst route).
func worstTargets(rs []scaleSizeResult) []ratio {
	var slowest, largest, growth float64
	n := 0
	for _, r := range rs {
		for _, w := range r.Worst {
			n++
			slowest, largest, growth = max(slowest, w.Ms), max(largest, float64(w.ResponseBytes)), max(growth, w.PeakRSSGrowthMiB)
		}
	}
	if n == 0 {
		return nil
	}
	return []ratio{
		{fmt.Sprintf("worst requests: slowest median of %d answers, ms", worstRepeats), slowest, fmt.Sprintf("<= %.0f", targetWorstMs), slowest <= targetWorstMs},
		{"worst requests: largest answer, bytes", largest, fmt.Sprintf("<= %d", targetWorstResponse), largest <= targetWorstResponse},
		{"worst requests: peak RSS growth of one request, MiB", growth, fmt.Sprintf("<= %.0f", targetWorstRSSMiB), growth <= targetWorstRSSMiB},
	}
}

// printWorst prints each size's worst requests.
func printWorst(rs []scaleSizeResult) {
	for _, r := range rs {
		if len(r.Worst) == 0 {
			continue
		}
		fmt.Printf("\nworst requests at %d ListenerSets, %d each: the 64-listener set of 253-character hostnames against each worst declaration; "+
			"worst-route, %d hostnames by %d parentRefs of 64 listeners\n", r.ListenerSets, worstRepeats, validationtest.WorstRouteHostnames, validationtest.WorstRouteParents)
		fmt.Printf("%-22s %12s %10s %20s %8s %10s %7s %12s\n", "request", "annotation B", "request B", "ms min/median/max", "CPU ms", "answer B", "causes", "peak RSS +MiB")
		for _, w := range r.Worst {
			fmt.Printf("%-22s %12d %10d %20s %8.1f %10d %7d %12.1f\n", w.Shape, w.DeclarationBytes, w.RequestBytes,
				fmt.Sprintf("%.1f/%.1f/%.1f", w.MinMs, w.Ms, w.MaxMs), w.CPUMs, w.ResponseBytes, w.Causes, w.PeakRSSGrowthMiB)
		}
	}
}
