// Package verdict is the ratcheting verdict every rule records into:
// Verdict keeps errors, warnings and ratcheted errors apart; Ratchet pairs
// an update's listeners with the stored ones by name (the k-th of a name
// with the k-th stored one), so that an error whose values are as stored
// becomes a KindRatcheted warning, as Kubernetes' CRD validation ratcheting
// lets an unchanged value through.
//
// It imports findings only; the rule rooms (object, incluster, routes)
// record into it and package validation creates it.
package verdict
