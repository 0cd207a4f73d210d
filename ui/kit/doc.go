// Package kit is what every room of the dashboard (package ui and the packages under it) shares and nothing of
// theirs: the styles and how panels are boxed, text fitting, wrapping and sanitizing, the form field, the
// routine-failure counter of the demo line, and the few words about a lock's holders.
package kit
