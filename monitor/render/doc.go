// Package render turns a monitor.Snapshot into words: the --once --json document with its one exported
// schema type (JSONSnapshot, from which docs/json.md is generated), the plain-text tables, the Markdown
// incident report. It imports monitor; monitor does not import it. The words themselves (durations, clock
// rates, state labels) come from monitor/vocab and monitor's own types, as for every other reader.
package render
