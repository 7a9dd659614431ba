package reports

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
)

// topN is how many pages and referrers a report lists per website.
const topN = 5

// Report is one owner's message for one period, ready to render.
type Report struct {
	To        string
	UserID    int64
	Period    Period
	Before    Period // the period before, for the changes
	Websites  []WebsiteReport
	MessageID string // without the angle brackets
	// Unsubscribe stops the reports of every website in this message (List-Unsubscribe);
	// each WebsiteReport has its own link for one website.
	Unsubscribe string
}

// WebsiteReport is one website's part of a report.
type WebsiteReport struct {
	Domain    string
	Visitors  Change
	Pageviews Change
	// Figures are the period's headline numbers written out (visits, bounce rate, visit
	// duration...), as the dashboard writes them.
	Figures web.Figures
	// Notices say when the period or the one before starts before the website counted visits,
	// or holds imported days.
	Notices        []string
	Pages          []repository.StatEntry
	Referrers      []repository.StatEntry
	Goals          []GoalLine // the website's goals with their conversions; none without goals
	StatsURL       string
	UnsubscribeURL string
}

// Change is a figure of the period and of the period before (web.Change: the stats pages
// show changes the same way).
type Change = web.Change

// Links makes the addresses a message points at, from the service's public address.
type Links struct {
	Base *url.URL // no trailing slash
}

// Stats is a website's stats page for a period: /stats/DOMAIN?from=...&to=...
func (l Links) Stats(domain string, p Period) string {
	return l.Base.String() + "/stats/" + url.PathEscape(domain) + "?" + p.Range().Query().Encode()
}

// Unsubscribe is the one-click unsubscribe address of a token.
func (l Links) Unsubscribe(token string) string {
	return l.Base.String() + UnsubscribePath + token
}

// OneClick tells whether the links may carry List-Unsubscribe-Post: RFC 8058 allows one-click
// only for https addresses.
func (l Links) OneClick() bool {
	return l.Base.Scheme == "https"
}

// Builder reads a report's numbers through the same repository queries as the stats API.
type Builder struct {
	Repo        *repository.Repository
	Location    *time.Location // the service's calendar (TZ)
	Links       Links
	MessageHost string // right-hand side of Message-IDs: REPORT_FROM's domain
}

// Build assembles a user's report for a period; ok is false when the user has no website with
// email 1 that existed before the period ended (nothing to send).
func (b *Builder) Build(ctx context.Context, user repository.User, p Period) (rep Report, ok bool, err error) {
	all, err := b.Repo.ReportWebsites(ctx, user.ID, p.End(lastZone))
	if err != nil {
		return Report{}, false, err
	}
	// Each website's period is its own zone's dates; one added after it ended there has none.
	var sites []repository.Website
	for _, w := range all {
		if w.CreatedAt.Before(p.End(w.Zone(b.Location).OfDay(p.To))) {
			sites = append(sites, w)
		}
	}
	if len(sites) == 0 {
		return Report{}, false, nil
	}
	key, err := b.Repo.SigningKey(ctx, unsubscribePurpose)
	if err != nil {
		return Report{}, false, fmt.Errorf("reports.build: %w", err)
	}
	rep = Report{
		To: user.Email, UserID: user.ID, Period: p, Before: p.Prev(),
		MessageID: MessageID(user.ID, p, b.MessageHost),
	}
	ids := make([]int64, len(sites))
	for i, w := range sites {
		ids[i] = w.ID
		site, err := b.site(ctx, w, p, rep.Before)
		if err != nil {
			return Report{}, false, err
		}
		site.UnsubscribeURL = b.Links.Unsubscribe(signToken(key, token{UserID: user.ID, WebsiteIDs: []int64{w.ID}}))
		rep.Websites = append(rep.Websites, site)
	}
	rep.Unsubscribe = b.Links.Unsubscribe(signToken(key, token{UserID: user.ID, WebsiteIDs: ids}))
	return rep, true, nil
}

