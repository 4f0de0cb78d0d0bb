// Package valueruletest holds the test of the ListenerValueRule mechanism
// (validation.ListenerValueRule, policy.ValueRuleCEL) with a rule of its
// own: that a rule's one entry and its CEL give the same errors in the Go
// rules and in the policy, ratchet alike, keep the rule's denials off the
// fast path and reach the fuzz generator. It is a package of its own
// because it adds its rule to the package-level tables before anything
// reads them, which no other test binary may see.
package valueruletest
