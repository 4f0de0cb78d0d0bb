package policy

import (
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation"
)

// TestSetRulesChecked: a set rule without its CEL, its fast-path guard or
// a field the policy writes fails the policy's build, naming the rule.
func TestSetRulesChecked(t *testing.T) {
	whole := validation.ListenerSetRule{Name: "r", Path: "protocol", CEL: `l.protocol == "HTTPS"`, Guard: "true"}
	if err := setRulesChecked([]validation.ListenerSetRule{whole}); err != nil {
		t.Fatalf("a whole rule: %v", err)
	}
	for want, change := range map[string]func(*validation.ListenerSetRule){
		`set rule "r" has no CEL`:                    func(r *validation.ListenerSetRule) { r.CEL = "" },
		`set rule "r" has no fast-path guard`:        func(r *validation.ListenerSetRule) { r.Guard = " " },
		`set rule "r": no listener field "tls.mode"`: func(r *validation.ListenerSetRule) { r.Path = "tls.mode" },
	} {
		r := whole
		change(&r)
		if err := setRulesChecked([]validation.ListenerSetRule{r}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want an error %q", err, want)
		}
	}
}
