package admission

import (
	"reflect"
	"strings"

	"github.com/airlock/listenerset-webhook/validation"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/metrics"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// DenialsMetric is the name of the counter of validation errors in denied
// requests.
const DenialsMetric = "listenerset_webhook_denials_total"

// denials counts, per denied request, each validation error once, labelled by
// the rule that fired: the field (indices and map keys replaced by [*]) and
// the error type. Both label sets are finite whatever users send, so the
// series count stays bounded; which object was denied is in the logs.
var denials = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: DenialsMetric,
	Help: "Validation errors in denied ListenerSet admission requests, by field path " +
		"(indices and map keys replaced by [*]) and error type (e.g. FieldValueDuplicate).",
}, []string{"field", "reason"})

// WouldDenyMetric is the name of the counter of validation errors that did
// not deny because the enforcement is warn (EnforcementWarn).
const WouldDenyMetric = "listenerset_webhook_would_deny_total"

// wouldDenials counts what denials would with EnforcementDeny, by the same
// labels, and by source: what made the enforcement warn (WarnedByFlag,
// WarnedByNamespace).
var wouldDenials = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: WouldDenyMetric,
	Help: "Validation errors in admission requests admitted because the enforcement is warn (they would have " +
		"denied them), by field path (indices and map keys replaced by [*]), error type and source: flag " +
		"(--enforcement=warn) or namespace (the namespace's enforcement label).",
}, []string{"field", "reason", "source"})

// ScopeMetric is the name of the counter of admission requests by what the
// scope made of their ListenerSet (validation.Outcome).
const ScopeMetric = "listenerset_webhook_scope_total"

// scoped counts each CREATE and UPDATE by webhook (mutating, validating)
// and outcome: judged as Airlock's, left to another implementation, an
// unknown parent judged or admitted, or judged with the scope off.
var scoped = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: ScopeMetric,
	Help: "ListenerSet admission requests by webhook (mutating, validating) and scope outcome: airlock (judged), " +
		"other (another implementation's GatewayClass: admitted untouched), unknown-judged, unknown-admitted " +
		"(the parent Gateway or its GatewayClass unknown), unscoped (scope off: judged).",
}, []string{"webhook", "outcome"})

// The webhook label of ScopeMetric.
const (
	webhookMutating   = "mutating"
	webhookValidating = "validating"
)

func init() {
	// controller-runtime's webhook server registers its request metrics in
	// the same registry, so one /metrics handler serves both.
	metrics.Registry.MustRegister(denials, wouldDenials, scoped)
	for _, wh := range []string{webhookMutating, webhookValidating} {
		for _, o := range validation.Outcomes {
			scoped.WithLabelValues(wh, string(o)) // every series from the start, at 0
		}
	}
}

// recordScope counts one request's scope decision.
func recordScope(webhook string, d validation.Decision) {
	scoped.WithLabelValues(webhook, string(d.Outcome)).Inc()
}

// recordDenial counts each error of one denied request.
func recordDenial(errs field.ErrorList) { record(denials, errs) }

// recordWouldDeny counts each error of one request that warn admitted,
// warned by source.
func recordWouldDeny(errs field.ErrorList, source string) { record(wouldDenials, errs, source) }

// record counts each error in c, by rule and the further label values.
func record(c *prometheus.CounterVec, errs field.ErrorList, labels ...string) {
	for _, e := range errs {
		c.WithLabelValues(append([]string{FieldLabel(e.Field), string(e.Type)}, labels...)...).Inc()
	}
}

// otherField stands for a path, or the rest of one, that is not a field of the
// ListenerSet type. It keeps the label set finite if validation ever reports
// a path that the walk below does not know.
const otherField = "<other>"

// listenerSetType is where FieldLabel starts walking.
var listenerSetType = reflect.TypeFor[gwv1.ListenerSet]()

// FieldLabel turns a field path from a validation error into a metric label
// of bounded cardinality: every list index and map key becomes [*], e.g.
// spec.listeners[3].tls.options[example.com/x] becomes
// spec.listeners[*].tls.options[*].
//
// Map keys are user input and may contain anything, including "]" and ".",
// so the path string cannot be split by pattern alone: a key like
// "x].evil[0" would smuggle user text into the label. Instead the path is
// walked along the Go type of ListenerSet by JSON field name: only names that
// exist in the type are copied, a subscript on a list must be a number, and
// the walk stops after a map key (nothing after a key can be trusted). The
// label can therefore only be a path through the type, a finite set.
func FieldLabel(path string) string {
	var b strings.Builder
	t := listenerSetType
	rest := path
	for {
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		name := rest[:end]
		ft, ok := jsonField(t, name)
		if !ok {
			b.WriteString(otherField)
			return b.String()
		}
		b.WriteString(name)
		t, rest = ft, rest[end:]
		for strings.HasPrefix(rest, "[") {
			b.WriteString("[*]")
			switch t.Kind() {
			case reflect.Slice, reflect.Array:
				end := strings.IndexByte(rest, ']')
				if end < 0 || !isDigits(rest[1:end]) {
					return b.String()
				}
				t, rest = elem(t.Elem()), rest[end+1:]
			default:
				// A map key (or a subscript where the type has none): the key
				// runs to an unknown "]", so the rest is not trusted.
				return b.String()
			}
		}
		if rest == "" {
			return b.String()
		}
		if rest[0] != '.' {
			b.WriteString(otherField)
			return b.String()
		}
		b.WriteByte('.')
		rest = rest[1:]
	}
}

// jsonField returns the type of t's field whose JSON name is name, looking
// into inlined embedded structs (TypeMeta) as encoding/json does.
func jsonField(t reflect.Type, name string) (reflect.Type, bool) {
	if name == "" || t.Kind() != reflect.Struct {
		return nil, false
	}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == "-" {
			continue
		}
		if tag == "" && f.Anonymous {
			if ft, ok := jsonField(elem(f.Type), name); ok {
				return ft, true
			}
			continue
		}
		if tag == "" {
			tag = f.Name
		}
		if tag == name {
			return elem(f.Type), true
		}
	}
	return nil, false
}

// elem dereferences pointers: *T and T have the same paths.
func elem(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
