package validationtest

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// ruleBase is the object the rules' examples change (object.Example):
// valid, without a warning, written as the CRD defaults it, and of the
// usual shape the policy's fast path admits.
const ruleBase = `
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: shop, namespace: team-a}
spec:
  parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  listeners:
  - name: web
    port: 80
    protocol: HTTP
    hostname: shop.example.com
    allowedRoutes: {namespaces: {from: Same}}
  - name: websecure
    port: 443
    protocol: HTTPS
    hostname: shop.example.com
    tls:
      mode: Terminate
      certificateRefs: [{group: "", kind: Secret, name: shop-tls}]
    allowedRoutes: {namespaces: {from: Same}}
`

// RuleBase is the object the rules' examples change.
func RuleBase() *gwv1.ListenerSet {
	var ls gwv1.ListenerSet
	if err := yaml.Unmarshal([]byte(ruleBase), &ls); err != nil {
		panic(err)
	}
	return &ls
}

// Apply is RuleBase with the example's change: its Build, or its value at
// its path.
func Apply(e object.Example) (*gwv1.ListenerSet, error) {
	if e.Build != nil {
		if e.Text == "" {
			return nil, fmt.Errorf("an example built for its rule says what it built (Text)")
		}
		ls := RuleBase()
		e.Build(ls)
		return ls, nil
	}
	data, err := json.Marshal(RuleBase())
	if err != nil {
		return nil, err
	}
	var obj map[string]any
	if err := json.Unmarshal(data, &obj); err != nil {
		return nil, err
	}
	var value any
	if err := yaml.Unmarshal([]byte(e.Value), &value); err != nil {
		return nil, fmt.Errorf("%s: value %q: %w", e.At, e.Value, err)
	}
	steps, err := pathSteps(e.At)
	if err != nil {
		return nil, err
	}
	if err := set(obj, steps, value); err != nil {
		return nil, fmt.Errorf("%s: %w", e.At, err)
	}
	if data, err = json.Marshal(obj); err != nil {
		return nil, err
	}
	var ls gwv1.ListenerSet
	if err := json.Unmarshal(data, &ls); err != nil {
		return nil, fmt.Errorf("%s: %w", e.At, err)
	}
	return &ls, nil
}

// pathSteps splits a path as field.Path writes it into its steps: field
// names, list indexes (int) and map keys (the text in brackets).
func pathSteps(path string) ([]any, error) {
	var steps []any
	for rest := path; rest != ""; {
		switch {
		case rest[0] == '[':
			end := strings.IndexByte(rest, ']')
			if end < 0 {
				return nil, fmt.Errorf("%s: no ]", path)
			}
			if n, err := strconv.Atoi(rest[1:end]); err == nil {
				steps = append(steps, n)
			} else {
				steps = append(steps, rest[1:end])
			}
			rest = strings.TrimPrefix(rest[end+1:], ".")
		default:
			end := strings.IndexAny(rest, ".[")
			if end < 0 {
				end = len(rest)
			}
			steps = append(steps, rest[:end])
			rest = strings.TrimPrefix(rest[end:], ".")
		}
	}
	return steps, nil
}

// set sets the value at steps below obj (a nil value removes a map's
// entry), creating the maps on the way.
func set(obj any, steps []any, value any) error {
	for i, step := range steps {
		last := i == len(steps)-1
		switch s := step.(type) {
		case int:
			list, ok := obj.([]any)
			if !ok || s >= len(list) {
				return fmt.Errorf("no item %d", s)
			}
			if last {
				list[s] = value
				return nil
			}
			obj = list[s]
		case string:
			m, ok := obj.(map[string]any)
			if !ok {
				return fmt.Errorf("%s: not an object", s)
			}
			if last {
				if value == nil {
					delete(m, s)
				} else {
					m[s] = value
				}
				return nil
			}
			if _, ok := m[s]; !ok {
				m[s] = map[string]any{}
			}
			obj = m[s]
		}
	}
	return nil
}

// AddListenerValueRule adds r to the rules on one listener value, for a
// test that shows what a new rule of that shape takes.
func AddListenerValueRule(r object.ListenerValueRule) {
	object.ListenerValueRules = append(object.ListenerValueRules, r)
}

// AddSetRule adds r to the rules over a set's listeners, for a test that
// shows what a new rule of that shape takes.
func AddSetRule(r object.ListenerSetRule) {
	object.SetRules = append(object.SetRules, r)
}
