package redlocktest

import (
	"flag"
	"runtime"
	"strconv"
)

// parallelFlag is the testing package's -parallel flag, as registered on the command line.
const parallelFlag = "test.parallel"

// WaitBoundParallelism raises the default of -parallel to perCPU times GOMAXPROCS, for a package whose
// parallel tests spend their time waiting (on servers, node timeouts, TTLs and proxies' latency) rather than
// computing: the testing package's default of GOMAXPROCS would leave a two-core machine idle while they wait.
// Call it from TestMain before m.Run. A -parallel given on the command line wins.
func WaitBoundParallelism(perCPU int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == parallelFlag })
	if given || flag.Lookup(parallelFlag) == nil {
		return
	}
	if err := flag.Set(parallelFlag, strconv.Itoa(perCPU*runtime.GOMAXPROCS(0))); err != nil {
		panic("redlocktest: " + err.Error())
	}
}
