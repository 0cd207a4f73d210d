package redlocktest

import (
	"flag"
	"runtime"
	"strconv"
	"testing"
)

func TestWaitBoundParallelismRaisesTheDefault(t *testing.T) {
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == parallelFlag })
	if given {
		t.Skip("-parallel is given on the command line, and wins")
	}
	f := flag.Lookup(parallelFlag)
	before := f.Value.String()
	t.Cleanup(func() { f.Value.Set(before) })
	WaitBoundParallelism(3)
	if got, want := f.Value.String(), strconv.Itoa(3*runtime.GOMAXPROCS(0)); got != want {
		t.Errorf("-parallel = %s after WaitBoundParallelism(3), want %s", got, want)
	}
}
