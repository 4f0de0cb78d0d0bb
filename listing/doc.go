// Package listing is the listeners command: each Gateway's merged listener
// list as Gateway API says an implementation must build it (the Gateway's
// own listeners, then its ListenerSets oldest first, then by
// "namespace/name"), one row per listener with what becomes of it, before
// anything is applied.
//
// The list and every state come from validation.MergedListeners, the code
// the webhook's cluster-aware checks judge a ListenerSet by; this package
// only reads the objects and renders the rows. FromManifests reads and
// judges files through offline/read and offline/judge exactly as validate
// does; FromCluster lists Gateways, ListenerSets, Namespaces' metadata,
// HTTPRoutes and (with the scope on) GatewayClasses through the audit's
// paginated reader, offline/live.List, and needs only RBACRules; from a
// cluster each row also has what its stored status reports and where that
// differs from the prediction (package reported).
//
// States, conditions, routes, output and exit codes: docs/listeners.md.
package listing
