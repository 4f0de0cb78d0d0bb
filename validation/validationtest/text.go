package validationtest

import (
	"fmt"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/airlock/listenerset-webhook/findings"
	"github.com/airlock/listenerset-webhook/validation/internal/object"
)

// The worst objects built from text rather than from counts: ListenerSets
// the CRD admits whose user text (option keys, which the CRD does not
// constrain, Secret names, which it only bounds to 253 characters, option
// values, bounded in characters) is as long, or as costly to write, as a
// request allows. Every engine quotes that text in paths, values and
// messages: these hold its outputs to their bounds. Each is under
// kube-apiserver's 3 MiB request at every n, as JSON writes it.

// textBudget is how many bytes of JSON the text of one object takes: under
// 3 MiB with the rest of the object.
const textBudget = 2900 << 10

// HostileRunes are characters JSON or a terminal treats specially, and
// characters of every UTF-8 length: JSON's escapes (<, >, & and U+2028 take
// six bytes), C0, DEL and C1 controls (kube-apiserver refuses a warning
// with one), ESC sequences, bidirectional overrides, and two-, three- and
// four-byte characters.
var HostileRunes = []string{
	"<", ">", "&", `"`, `\`, "\u2028", "\u2029",
	"\t", "\n", "\r", "\x00", "\x1b[31m", "\x7f", "\u0085", "\u009b",
	"\u202e", "\u2066", "\u200b", "\ufeff",
	"é", "漢", "😀",
}

// TextShapes are the worst objects of text, one per shape. The Update shapes
// are updates that leave their errors as stored: each becomes a ratcheted
// warning quoting the text.
var TextShapes = []Shape{
	{Name: "longest-key", Build: LongestKey},
	{Name: "escaped-keys", Build: EscapedKeys},
	{Name: "escaped-keys-ratcheted", Build: EscapedKeys, Update: EscapedKeys},
	{Name: "control-keys-ratcheted", Build: ControlKeys, Update: ControlKeys},
	{Name: "hostile-secret-names", Build: HostileSecretNames},
	{Name: "multibyte-values", Build: MultibyteValues},
}

// repeatTo is s repeated until JSON would write the result in about
// budget bytes.
func repeatTo(s string, budget int) string {
	return strings.Repeat(s, max(1, budget/findings.JSONLen(s)))
}

// LongestKey: n listeners, each with one un-prefixed option key (the CRD
// names no limit for keys; Gateway API reserves un-prefixed ones) of "k"
// as long as the request allows: one key of 2.9 MB at n = 1.
func LongestKey(n int) *gwv1.ListenerSet {
	ls := worstBase("longest-key")
	for i := range n {
		l := httpsListener(i)
		l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("%02d", i)+repeatTo("k", textBudget/n))] = "x"
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// EscapedKeys: n listeners of validation.MaxOptions option keys of
// characters JSON writes in six bytes (<, >, &, U+2028, U+2029), each key
// invalid (its prefix is no DNS subdomain), filling the request.
func EscapedKeys(n int) *gwv1.ListenerSet {
	return textKeys("escaped-keys", n, "<>&\u2028\u2029")
}

// ControlKeys: as EscapedKeys, with keys of every hostile character
// (HostileRunes): control characters, ESC sequences and bidirectional
// overrides among them.
func ControlKeys(n int) *gwv1.ListenerSet {
	return textKeys("control-keys", n, strings.Join(HostileRunes, ""))
}

// textKeys: n listeners of validation.MaxOptions keys "example.com/<i><j>"
// followed by text repeated to fill the request.
func textKeys(name string, n int, text string) *gwv1.ListenerSet {
	ls := worstBase(name)
	per := textBudget / (n * object.MaxOptions)
	for i := range n {
		l := httpsListener(i)
		for j := range object.MaxOptions {
			l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("%02d%02d", i, j)+repeatTo(text, per)+"/x")] = "x"
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// HostileSecretNames: n listeners whose Secret names (ObjectName: 1 to 253
// characters, no pattern) are 253 hostile characters, each listener with
// as many of them as fit (up to the CRD's 64), in another namespace (a
// warning each).
func HostileSecretNames(n int) *gwv1.ListenerSet {
	ls := worstBase("hostile-secret-names")
	runes := []rune(strings.Join(HostileRunes, ""))
	for i := range n {
		l := httpsListener(i)
		l.TLS.CertificateRefs = nil
		for j, used := 0, 0; j < 64; j++ {
			name := make([]rune, 253)
			for k := range name {
				name[k] = runes[(i+j+k)%len(runes)]
			}
			if used += findings.JSONLen(string(name)) + 64; used > textBudget/n {
				break
			}
			ns := gwv1.Namespace("certs")
			l.TLS.CertificateRefs = append(l.TLS.CertificateRefs, gwv1.SecretObjectReference{Name: gwv1.ObjectName(name), Namespace: &ns})
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}

// MultibyteValues: n listeners, each with options of other domains whose
// values are as long as the CRD's maxLength allows in characters
// (validation.MaxOptionValueLen) of three- and four-byte characters and
// of characters JSON writes in six bytes: a rule counting bytes would deny
// them.
func MultibyteValues(n int) *gwv1.ListenerSet {
	ls := worstBase("multibyte-values")
	values := []string{"漢", "😀", "\u2028", "<"}
	per := textBudget / n
	for i := range n {
		l := httpsListener(i)
		for j, used := 0, 0; j < object.MaxOptions; j++ {
			v := strings.Repeat(values[j%len(values)], object.MaxOptionValueLen)
			if used += findings.JSONLen(v); used > per {
				break
			}
			l.TLS.Options[gwv1.AnnotationKey(fmt.Sprintf("example.com/o%02d", j))] = gwv1.AnnotationValue(v)
		}
		ls.Spec.Listeners = append(ls.Spec.Listeners, l)
	}
	return ls
}
