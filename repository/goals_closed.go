package repository

import (
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository/daypages"
	"github.com/analytics-service/analytics/repository/ttlcache"
	"github.com/analytics-service/analytics/stats"
)

// A goal's visitors and events are summed over days, and a closed day's never change (as its
// pages, package daypages): so the goals list's numbers of a website's closed days are kept in
// memory (Repository.conversions), for the same days and goals, and an unfiltered list reads
// only the days still open. Entries expire after daypages.TTL all the same, and the cache is
// emptied past closedConversionsMax entries.

const closedConversionsMax = 1_000

// newClosedConversions is the cache of the goals' numbers of closed days, by conversionKey.
func newClosedConversions() *ttlcache.Cache[string, *goalCounts] {
	return ttlcache.New[string](daypages.TTL, closedConversionsMax, func(*goalCounts) int { return 1 })
}

// conversionKey names a website's days and goals (what each goal compares, in order) and the
// website's rows_generation, which every deletion of its rows raises (a stats reset,
// retention, on any node): the numbers of the same key are the same.
func conversionKey(websiteID, generation int64, days []string, goals []stats.Goal) string {
	var b strings.Builder
	b.WriteString(strconv.FormatInt(websiteID, 10) + " " + strconv.FormatInt(generation, 10))
	for _, d := range days {
		b.WriteString(" " + d)
	}
	return b.String() + goalsKey(goals)
}

// goalsKey names what each goal compares, in order: its kind, pattern and event name, which
// alone decide the pages and names it matches whatever the range.
func goalsKey(goals []stats.Goal) string {
	var b strings.Builder
	for _, g := range goals {
		b.WriteString("\x00" + g.Kind + "\x00" + g.Page + "\x00" + g.Event)
	}
	return b.String()
}
