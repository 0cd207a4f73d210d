// Package kit is what every room of the dashboard (package ui and the packages under it) shares: the component
// contract (Component, Modal, Keyed, KeyTable, ModalBase) and the program context the components read (Shared),
// the messages they exchange, the key maps, the dashboard's data as sanitized for the screen (Dashboard, the
// journal of log entries, our locks), the styles and how panels are boxed, text fitting, wrapping and
// sanitizing, the form field, the scroll box and the holders' timeline.
package kit
