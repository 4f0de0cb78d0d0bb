// Package routes decides which HTTPRoutes attach where and what they
// claim: Attacher, the one decision of which listeners of a ListenerSet a
// route's parentRef attaches to (attach.go); JudgeParents, the warnings on
// a route whose parents it attaches to none of (routeparents.go);
// WarnDetached, the routes an update or a deletion of a ListenerSet
// detaches (detach.go); ValidateRouteClaims, the names a route claims on
// its Gateways, judged by its Namespace's declaration and the first claim
// (routeclaims.go, LS319 and LS320), WarnListenerClaimsOnRoutes, a
// listener's claim against routes' (LS316), and ValidateClaimsGiven, the
// claims a ListenerSet's write gives the routes attached to it (given.go).
//
// Contract: read through views passed in; known=false says nothing. The
// attachment and detach findings are warnings only; the claims record
// errors and warnings into a *verdict.Verdict. It imports findings,
// defaults and, of validation's rooms, views, verdict, object and
// incluster; package validation composes it (Judge, JudgeDelete,
// JudgeRoute) and re-exports what callers read.
package routes
