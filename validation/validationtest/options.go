package validationtest

import (
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// OptionCase is a ListenerSet that sets one Airlock option, and whether
// the option's row of validation.AirlockOptions accepts its value.
type OptionCase struct {
	Name string
	// ListenerSet has one HTTPS listener whose options are Key: Value.
	ListenerSet *gwv1.ListenerSet
	Key         gwv1.AnnotationKey
	Value       string
	Valid       bool
	// Code is the code of the denial of an invalid one.
	Code findings.Code
}

// OptionCases are, for every row of validation.AirlockOptions, a set per
// value the row accepts (every value of an option of one value; a
// list-valued option's whole list, in order and reversed), its example, a
// value it does not accept, and each name it refuses; and one set of every
// option's example on an http3 listener. Each engine's test judges them
// against the table: a new option is tested in every engine by its row
// alone.
func OptionCases() []OptionCase {
	one := func(name string, key gwv1.AnnotationKey, value string, code findings.Code) OptionCase {
		ls := worstBase("option")
		l := httpsListener(0)
		l.TLS.Options[key] = gwv1.AnnotationValue(value)
		ls.Spec.Listeners = []gwv1.ListenerEntry{l}
		return OptionCase{Name: name, ListenerSet: ls, Key: key, Value: value, Valid: code == "", Code: code}
	}
	var cases []OptionCase
	for _, o := range object.AirlockOptions {
		name := strings.TrimPrefix(string(o.Key), object.OptionPrefix)
		accepted := o.Values
		if o.List {
			reversed := slices.Clone(o.Values)
			slices.Reverse(reversed)
			accepted = []string{strings.Join(o.Values, ","), strings.Join(reversed, ",")}
		}
		for _, v := range append(slices.Clone(accepted), o.ExampleValue()) {
			cases = append(cases, one(name+"="+v, o.Key, v, ""))
		}
		cases = append(cases, one(name+"=not-a-value", o.Key, "not-a-value", o.Code))
		for _, r := range o.Refused {
			cases = append(cases, one(name+" refuses "+r, o.Key, o.Values[0]+","+r, o.RefusedCode))
		}
	}
	ls := worstBase("option")
	l := httpsListener(0)
	l.Protocol = object.ProtocolHTTP3
	l.TLS.Options = object.ExampleOptions()
	ls.Spec.Listeners = []gwv1.ListenerEntry{l}
	return append(cases, OptionCase{Name: "every example on http3", ListenerSet: ls, Valid: true})
}
