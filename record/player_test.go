package record

import (
	"bytes"
	"fmt"
	"io"
	"path/filepath"
	"testing"
	"time"
)

// TestAThinnedOutPlayerSeeksToTheSameSnapshots: with no room for keyframes, the player keeps only its first,
// and every poll's snapshot, remade from far before it through the polled master's keys as the polls since
// said they stood, is the one a player with room for a keyframe every keyEvery polls gives.
func TestAThinnedOutPlayerSeeksToTheSameSnapshots(t *testing.T) {
	path := filepath.Join(t.TempDir(), "changing.rec")
	start := time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)
	const keys, polls = 200, 300
	writeLines(t, path, func(out io.Writer) {
		fmt.Fprintln(out, `{"format":"redlock-tui recording","version":2,"masters":["a:1"]}`)
		key := func(k, gen int, at string) string {
			return fmt.Sprintf(`{"Key":"lock:job:%d","Value":"tok-%d-%d","PTTL":600000000000,"ReadAt":%q}`, k, k, gen, at)
		}
		for i := range polls {
			at := start.Add(time.Duration(i) * time.Second).Format(time.RFC3339Nano)
			fmt.Fprintf(out, `{"poll":{"time":%q,"readings":[{"Addr":"a:1","Sent":%[1]q,"Received":%[1]q,`+
				`"ServerTime":%[1]q,"Role":"master","Version":"7.0.15","Uptime":37000000000,"Refresh":"polling","Keys":[`, at)
			if i == 0 {
				for k := range keys {
					if k > 0 {
						fmt.Fprint(out, ",")
					}
					fmt.Fprint(out, key(k, 0, at))
				}
				fmt.Fprintf(out, `]}]},"polled":[{"reading":0,"runs":[{"at":%q,"spans":[{"new":%d}]}]}]}`+"\n", at, keys)
				continue
			}
			k := i % keys // one key changes hands at each poll
			fmt.Fprintf(out, `%s]}]},"polled":[{"reading":0,"runs":[{"at":%q,"spans":[{"same":%d},{"changed":1},{"same":%d}]}]}]}`+"\n",
				key(k, i, at), at, k, keys-k-1)
		}
	})
	rec, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	roomy := newPlayer(rec, nil, 1<<62)
	thin := newPlayer(rec, nil, 0)
	if roomy.every != keyEvery || len(roomy.kept) != (polls+keyEvery-1)/keyEvery || len(thin.kept) != 1 {
		t.Fatalf("keyframes every %d polls (%d) and %d (%d); want every %d with room, and only the first without",
			roomy.every, len(roomy.kept), thin.every, len(thin.kept), keyEvery)
	}
	for i := 0; i < polls; i += 7 { // each seek remakes the polls before it: not all of them
		if a, b := snapshotJSON(t, roomy.Snapshot(i)), snapshotJSON(t, thin.Snapshot(i)); !bytes.Equal(a, b) {
			t.Fatalf("poll %d seeks to another snapshot from keyframes every %d polls than from every %d", i, thin.every, keyEvery)
		}
	}
	last := roomy.Snapshot(polls - 1)
	if l := last.Lock("lock:job:99"); l == nil || l.Holder != "tok-99-299" {
		t.Errorf("the last poll's lock:job:99 is %+v; want held by tok-99-299", l)
	}
}
