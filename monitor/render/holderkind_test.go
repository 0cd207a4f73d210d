package render

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/redlock-tui/redlock-tui/monitor"
)

// TestMedusaValuesShownAsOwnersNotTokens writes three locks the way Medusa's locking module (locking-redis)
// writes them on a real redis-server, SET medusa_lock:<key> <ownerId> NX EX <expire>: acquire() without an owner
// ("*", nobody in particular), execute() ("execute:<uuid4>", a token of one call) and acquire() with the
// caller's owner id. The JSON snapshot and the table say "*" and the owner id are not tokens.
func TestMedusaValuesShownAsOwnersNotTokens(t *testing.T) {
	t.Parallel()
	w := watchReal(t, 1, monitor.Config{})
	ctx := context.Background()
	admin := w.admin[0]
	execute := "execute:0b4e7f1c-9a3d-4c2e-8f61-5d7a9e3b2c14" // a uuid4, as execute() writes
	values := map[string]string{"medusa_lock:cart:1": "*", "medusa_lock:cart:2": execute, "medusa_lock:cart:3": "worker-7"}
	for key, owner := range values {
		if err := admin.SetArgs(ctx, key, owner, redis.SetArgs{Mode: "NX", TTL: time.Minute}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	s := w.pollUntil(t, 30*time.Second, "a full sweep", func(s monitor.Snapshot) bool { return s.Swept })
	var out strings.Builder
	if err := WriteJSON(&out, s); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Locks []struct {
			Resource, State, Holder, Family string
			HolderKind                      *string `json:"holder_kind"`
		}
	}
	if err := json.Unmarshal([]byte(out.String()), &doc); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{"medusa_lock:cart:1": "anyone", "medusa_lock:cart:2": "", "medusa_lock:cart:3": "owner"}
	if len(doc.Locks) != len(kinds) {
		t.Fatalf("%d locks in the JSON, want %d:\n%s", len(doc.Locks), len(kinds), out.String())
	}
	for _, l := range doc.Locks {
		kind := ""
		if l.HolderKind != nil {
			kind = *l.HolderKind
		}
		if l.State != "held" || l.Holder != values[l.Resource] || l.Family != "Medusa" || kind != kinds[l.Resource] ||
			(kind == "") != (l.HolderKind == nil) {
			t.Errorf("%s in the JSON: %s by %q, family %q, holder_kind %q; want held by %q, family Medusa, holder_kind %q (absent for a token)",
				l.Resource, l.State, l.Holder, l.Family, kind, values[l.Resource], kinds[l.Resource])
		}
	}
	out.Reset()
	if err := WriteTable(&out, s); err != nil {
		t.Fatal(err)
	}
	for key, holder := range map[string]string{"medusa_lock:cart:1": "anyone (*)", "medusa_lock:cart:3": "owner worker-7"} {
		if !tableRowHas(out.String(), key, holder) {
			t.Errorf("the table's row of %s does not name its holder %q:\n%s", key, holder, out.String())
		}
	}
	if tableRowHas(out.String(), "medusa_lock:cart:2", "owner") {
		t.Errorf("execute()'s token is shown as an owner:\n%s", out.String())
	}
}

// tableRowHas reports whether table has a row naming key whose text holds want.
func tableRowHas(table, key, want string) bool {
	for line := range strings.Lines(table) {
		if strings.Contains(line, key) && strings.Contains(line, want) {
			return true
		}
	}
	return false
}
