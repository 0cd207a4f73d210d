package metrics

// AddDemoEvent counts one event of the demo, of the given kind (acquired, fault, scenario, violation, ...).
func (e *Exporter) AddDemoEvent(kind string) {
	e.mu.Lock()
	e.demoEvents[kind]++
	e.mu.Unlock()
}
