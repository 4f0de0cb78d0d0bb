// Package views holds the read-only views the rules read the cluster
// through (Cluster, Classes, Routes, RouteParents, NamespaceLabelsFunc),
// each passed explicitly. It is the contract between the rules and what
// serves them (the webhook's informer caches, an offline input's objects):
// interfaces only, importing gateway-api and nothing of this module, so
// every rule package can take a view and no view knows a rule.
package views
