package monitor

import "testing"

// TestLeadTokenIsTheTokenALockIsAbout checks the one lead-token rule that the dashboard and the monitor share.
func TestLeadTokenIsTheTokenALockIsAbout(t *testing.T) {
	seen := func(tok string) MasterLock { return MasterLock{State: CellSeen, Token: tok} }
	lastSeen := func(tok string) MasterLock { return MasterLock{State: CellUnknown, Token: tok} }
	absent := MasterLock{State: CellAbsent}
	unread := MasterLock{State: CellUnknown}
	tests := []struct {
		name string
		view LockView
		want string
	}{
		{"the holder, even where another token is more common", LockView{Holder: "H", Masters: []MasterLock{seen("H"), seen("B"), seen("B")}}, "H"},
		{"nobody holds it: the most common token", LockView{Masters: []MasterLock{seen("B"), seen("A"), seen("B"), absent}}, "B"},
		{"a tie goes to the smaller token", LockView{Masters: []MasterLock{seen("B"), seen("A"), absent}}, "A"},
		{"values last seen on masters not read count", LockView{Masters: []MasterLock{seen("A"), lastSeen("B"), lastSeen("B")}}, "B"},
		{"a tie goes to the token read now over one last seen", LockView{Masters: []MasterLock{absent, lastSeen("A"), seen("B"), absent}}, "B"},
		{"only values last seen: still named", LockView{Masters: []MasterLock{lastSeen("B"), unread, absent}}, "B"},
		{"no token anywhere", LockView{Masters: []MasterLock{absent, unread, absent}}, ""},
	}
	for _, tt := range tests {
		if got := LeadToken(&tt.view); got != tt.want {
			t.Errorf("%s: LeadToken = %q, want %q", tt.name, got, tt.want)
		}
	}
}
