package policy

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestUpstreamRegexes: each regular expression the CEL matches with is the
// one its apimachinery validator's message cites, and judges as the
// validator does. It fails when apimachinery changes an expression.
func TestUpstreamRegexes(t *testing.T) {
	samples := []string{
		"", "a", "-", "a-", "-a", "a.b", "a..b", ".a", "a.", "A", "aB", "a_b", "_a", "a_", "a.b-c.d", "0", "9-9",
		"a/b", "a b", "é", "a\n", "*.a", "a:1", "My.Name_1", "x-y_z.W",
	}
	for _, c := range []struct {
		name  string
		regex string
		// check is the validator, bad an input it refuses by the regex,
		// max its length limit
		check func(string) []string
		bad   string
		max   int
	}{
		{"IsDNS1123Subdomain", dns1123SubdomainRegex, validation.IsDNS1123Subdomain, "-", validation.DNS1123SubdomainMaxLength},
		{"IsDNS1123Label", dns1123LabelRegex, validation.IsDNS1123Label, "-", validation.DNS1123LabelMaxLength},
		{"IsQualifiedName", labelKeyNameRegex, validation.IsQualifiedName, "a/-", labelKeyNameMaxLength},
		{"IsValidLabelValue", labelValueRegex, validation.IsValidLabelValue, "-", validation.LabelValueMaxLength},
	} {
		t.Run(c.name, func(t *testing.T) {
			msgs := c.check(c.bad)
			cited := "regex used for validation is '" + c.regex + "'"
			if len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], cited) {
				t.Fatalf("%s(%q) = %q: the message no longer cites %s", c.name, c.bad, msgs, c.regex)
			}
			re := regexp.MustCompile("^" + c.regex + "$")
			for _, s := range samples {
				if strings.Contains(s, "/") || len(s) > c.max {
					continue // a key's prefix, or a length: judged apart
				}
				if matches, valid := re.MatchString(s), len(c.check(s)) == 0; matches != valid {
					t.Errorf("%s(%q) = %q, but the regex matches: %v", c.name, s, c.check(s), matches)
				}
			}
		})
	}
}

// TestUpstreamLimits: the limits stated for apimachinery's validators
// are theirs.
func TestUpstreamLimits(t *testing.T) {
	for _, c := range []struct {
		what  string
		msgs  []string
		valid bool
	}{
		{"port " + strconv.Itoa(minPort), validation.IsValidPortNum(minPort), true},
		{"port " + strconv.Itoa(maxPort), validation.IsValidPortNum(maxPort), true},
		{"port " + strconv.Itoa(minPort-1), validation.IsValidPortNum(minPort - 1), false},
		{"port " + strconv.Itoa(maxPort+1), validation.IsValidPortNum(maxPort + 1), false},
		{"a name part of labelKeyNameMaxLength", validation.IsQualifiedName("a/" + strings.Repeat("b", labelKeyNameMaxLength)), true},
		{"a name part of labelKeyNameMaxLength+1", validation.IsQualifiedName("a/" + strings.Repeat("b", labelKeyNameMaxLength+1)), false},
	} {
		if valid := len(c.msgs) == 0; valid != c.valid {
			t.Errorf("%s: valid %v, want %v (%q)", c.what, valid, c.valid, c.msgs)
		}
	}
}

// TestBuilds: the policies are written from the apimachinery they are
// built with, without a drift.
func TestBuilds(t *testing.T) {
	if _, err := expressions(); err != nil {
		t.Fatal(err)
	}
}

// TestDriftFails: a validator that gives other messages than the CEL is
// written for is an error of the build, named, not a panic.
func TestDriftFails(t *testing.T) {
	var d drift
	w := writer{drift: &d}
	twice := func(string) []string { return []string{"one", "two"} }
	if got := only(w, "twice", twice, "x"); got != "" {
		t.Errorf("only of two messages = %q, want empty", got)
	}
	_ = first(w, "twice", twice, "x", 2)
	// the detail of an error of another type than the rule's
	_ = w.selectorDetail(metav1.LabelSelectorRequirement{Key: "a", Operator: metav1.LabelSelectorOpIn}, "values", field.ErrorTypeForbidden)
	err := d.err()
	if err == nil {
		t.Fatal("no error for two drifts")
	}
	for _, want := range []string{`twice("x") gives 2 messages, the policy is written for 1: ["one" "two"]`, `ValidateLabelSelectorRequirement of operator "In"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if n := strings.Count(err.Error(), "twice"); n != 1 {
		t.Errorf("the drift of twice is named %d times, want once: %v", n, err)
	}
}
