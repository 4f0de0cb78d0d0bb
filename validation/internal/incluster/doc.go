// Package incluster holds the cluster-aware rules and the merged-list model
// they judge by. MergedListeners builds a Gateway's merged listener list
// (its own listeners, then its ListenerSets in precedence order) with
// package object's listener compatibility, as the model of listener.go
// (MergedListener, ListenerState, Owner, Claim); ValidateInCluster judges a
// ListenerSet against that list, the parent Gateway, ReferenceGrants,
// Secrets and the tenancy rules (cluster.go, tenancy.go), reading only the
// rivals that can decide it (keys.go, the index keys; rivals.go, the
// pruning; arrival.go, when a set came to its Gateway). scope.go decides
// which ListenerSets are Airlock's, class.go what the parent's
// GatewayClass says; Objects serves every view over plain objects.
//
// Contract: every read goes through a view (package views) passed in;
// known=false skips a rule, never guesses. A rule that may ratchet takes
// the field path and records into a *verdict.Verdict, so that strictness
// and ratcheting are applied where package validation composes the rules.
// It imports findings, defaults and, of validation's rooms, views, verdict
// and object; package validation re-exports what callers read (the door).
package incluster
