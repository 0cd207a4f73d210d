package lockshape

import "strings"

// Holder kinds: what a lock's value says of who holds it, beside a token drawn for one acquisition ("").
const (
	// HolderAnyone is a value that names nobody in particular: Medusa's "*", written by acquire() without an
	// owner id, which any caller's release() without one deletes.
	HolderAnyone = "anyone"
	// HolderOwner is an owner id the caller chose (Medusa's ownerId): the same owner may hold other keys with
	// it, and takes this one again while it holds it.
	HolderOwner = "owner"
)

// HolderKindOf says what a lock's value names, from its key and value: HolderAnyone, HolderOwner, or "" for a
// token. Only Medusa's locking module ("medusa_lock:<key>") writes values that are not tokens: "*", the
// caller's owner id, or "execute:<uuid>", the token of one execute() call.
func HolderKindOf(resource, value string) string {
	switch {
	case !strings.HasPrefix(resource, "medusa_lock:") || value == "":
		return ""
	case value == "*":
		return HolderAnyone
	case strings.HasPrefix(value, "execute:") && uuidShape.MatchString(strings.TrimPrefix(value, "execute:")):
		return ""
	}
	return HolderOwner
}
