package inflight

import (
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
)

// RefusalsMetric is the name of the counter of requests answered 429.
const RefusalsMetric = "listenerset_webhook_requests_refused_total"

// InFlightBytesMetric is the name of the gauge of the weight being
// handled: above 0 once a request's headers are read and its handler runs.
const InFlightBytesMetric = "listenerset_webhook_in_flight_bytes"

// Reasons of RefusalsMetric.
const (
	// reasonCapacity: no room in the limit before the request's deadline.
	reasonCapacity = "capacity"
	// reasonDeadline: after admission, the deadline left too little time
	// to judge the request, or passed before it could be judged or while
	// it was (Begin, Late, Expired).
	reasonDeadline = "deadline"
)

var (
	refusals = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: RefusalsMetric,
		Help: "Requests answered 429 (kube-apiserver's failurePolicy decides): reason capacity, no room in the " +
			"in-flight limit before the request's deadline; reason deadline, too little time was left to judge it before its deadline, or it passed.",
	}, []string{"reason"})
	waits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "listenerset_webhook_requests_waited_total",
		Help: "Requests that had to wait for room in the in-flight limit (most are then served).",
	})
	inFlightBytes = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: InFlightBytesMetric,
		Help: "Weight of the requests being handled: their Content-Length plus a fixed overhead each.",
	})
	limitBytes = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "listenerset_webhook_in_flight_limit_bytes",
		Help: "The in-flight limit (--max-in-flight-bytes).",
	})
)

func init() {
	// The registry of controller-runtime's webhook metrics, served at
	// /metrics (serving.MetricsHandler).
	metrics.Registry.MustRegister(refusals, waits, inFlightBytes, limitBytes)
	for _, r := range []string{reasonCapacity, reasonDeadline} {
		refusals.WithLabelValues(r) // both series exist from the start, at 0
	}
}
