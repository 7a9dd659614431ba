package repository

import (
	"github.com/analytics-service/analytics/repository/migrations"
	"github.com/analytics-service/analytics/repository/store"
)

// The storage's names (package store), under which the service's callers know them.

type (
	SiteCheck          = store.SiteCheck
	WebsiteMember      = store.WebsiteMember
	SharedLink         = store.SharedLink
	Invitation         = store.Invitation
	Role               = store.Role
	Backoff            = store.Backoff
	EmailChange        = store.EmailChange
	EmailChangeLimit   = store.EmailChangeLimit
	EmailChangeRequest = store.EmailChangeRequest
	ImportedWebsite    = store.ImportedWebsite
	KeyUse             = store.KeyUse
	Link               = store.Link
	NewWebsite         = store.NewWebsite
	ReportClaim        = store.ReportClaim
	ReportClaimQuery   = store.ReportClaimQuery
	ReportDue          = store.ReportDue
	User               = store.User
	UserRow            = store.UserRow
	Website            = store.Website
	WebsiteChanges     = store.WebsiteChanges
	WebsiteQuery       = store.WebsiteQuery
	WebsiteSettings    = store.WebsiteSettings
	AlertSettings      = store.AlertSettings
	AlertAddress       = store.AlertAddress
	TrafficAlert       = store.TrafficAlert
	AlertDelivery      = store.AlertDelivery
	Segment            = store.Segment
	Annotation         = store.Annotation
)

const (
	MaxSegments         = store.MaxSegments
	MaxAnnotations      = store.MaxAnnotations
	ScopeStatsRead      = store.ScopeStatsRead
	ScopeSitesProvision = store.ScopeSitesProvision
	RoleViewer          = store.RoleViewer
	RoleAdmin           = store.RoleAdmin
	RoleOwner           = store.RoleOwner
	RoleEditor          = store.RoleEditor
	KeyUseInterval      = store.KeyUseInterval
	LinkInvite          = store.LinkInvite
	LinkReset           = store.LinkReset
	LinkSetPassword     = store.LinkSetPassword
	AlertSpike          = store.AlertSpike
	AlertDrop           = store.AlertDrop
	AlertConfirm        = store.AlertConfirm
	SpikeWindow         = store.SpikeWindow
)

var (
	ErrPinnedLimit    = store.ErrPinnedLimit
	MemberRoles       = store.MemberRoles
	ErrWrongAddress   = store.ErrWrongAddress
	ErrTOTPState      = store.ErrTOTPState
	ErrNotMember      = store.ErrNotMember
	ErrClaimLost      = store.ErrClaimLost
	ErrFunnelLimit    = store.ErrFunnelLimit
	ErrGoalLimit      = store.ErrGoalLimit
	ErrLastAdmin      = store.ErrLastAdmin
	ErrNotAdmin       = store.ErrNotAdmin
	ErrTooManyChanges = store.ErrTooManyChanges
	ErrUnknownGoal    = store.ErrUnknownGoal
	ZoneOf            = store.ZoneOf
)

// Migrate applies the schema's migrations that the database has not seen yet (package
// migrations).
var Migrate = migrations.Migrate
