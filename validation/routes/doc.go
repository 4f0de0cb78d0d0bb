// Package routes decides which HTTPRoutes attach where: Attacher, the one
// decision of which listeners of a ListenerSet a route's parentRef
// attaches to (attach.go); JudgeParents, the warnings on a route whose
// parents it attaches to none of (routeparents.go); WarnDetached, the
// routes an update or a deletion of a ListenerSet detaches (detach.go).
//
// Contract: warnings only, read through views passed in; known=false says
// nothing. It imports findings, views, object, merged and defaults of this
// module; package validation composes it (Judge, JudgeDelete, JudgeRoute).
package routes
