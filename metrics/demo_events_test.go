package metrics

import "testing"

func TestExporterCountsDemoEventsByKind(t *testing.T) {
	e := New(Options{})
	if got := scrape(t, e); got[`redlock_demo_events_total{kind="scenario"}`] != "" {
		t.Fatalf("a demo event counted before any: %v", got)
	}
	for _, k := range []string{"scenario", "scenario", "fault", "violation", "scenario"} {
		e.AddDemoEvent(k)
	}
	got := scrape(t, e)
	for series, want := range map[string]string{
		`redlock_demo_events_total{kind="scenario"}`:  "3",
		`redlock_demo_events_total{kind="fault"}`:     "1",
		`redlock_demo_events_total{kind="violation"}`: "1",
	} {
		if got[series] != want {
			t.Errorf("%s = %q, want %q", series, got[series], want)
		}
	}
}
