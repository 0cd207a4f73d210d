package reading

import (
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/redlock-tui/redlock-tui/monitor/lockshape"
)

// TestSameReadComparesAllButTheTimes: a key read again at another time with the TTL left then is the same
// read; any other field that differs is not. A field added to KeyReading must be compared too.
func TestSameReadComparesAllButTheTimes(t *testing.T) {
	base := KeyReading{Key: "lock:a", Value: "tok", PTTL: time.Second, ReadAt: time.Unix(100, 0), ReadWithin: time.Millisecond}
	later := base
	later.PTTL, later.ReadAt, later.ReadWithin = 500*time.Millisecond, time.Unix(100, 5e8), 2*time.Millisecond
	if !base.SameRead(later) {
		t.Error("the same key read later, with less TTL left, is not the same read")
	}
	changes := map[string]func(k *KeyReading){
		"Key":     func(k *KeyReading) { k.Key = "lock:b" },
		"Node":    func(k *KeyReading) { k.Node = "10.0.0.1:7000" },
		"Value":   func(k *KeyReading) { k.Value = "other" },
		"Fields":  func(k *KeyReading) { k.Fields = []string{} }, // a hash lock with no fields is not a string
		"Set":     func(k *KeyReading) { k.Set = []lockshape.SetMember{{Member: "tok", Score: 1}} },
		"Absent":  func(k *KeyReading) { k.Absent = true },
		"refused": func(k *KeyReading) { k.refused = true },
		"cut":     func(k *KeyReading) { k.cut = cutTooLong },
		"Len":     func(k *KeyReading) { k.Len = 300 },
		"Digest":  func(k *KeyReading) { k.Digest = 42 },
	}
	for name, change := range changes {
		k := base
		change(&k)
		if base.SameRead(k) || k.SameRead(base) {
			t.Errorf("a key whose %s differs is the same read", name)
		}
	}
	times := []string{"PTTL", "ReadAt", "ReadWithin"}
	typ := reflect.TypeFor[KeyReading]()
	for i := range typ.NumField() {
		if name := typ.Field(i).Name; changes[name] == nil && !slices.Contains(times, name) {
			t.Errorf("KeyReading.%s is new: compare it in SameRead, and here", name)
		}
	}
}
