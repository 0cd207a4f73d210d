package testbed

import (
	"testing"
	"time"
)

func TestResetClockBringsAJumpedFastClockBackToRealTime(t *testing.T) {
	e, err := StartEmbedded(EmbeddedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	e.JumpClock(time.Hour)
	e.SetClockRate(2)
	e.ResetClock()
	if off := time.Until(e.Now()); off > time.Second || off < -time.Second {
		t.Fatalf("after ResetClock the clock is %v off real time", off)
	}
	real := time.Now()
	start := e.Now()
	time.Sleep(50 * time.Millisecond)
	ran := e.Now().Sub(start)
	if elapsed := time.Since(real); ran > elapsed*3/2 {
		t.Errorf("after ResetClock the clock ran %v in %v of real time: not at real speed", ran, elapsed)
	}
}
