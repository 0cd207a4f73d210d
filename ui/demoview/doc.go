// Package demoview is the demo's room of the dashboard: the demo view (the presenter's bar, the violation
// banner, the scenario's story told step by step) and the scenario menu, over the embedded demo (package demo).
package demoview
