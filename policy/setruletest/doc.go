// Package setruletest holds the test of the ListenerSetRule mechanism
// (validation's object.SetRules, policy/setrules.go) with rules of its
// own: that one entry gives the same errors in the Go rules and in the
// policy, ratchets alike, keeps the rule's denials off the fast path, and
// puts its code in the catalog and its row in the rules. It is a package of
// its own because it adds its rules to the package-level table before
// anything reads it, which no other test binary may see.
package setruletest
