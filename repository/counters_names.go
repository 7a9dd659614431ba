package repository

import "github.com/analytics-service/analytics/repository/counters"

// The counters' writer's names (package counters), under which the service's callers know
// them.

type (
	Added          = counters.Added
	EngagedPage    = counters.EngagedPage
	Member         = counters.Member
	NodeOpen       = counters.NodeOpen
	NodeVisitors   = counters.NodeVisitors
	RealtimeMinute = counters.RealtimeMinute
	RecentPageview = counters.RecentPageview
	Realtime       = counters.Realtime
	RangeNotes     = counters.RangeNotes
	RolledUp       = counters.RolledUp
	StatCount      = counters.StatCount
	StatsReset     = counters.StatsReset
	VisitBatch     = counters.VisitBatch
	VisitRow       = counters.VisitRow
	VisitRowList   = counters.VisitRowList
	VisitRows      = counters.VisitRows
)

const (
	DefaultMaxValuesPerDay = counters.DefaultMaxValuesPerDay
	HitEvent               = counters.HitEvent
	HitPage                = counters.HitPage
	RealtimeRecentMax      = counters.RealtimeRecentMax
	RealtimeWindow         = counters.RealtimeWindow
	MinutesKept            = counters.MinutesKept
	RealtimeVisitorsTTL    = counters.RealtimeVisitorsTTL
	DefaultRowBytesPerDay  = counters.DefaultRowBytesPerDay
)

var (
	RefusedContent = counters.RefusedContent
	ErrorCode      = counters.ErrorCode
)
