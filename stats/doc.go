// Package stats is the vocabulary every part of the service shares about statistics: their
// names, calendar days and ranges of them, the paging of a list and the refusals of a request's
// fields. It imports nothing of the service, so the collector, the repository, the API, the
// pages and the reports can all use it.
package stats
