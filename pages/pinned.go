package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/analytics-service/analytics/pages/dashparts"
	"github.com/analytics-service/analytics/pages/graph"
	"github.com/analytics-service/analytics/query"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/segments"
	"github.com/analytics-service/analytics/stats"
)

// The dashboard's segments menu and annotations (docs/segments.md), and its map
// (map.go): read after the rest of the dashboard, by dashboardExtras, so that the dashboard's
// own code only calls it.

// pinnedView is the data of the "segments_menu" and "annotations" templates.
type pinnedView struct {
	SiteID   int64
	Segments []segmentItem
	// Return is the dashboard's query (range and filters), which a form sends back so that
	// its answer returns to the same view.
	Return string
	// CanSave: the current filters can be saved (there are some, a user with a role reads,
	// not in a shared view). SaveRefused says why filters cannot be saved, when they cannot.
	CanSave     bool
	SaveRefused string
	CanSite     bool // the user may make the website's own (editor)
	SignedIn    bool // a user with a role: may keep personal ones and notes
	Annotations []annotationItem
	NoteDay     string // the add form's default date: the range's last day
	MaxNote     int
}

type segmentItem struct {
	ID      int64
	Name    string
	Site    bool
	URL     string // the dashboard with its filters; "" when the dashboard cannot show them
	Current bool   // the dashboard shows its filters
	CanEdit bool
}

type annotationItem struct {
	ID      int64
	Date    string
	Note    string
	Site    bool
	CanEdit bool
}

// dashboardExtras reads and lays out the segments, annotations and map of a dashboard.
func (p *Pages) dashboardExtras(r *http.Request, site repository.Website, v statsView, rng stats.Range, interval stats.Interval, filters stats.Filters, series []repository.Bucket, data *dashboardPage) error {
	ctx := r.Context()
	var userID int64
	if u := viewerOf(r); u != nil && site.Role != "" && v.shared == nil {
		userID = u.ID
	}
	pinned, err := p.pinnedView(ctx, site, userID, v, rng, filters, r.URL.Query())
	if err != nil {
		return err
	}
	data.Graph.Markers = markers(pinned.Annotations, series, interval, p.zone(site).OfDay(rng.To))
	data.Pinned = pinned
	for i, box := range data.Boxes {
		if box.List.Stat.Name == "country" {
			data.Boxes[i].Map, err = p.countryMap(ctx, site, rng, filters, newFilterLinks(v.path, r.URL.Query(), filters))
		}
	}
	return err
}

func (p *Pages) pinnedView(ctx context.Context, site repository.Website, userID int64, v statsView, rng stats.Range, filters stats.Filters, q url.Values) (pinnedView, error) {
	out := pinnedView{SiteID: site.ID, Return: q.Encode(), SignedIn: userID != 0, MaxNote: segments.MaxNote,
		CanSite: userID != 0 && site.Role.Can(repository.RoleEditor), NoteDay: rng.To.Format(time.DateOnly)}
	// userID 0 (nobody, or a shared view) sees the website's own only; a shared link's view
	// lists no segment (its viewer is shown what the link was made for, not the website's
	// saved views).
	var segs []repository.Segment
	if v.shared == nil {
		var err error
		if segs, err = p.pinned.Segments(ctx, site, userID); err != nil {
			return pinnedView{}, err
		}
	}
	links := newFilterLinks(v.path, q, filters)
	for _, s := range segs {
		item := segmentItem{ID: s.ID, Name: s.Name, Site: s.Site(), CanEdit: userID != 0 && (!s.Site() || out.CanSite)}
		if f, ok := query.SegmentDashboard(s.Filters); ok {
			item.URL, item.Current = links.To(f), dashparts.SameFilters(f, filters)
		}
		out.Segments = append(out.Segments, item)
	}
	if userID != 0 && len(filters) > 0 {
		if _, err := query.DashboardSegment(filters); err != nil {
			out.SaveRefused = "These filters cannot be saved as a segment: " + err.Error() + "."
		} else {
			out.CanSave = true
		}
	}
	notes, err := p.pinned.Annotations(ctx, site, userID, rng.From, rng.To)
	if err != nil {
		return pinnedView{}, err
	}
	for _, a := range notes {
		out.Annotations = append(out.Annotations, annotationItem{ID: a.ID, Date: a.Day.Format(time.DateOnly), Note: a.Note, Site: a.Site(),
			CanEdit: userID != 0 && (!a.Site() || out.CanSite)})
	}
	return out, nil
}

// markers place the notes under the graph's buckets, in every shape of the graph
// (pages/graph lays the buckets out).
func markers(notes []annotationItem, series []repository.Bucket, interval stats.Interval, loc *time.Location) []dashparts.Strip {
	starts := make([]time.Time, len(series))
	for i, b := range series {
		starts[i] = b.Start
		if graph.WithinDay(interval) {
			starts[i] = b.Start.In(loc)
		}
	}
	var charts []dashparts.Chart
	for _, shape := range graph.Shapes {
		charts = append(charts, dashparts.Chart{Class: shape.Class, Width: shape.Width, X: shape.X})
	}
	var ns []dashparts.Note
	for _, a := range notes {
		ns = append(ns, dashparts.Note{ID: a.ID, Date: a.Date, Text: a.Note})
	}
	return dashparts.Markers(ns, starts, graph.WithinDay(interval), charts)
}

