package repository

import (
	"slices"
	"strings"

	"github.com/analytics-service/analytics/query"
)

// time_on_page and scroll_depth of the query API, by the page list's definition
// (rowReader.Engagement): the visit row keeps, per page it sent engagement for, its engaged
// milliseconds and deepest scroll (engaged_pages, engaged_ms, scroll_depth, aligned; NULL
// without engagement). A page's time on page is the sum of its visits' engaged time over the
// number of those visits that sent some, its scroll depth the mean of their deepest: means
// over the (visit, page) pairs that engaged, so that a sample needs no scaling.

// needsEngagement tells whether the query asks for time_on_page or scroll_depth.
func (b *queryBuild) needsEngagement() bool {
	return slices.Contains(b.q.Metrics, query.TimeOnPage) || slices.Contains(b.q.Metrics, query.ScrollDepth)
}

// engagementJoin is the join of u's row to its engagement on the pages page (SQL of a
// predicate on e.page): sums and counts of the pairs that sent some (eng).
func engagementJoin(page string) string {
	return ` CROSS JOIN LATERAL (SELECT sum(e.ms) AS ems, count(e.ms) AS ecnt, sum(e.depth) AS ssum, count(e.depth) AS scnt
		FROM unnest(engaged_pages, engaged_ms, scroll_depth) AS e (page, ms, depth) WHERE ` + page + `) AS eng`
}

// engagementPages is the predicate on e.page of the pages whose engagement a u row counts:
// the pageview's page under event:page, else the pages the event:page filters keep.
func (b *queryBuild) engagementPages() string {
	if b.hitLevel() == query.PageLevel {
		return "e.page = h.v"
	}
	if b.pages == "" {
		return "false"
	}
	return strings.ReplaceAll(b.pages, element, "e.page")
}

// engagementColumns are u's engagement columns, after engagementJoin.
const engagementColumns = `, eng.ems, eng.ecnt, eng.ssum, eng.scnt`

// engagementSums are v's engagement sums of u's rows: of a page's first pageview of the visit
// only, since its engagement is the visit's.
const engagementSums = `, coalesce(sum(ems) FILTER (WHERE first), 0) AS ems, coalesce(sum(ecnt) FILTER (WHERE first), 0) AS ecnt,
	coalesce(sum(ssum) FILTER (WHERE first), 0) AS ssum, coalesce(sum(scnt) FILTER (WHERE first), 0) AS scnt`

// engagementSQL is time_on_page (whole seconds) or scroll_depth over v's rows, rounded halves
// away from zero; NULL (answered 0) when no visit sent any.
func engagementSQL(m query.Metric) string {
	if m == query.TimeOnPage {
		return "round(sum(ems)::numeric / nullif(sum(ecnt), 0) / 1000)"
	}
	return "round(sum(ssum)::numeric / nullif(sum(scnt), 0))"
}