func (b *Builder) site(ctx context.Context, w repository.Website, p, before Period) (WebsiteReport, error) {
	now, err := b.Repo.Reader(w.ID, p.Range(), nil).Totals(ctx)
	if err != nil {
		return WebsiteReport{}, fmt.Errorf("reports.build: %w", err)
	}
	prev, err := b.Repo.Reader(w.ID, before.Range(), nil).Totals(ctx)
	if err != nil {
		return WebsiteReport{}, fmt.Errorf("reports.build: %w", err)
	}
	notesNow, err := b.Repo.Notes(ctx, w.ID, p.Range())
	if err != nil {
		return WebsiteReport{}, fmt.Errorf("reports.build: %w", err)
	}
	notesBefore, err := b.Repo.Notes(ctx, w.ID, before.Range())
	if err != nil {
		return WebsiteReport{}, fmt.Errorf("reports.build: %w", err)
	}
	s := WebsiteReport{
		Domain:    w.Domain,
		Visitors:  Change{Now: now.Visitors, Before: prev.Visitors},
		Pageviews: Change{Now: now.Pageviews, Before: prev.Pageviews},
		Figures:   web.NewFigures(now, prev, ","),
		Notices: web.VisitNotices(p.Name(), before.Name(),
			web.RangeFacts{Range: p.Range(), VisitsFrom: notesNow.VisitsFrom, CountedBefore: notesNow.CountedBefore, ImportedDays: notesNow.ImportedDays, Sources: notesNow.Sources, Resets: notesNow.Resets},
			web.RangeFacts{Range: before.Range(), VisitsFrom: notesBefore.VisitsFrom, CountedBefore: notesBefore.CountedBefore, ImportedDays: notesBefore.ImportedDays, Sources: notesBefore.Sources, Resets: notesBefore.Resets}),
		StatsURL: b.Links.Stats(w.Domain, p),
	}
	if s.Pages, err = b.top(ctx, w.ID, stats.Page, p); err != nil {
		return WebsiteReport{}, err
	}
	if s.Referrers, err = b.top(ctx, w.ID, stats.Referrer, p); err != nil {
		return WebsiteReport{}, err
	}
	if s.Goals, err = b.goals(ctx, w.ID, p); err != nil {
		return WebsiteReport{}, err
	}
	return s, nil
}

// GoalLine is a goal of a report: its converting visitors and conversion rate.
type GoalLine struct {
	Name     string
	Visitors int64
	Rate     string // a percentage, one decimal: "4.2 %"
}

// goals are the website's goals over the period, as the dashboard's Goals panel counts them
// (from the visit rows), by visitors.
func (b *Builder) goals(ctx context.Context, websiteID int64, p Period) ([]GoalLine, error) {
	goals, err := b.Repo.Goals(ctx, websiteID)
	if err != nil || len(goals) == 0 {
		return nil, err
	}
	conversions, visitors, _, err := b.Repo.Conversions(ctx, websiteID, p.Range(), nil, goals)
	if err != nil {
		return nil, fmt.Errorf("reports.build: %w", err)
	}
	out := make([]GoalLine, len(conversions))
	for i, c := range conversions {
		out[i] = GoalLine{Name: c.Goal.DisplayName, Visitors: c.Visitors,
			Rate: strconv.FormatFloat(stats.ConversionRate(c.Visitors, visitors), 'f', 1, 64) + " %"}
	}
	return out, nil
}

// top is the first page of a statistic in the API's default order (count descending, value
// ascending).
func (b *Builder) top(ctx context.Context, websiteID int64, name stats.Name, p Period) ([]repository.StatEntry, error) {
	entries, _, err := b.Repo.Reader(websiteID, p.Range(), nil).List(ctx, repository.StatQuery{
		Name: name, SortBy: "count", Desc: true, Limit: topN,
	})
	if err != nil {
		return nil, fmt.Errorf("reports.build: %w", err)
	}
	return entries, nil
}

// MessageID is the same for every attempt at one owner's report of one period, so that a
// message sent twice (see docs/decisions.md, Reports) is recognisably the same message.
func MessageID(userID int64, p Period, host string) string {
	return fmt.Sprintf("report-%d-%s@%s", userID, p.key(), host)
}
