package monitor

import (
	"slices"
	"strings"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// nameResource sets v's logical resource and its convention from its key and lead token. Most keys have no
// known prefix: the lead token is looked for only when one has.
func nameResource(v *LockView) {
	if !slices.ContainsFunc(KeyConventions, func(kc KeyConvention) bool { return strings.HasPrefix(v.Resource, kc.Prefix) }) {
		return
	}
	if kc := lockshape.ConventionOf(v.Resource, LeadToken(v)); kc != nil {
		v.Logical, v.Convention = strings.TrimPrefix(v.Resource, kc.Prefix), kc.Client
	}
}

// ResourceText is how a lock is named for people: its key, or "billing (malkusch/lock: lock_billing)" when a
// known client's key convention names its resource.
func (v *LockView) ResourceText() string {
	if v.Logical == "" {
		return v.Resource
	}
	return v.Logical + " (" + v.Convention + ": " + v.Resource + ")"
}
