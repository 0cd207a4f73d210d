package monitor

import (
	"io"
	"time"
)

// The output is written by monitor/render, which imports monitor, so this package's tests cannot call it:
// render_test.go, an external test file, sets these to render's writers before the tests run.
var (
	WriteJSON       func(io.Writer, Snapshot) error
	WriteTable      func(io.Writer, Snapshot) error
	WriteReport     func(io.Writer, Snapshot) error // with the default options
	ContentionAfter time.Duration                   // how long watched before the JSON gives contention
)
