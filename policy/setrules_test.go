package policy

import (
	"strings"
	"testing"

	"github.com/airlock/listenerset-webhook/validation/object"
)

// TestSetRulesChecked: a set rule without its CEL, its fast-path guard or
// a field the policy writes fails the policy's build, naming the rule.
func TestSetRulesChecked(t *testing.T) {
	whole := object.ListenerSetRule{Name: "r", Path: "protocol", CEL: `l.protocol == "HTTPS"`, Guard: "true"}
	if err := setRulesChecked([]object.ListenerSetRule{whole}); err != nil {
		t.Fatalf("a whole rule: %v", err)
	}
	for want, change := range map[string]func(*object.ListenerSetRule){
		`set rule "r" has no CEL`:                    func(r *object.ListenerSetRule) { r.CEL = "" },
		`set rule "r" has no fast-path guard`:        func(r *object.ListenerSetRule) { r.Guard = " " },
		`set rule "r": no listener field "tls.mode"`: func(r *object.ListenerSetRule) { r.Path = "tls.mode" },
	} {
		r := whole
		change(&r)
		if err := setRulesChecked([]object.ListenerSetRule{r}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%v, want an error %q", err, want)
		}
	}
}
