// Package merged holds a Gateway's merged listener view and the
// cluster-aware rules: MergedListeners builds the merged list (its own
// listeners, then its ListenerSets in precedence order) with package
// object's listener compatibility; ValidateInCluster judges a ListenerSet
// against it, the parent Gateway, ReferenceGrants, Secrets and the
// tenancy rules (cluster.go, tenancy.go), reading only the rivals that can
// decide it (keys.go, the index keys; rivals.go, the pruning). scope.go
// decides which ListenerSets are Airlock's, class.go what the parent's
// GatewayClass says; Objects serves every view over plain objects.
//
// Contract: every read goes through a view (package views) passed in,
// known=false skips a rule, never guesses; findings go into package
// object's Verdict, so that strictness and ratcheting are applied where
// package validation composes them. It imports findings, views, object and
// defaults of this module, nothing above.
package incluster