// pinnedSite opens the website of a segment or annotation form for any role (personal ones
// need no more; the segments service refuses the website's own below editor).
func (p *Pages) pinnedSite(w http.ResponseWriter, r *http.Request) (*repository.User, repository.Website, bool) {
	return p.siteForm(w, r, repository.RoleViewer)
}

// pinnedDone answers a segment or annotation form: back to the dashboard it came from, or the
// refusal's page.
func (p *Pages) pinnedDone(w http.ResponseWriter, r *http.Request, site repository.Website, thing string, errs stats.FieldErrors, err error) {
	switch {
	case p.refusedPinned(w, r, thing, err):
	case len(errs) > 0:
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid "+thing, "The "+thing+" was not saved:", errorLines(errs)...)
	default:
		back, bad := url.ParseQuery(r.PostForm.Get("return"))
		dest := statsPath(site.Domain)
		if bad == nil && len(back) > 0 {
			dest += "?" + back.Encode()
		}
		p.redirect(w, r, dest, http.StatusSeeOther)
	}
}

// refusedPinned answers a refusal (or failure) of the segments service and tells whether it
// did.
func (p *Pages) refusedPinned(w http.ResponseWriter, r *http.Request, thing string, err error) bool {
	switch {
	case err == nil:
		return false
	case errors.Is(err, repository.ErrNotFound):
		p.fail(w, r, http.StatusNotFound, "No such "+thing, "This website has no "+thing+" with this number that you can see: it was deleted, or never was.")
	default:
		p.refused(w, r, err) // 403 page, or a failure
	}
	return true
}

// pathID reads a positive id of the URL.
func pathID(r *http.Request, name string) int64 {
	id, err := strconv.ParseInt(r.PathValue(name), 10, 64)
	if err != nil || id < 1 {
		return 0
	}
	return id
}

func formText(r *http.Request, name string) *string {
	if _, ok := r.PostForm[name]; !ok {
		return nil
	}
	v := r.PostForm.Get(name)
	return &v
}

// saveSegment answers the dashboard's "save as segment": the filters it sends (as the
// dashboard's address holds them), a name and a type.
func (p *Pages) saveSegment(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	saved, ok := p.segmentFilters(w, r)
	if !ok {
		return
	}
	_, errs, err := p.pinned.CreateSegment(r.Context(), site, user.ID, segments.Change{Name: formText(r, "name"), Type: formText(r, "type"), Filters: saved})
	p.pinnedDone(w, r, site, "segment", errs, err)
}

// replaceSegmentFilters answers a segment's "save the filters shown into it": its filters
// become the ones the dashboard sends, its name and type stay.
func (p *Pages) replaceSegmentFilters(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	saved, ok := p.segmentFilters(w, r)
	if !ok {
		return
	}
	_, errs, err := p.pinned.UpdateSegment(r.Context(), site, user.ID, pathID(r, "segment"), segments.Change{Filters: saved})
	p.pinnedDone(w, r, site, "segment", errs, err)
}

// segmentFilters reads the dashboard's filters of a segment form as a segment's (the query
// API's filter list); a form without any, or with ones a segment cannot hold, gets the page
// that says why.
func (p *Pages) segmentFilters(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	filters, err := stats.ParseFilters(r.PostForm)
	if err != nil {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid segment", "The segment was not saved: its filters are invalid: "+err.Error()+".")
		return nil, false
	}
	saved, err := query.DashboardSegment(filters)
	if err != nil {
		p.fail(w, r, http.StatusUnprocessableEntity, "Invalid segment", "The segment was not saved: "+err.Error()+".")
		return nil, false
	}
	return saved, true
}

func (p *Pages) renameSegment(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	name := formText(r, "name")
	if name == nil {
		p.pinnedDone(w, r, site, "segment", stats.FieldErrors{"name": {"is required"}}, nil)
		return
	}
	_, errs, err := p.pinned.UpdateSegment(r.Context(), site, user.ID, pathID(r, "segment"), segments.Change{Name: name})
	p.pinnedDone(w, r, site, "segment", errs, err)
}

func (p *Pages) deleteSegment(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	p.pinnedDone(w, r, site, "segment", nil, p.pinned.DeleteSegment(r.Context(), site, user.ID, pathID(r, "segment")))
}

func (p *Pages) addAnnotation(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	_, errs, err := p.pinned.CreateAnnotation(r.Context(), site, user.ID,
		segments.Change{Date: formText(r, "date"), Note: formText(r, "note"), Type: formText(r, "type")})
	p.pinnedDone(w, r, site, "annotation", errs, err)
}

func (p *Pages) deleteAnnotation(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.pinnedSite(w, r)
	if !ok {
		return
	}
	p.pinnedDone(w, r, site, "annotation", nil, p.pinned.DeleteAnnotation(r.Context(), site, user.ID, pathID(r, "annotation")))
}
