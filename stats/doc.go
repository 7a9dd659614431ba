// Package stats is what every part of the service says alike about statistics: their names,
// calendar days and ranges of them, the paging of a list and the refusals of a request's
// fields. It imports nothing of the service, so that every other package can use it.
package stats
