package pages

import (
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/analytics-service/analytics/pages/display"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// realtimePage is the data of realtime.html: GET /stats/{domain}/realtime (docs/visits.md), under the dashboard's access rules; the recent pageviews only for the
// signed-in owner.
type realtimePage struct {
	Domain    string
	Dashboard string // the dashboard's address
	Today     string // the dashboard of today, by the hour: the interval switch's Hours
	Self      string // this view's address: the interval switch's Minutes
	Visitors  int64
	Total     int64            // pageviews of the 30 minutes
	Minutes   []graph.BarChart // wide and compact
	Summary   string           // what the chart shows, for a screen reader
	Table     []minuteRow
	Owner     bool
	Recent    []recentRow
	UpdatedAt string // "14:03:07" in TZ
}

type recentRow struct {
	Ago      string // "12 s ago", "3 min ago"
	Page     string
	Referrer string
	Country  string
	Browser  string
	Device   string
}

type minuteRow struct {
	Label     string // "14:03"
	Pageviews int64
}

func (p *Pages) realtime(w http.ResponseWriter, r *http.Request) {
	site, ok := p.site(w, r)
	if !ok {
		return
	}
	owner := hasRole(site)
	rt, err := p.base.Repo.Realtime(r.Context(), site.ID, owner)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	now := p.base.Now().In(p.zone(site).At(p.base.Now())) // the website's clock
	data := realtimePage{
		Domain: site.Domain, Dashboard: viewOf(r, site).url("", url.Values{}), Visitors: rt.Visitors, Owner: owner,
		UpdatedAt: now.Format("15:04:05"),
	}
	today := p.today(site).Format(time.DateOnly)
	data.Today = viewOf(r, site).url("", url.Values{"from": {today}, "to": {today}})
	data.Self = viewOf(r, site).url("/realtime", url.Values{})
	first := now.Truncate(time.Minute).Add(-repository.RealtimeWindow + time.Minute)
	for i, n := range rt.Pageviews {
		data.Total += n
		data.Table = append(data.Table, minuteRow{Label: first.Add(time.Duration(i) * time.Minute).Format("15:04"), Pageviews: n})
	}
	counts, titles := make([]int64, len(data.Table)), make([]string, len(data.Table))
	var most int64
	for i, m := range data.Table {
		counts[i], titles[i], most = m.Pageviews, m.Label+": "+countOf(m.Pageviews, "pageview", "pageviews"), max(most, m.Pageviews)
	}
	for _, shape := range graph.Shapes {
		data.Minutes = append(data.Minutes, graph.Bars(shape, counts, titles))
	}
	data.Summary = fmt.Sprintf("Pageviews per minute over the last 30 minutes: %s in all, at most %s in one minute.", formatCount(data.Total), formatCount(most))
	for _, v := range rt.Recent {
		data.Recent = append(data.Recent, recentRow{
			Ago: ago(v.SecondsAgo), Page: v.Page, Referrer: display.Value(stats.Referrer, v.Referrer),
			Country: display.Value(stats.Country, v.Country), Browser: display.Value(stats.Browser, v.Browser),
			Device: display.Value(stats.Device, v.Device),
		})
	}
	p.render(w, r, http.StatusOK, "realtime.html", "Realtime · "+site.Domain, data)
}

// ago says how long ago, roughly: "12 s ago", "3 min ago".
func ago(seconds int64) string {
	if seconds < 60 {
		return fmt.Sprintf("%d s ago", seconds)
	}
	return fmt.Sprintf("%d min ago", seconds/60)
}
