package monitor

import "github.com/redlock-tui/redlock-tui/monitor/lockshape"

// HolderKindText is a lock's holder as its value names it (LockView.HolderKind), for people: "anyone (*)" when
// it names nobody in particular, "owner <id>" for an owner id, id itself for a token. id is the value as the
// caller shows it (escaped or sanitized, perhaps shortened); "" stays "".
func HolderKindText(kind, id string) string {
	switch {
	case id == "":
		return ""
	case kind == lockshape.HolderAnyone:
		return "anyone (" + id + ")"
	case kind == lockshape.HolderOwner:
		return "owner " + id
	}
	return id
}
