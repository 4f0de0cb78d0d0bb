// Package listing is the listeners command: each Gateway's merged listener
// list, as Gateway API says an implementation must build it (the Gateway's
// own listeners, then its ListenerSets oldest first, then by
// "namespace/name"), one row per listener with what becomes of it. It shows
// before anything is applied what Airlock Microgateway will program, where
// users otherwise learn about conflicts from status, after the fact.
//
// The list and every state come from validation.MergedListeners, the code
// the webhook's cluster-aware checks judge a ListenerSet by; this package
// only reads the objects and renders the rows.
//
// # Input
//
// From manifests (FromManifests: files, directories or "-", read and judged
// by offline/read and offline/judge exactly as validate reads and judges
// them: the CRD applied, then the webhook's defaults and verdict) or from a
// cluster (FromCluster: read-only lists of Gateways, ListenerSets and
// Namespaces' metadata, and GatewayClasses with the scope on, nothing else,
// paginated by the audit's reader, offline/live.List; RBACRules, list on
// those kinds, is all it needs).
// Namespace labels matter only for allowedListeners.namespaces.from
// Selector; offline, a namespace the input does not hold has unknown labels.
//
// Precedence follows each ListenerSet's creationTimestamp. A manifest without
// one is a set not created yet: it comes after every created one, and among
// such sets "namespace/name" decides, as it does for sets created in the same
// second (kube-apiserver's timestamps have one-second resolution, and one
// `kubectl apply` usually creates all its sets within a second). This is the
// order `validate` judges the same manifests in. Manifests taken from a
// cluster (`kubectl get -o yaml`) keep their timestamps and so list as the
// cluster does.
//
// # States
//
//   - Accepted: the listener holds its port, protocol and hostname.
//   - Conflicted: an earlier listener wins; REASON is ProtocolConflict (same
//     port, another protocol) or HostnameConflict (same port, protocol and
//     hostname), WINNER (wide, json) the listener it loses to. Among the
//     Gateway's own listeners none wins (Gateway API: "MUST NOT pick one
//     conflicting Listener as the winner"): WINNER is none, MESSAGE names
//     the other one, and each still holds its port against the sets.
//   - UnsupportedProtocol: Airlock does not serve the listener's protocol
//     (Gateway API's Accepted=False, reason UnsupportedProtocol); REASON
//     names the protocols it serves. It holds no port. A Gateway's own
//     listener shows it; a set with such a listener is Invalid.
//   - NotAllowed: the Gateway's allowedListeners does not admit the set;
//     REASON is the setting, e.g. "allowedListeners.namespaces.from: Same".
//   - Invalid: kube-apiserver with the webhook would refuse the set: from
//     manifests, validate finds it invalid (the CRD's or the webhook's
//     errors; the cluster-aware checks only warn); from a cluster, the stored
//     set fails the webhook's own rules. It takes no place.
//     REASON is the field and type of its first error on that listener (else
//     of its first error), e.g. "spec.listeners[0].allowedRoutes.kinds[0].kind:
//     Unsupported value"; MESSAGE (wide) and messages (json) have every error.
//   - Unknown: whether the Gateway admits the set cannot be told (offline,
//     its namespace's labels are not in the input); it takes no place.
//
// Listeners that take no place are numbered where their set stands.
//
// # Conditions
//
// CONDITIONS (table, wide; conditions in json, each with the other
// listener in with) are the listener's conditions besides its state:
// OverlappingTLSConfig/OverlappingHostnames on an Accepted HTTPS or HTTP/3
// listener whose hostname overlaps another's on its port, on both
// listeners of each pair (validation's overlap rule); wide adds its
// message to MESSAGE.
//
// # Scope
//
// Only Airlock Microgateway's Gateways are listed when Options.Scope is on
// (the command's default --scope=class): a Gateway is Airlock's when a
// ListenerSet attached to it would be judged (validation.Scope.Decide, by
// the GatewayClasses of the input or cluster). The others are LeftOut, with
// their class and its controller (or that the class is unknown, under
// --unknown-parent=admit); the table output counts them on stderr.
//
// # Output
//
// The default is a table as kubectl prints one, a row per listener, the
// Gateways by namespace/name (four rows of testdata/golden/table.txt):
//
//	GATEWAY            PRECEDENCE   SOURCE                          LISTENER    PORT   PROTOCOL   HOSTNAME           STATE                 REASON                                                             CONDITIONS
//	lst-infra/shared   1            Gateway/lst-infra/shared        http        80     HTTP       <none>             Accepted              <none>                                                             <none>
//	lst-infra/shared   5            ListenerSet/lst-outside/guest   web         8080   HTTP       <none>             NotAllowed            allowedListeners.namespaces.selector: gateway-access=yes           <none>
//	lst-infra/shared   7            ListenerSet/lst-team-a/api      shop        443    HTTPS      shop.example.com   Conflicted            HostnameConflict                                                   <none>
//	lst-infra/shared   8            ListenerSet/lst-team-a/api      wild        8443   HTTPS      *.example.com      Accepted              <none>                                                             OverlappingTLSConfig/OverlappingHostnames
//
// -o wide adds WINNER (the listener a Conflicted one loses to) and MESSAGE
// (the error the webhook's cluster-aware check gives a Conflicted listener;
// every error of an Invalid set). -o json prints one Listing document:
//
//	{
//	  "gateways": [{"namespace": "lst-infra", "name": "shared", "listeners": [
//	    {"precedence": 7, "source": {"kind": "ListenerSet", "namespace": "lst-team-a", "name": "api"},
//	     "name": "shop", "port": 443, "protocol": "HTTPS", "hostname": "shop.example.com",
//	     "state": "Conflicted", "reason": "HostnameConflict",
//	     "winner": {"source": {"kind": "Gateway", "namespace": "lst-infra", "name": "shared"}, "name": "https"},
//	     "messages": ["spec.listeners[1].hostname: Invalid value: ..."], "conditions": []}]}],
//	  "unattached": [{"namespace": "team-a", "name": "lost", "reason": "Gateway infra/other not found"}],
//	  "leftOut": [{"namespace": "infra", "name": "envoy-gw", "reason": "GatewayClass \"envoy\" names gateway.envoyproxy.io/gatewayclass-controller"}],
//	  "inputErrors": []
//	}
//
// Every key is always present: hostname and winner are null when unset,
// reason "" and the lists [] when empty; attachedRoutes is null where the
// input or cluster has no HTTPRoutes and on a Gateway's own listener, and routes (the
// attached routes' namespace/name) is left out when there are none.
//
// # Attached routes
//
// Where the manifests or the cluster have HTTPRoutes (from a cluster
// they are listed too), the table adds ROUTES: each Accepted listener of a ListenerSet
// with the attachedRoutes the controller will report
// (validation.Attacher), 0 on one not Accepted. Routes whose parent is a
// Gateway are out of scope. Unattached are the ListenerSets
// whose parentRef names no Gateway of the input (or cluster); the table
// output notes them on stderr.
//
// # Exit codes
//
// ExitOK (0) when the listing was printed; ExitNotFound (1) when --gateway
// names a Gateway that is not there; ExitInputError (2) when an input could
// not be read or parsed (what could be read is still listed) or the cluster
// could not be listed.
package listing
