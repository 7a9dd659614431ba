package pages

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"

	"github.com/analytics-service/analytics/pages/filterbar"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A website's goals on its settings page (/websites/{id}/edit): the list, a form that adds one
// and a button that removes each. The rules are the API's (stats.CheckGoal); a refusal shows
// the settings page again with the messages beside the fields, and writes nothing.

// goalForm is the add-a-goal form as sent, with its refusals.
type goalForm struct {
	Kind, Page, Event, DisplayName, Currency string
	Errors                                   stats.FieldErrors
}

// goalFields are the fields the form takes; any other is refused, as by the API.
var goalFields = map[string]bool{"csrf": true, "kind": true, "page": true, "event": true, "display_name": true, "currency": true}

// readGoalForm reads the form. The kind chooses which of page and event counts: the other box
// may hold what was typed before the kind changed, and is ignored. An empty display name or
// currency is taken as not given.
func readGoalForm(v url.Values) (goalForm, stats.GoalInput) {
	f := goalForm{Kind: v.Get("kind"), Page: v.Get("page"), Event: v.Get("event"),
		DisplayName: v.Get("display_name"), Currency: v.Get("currency")}
	in := stats.GoalInput{Kind: f.Kind}
	switch f.Kind {
	case stats.GoalPageview:
		in.Page = &f.Page
	case stats.GoalEvent:
		in.Event = &f.Event
	}
	if f.DisplayName != "" {
		in.DisplayName = &f.DisplayName
	}
	if f.Currency != "" {
		in.Currency = &f.Currency
	}
	return f, in
}

// addGoal takes the add-a-goal form of the settings page.
func (p *Pages) addGoal(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	form, in := readGoalForm(r.PostForm)
	errs := stats.FieldErrors{}
	for field := range r.PostForm {
		if !goalFields[field] {
			errs.Add(field, "is not accepted here")
		}
	}
	if len(errs) == 0 {
		var err error
		_, errs, err = p.goals.CreateGoal(r.Context(), site.ID, in)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.notFound(w, r) // deleted meanwhile
			return
		case err != nil:
			p.serverError(w, r, err)
			return
		case errs == nil:
			p.redirect(w, r, editURL(site.ID)+"?notice=goal-added#goals", http.StatusSeeOther)
			return
		}
	}
	form.Errors = errs
	p.renderEditWith(w, r, http.StatusUnprocessableEntity, site, p.formOf(site), form)
}

// removeGoal takes a goal's remove button.
func (p *Pages) removeGoal(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("goal"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return
	}
	err = p.base.Repo.DeleteGoal(r.Context(), site.ID, id)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.notFound(w, r)
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, editURL(site.ID)+"?notice=goal-removed#goals", http.StatusSeeOther)
	}
}

func editURL(id int64) string { return "/websites/" + strconv.FormatInt(id, 10) + "/edit" }

// goalNotices are the sentences of the notices the goal forms come back with.
var goalNotices = map[string]string{"goal-added": "The goal was added.", "goal-removed": "The goal was removed."}

// goalReads are a range's conversions, as the dashboard, the export and the report show them.
type goalReads struct {
	conversions []repository.GoalConversion
	visitors    int64 // the visitors rates divide by
	revenue     []repository.GoalRevenue
}

// readGoals reads the conversions of the website's goals over the range, with the filters;
// nothing when it has no goals.
func (p *Pages) readGoals(ctx context.Context, siteID int64, rng stats.Range, filters stats.Filters) (goalReads, error) {
	goals, err := p.base.Repo.Goals(ctx, siteID)
	if err != nil || len(goals) == 0 {
		return goalReads{}, err
	}
	conversions, visitors, _, err := p.base.Repo.Conversions(ctx, siteID, rng, filters, goals)
	if err != nil {
		return goalReads{}, err
	}
	revenue, _, err := p.base.Repo.Revenue(ctx, siteID, rng, filters, goals)
	return goalReads{conversions: conversions, visitors: visitors, revenue: revenue}, err
}

// revenueText is a goal's total revenue in its currency as the pages show it ("120.50 EUR"),
// "" for a goal without a currency.
func (reads goalReads) revenueText(g stats.Goal) string {
	if g.Currency == "" {
		return ""
	}
	amount := "0.00"
	for _, r := range reads.revenue {
		if r.Goal.ID == g.ID && r.Currency == g.Currency {
			amount = r.Amount
		}
	}
	return amount + " " + g.Currency
}

// goalRow is one row of the dashboard's Goals panel.
type goalRow struct {
	Name     string
	Filter   string // the dashboard filtered by the goal
	Visitors int64  // uniques
	Events   int64  // total
	Rate     string // conversion rate, "4.2 %"
	Revenue  string // total revenue in its currency, "120.50 EUR"; "" without a currency
}

// goalRows are the Goals panel's rows; link makes the address that filters by a goal.
// withRevenue tells whether a goal has a currency (the panel then shows revenue).
func goalRows(reads goalReads, link func(stats.Name, string) string) (rows []goalRow, withRevenue bool) {
	rows = make([]goalRow, len(reads.conversions))
	for i, c := range reads.conversions {
		rows[i] = goalRow{Name: c.Goal.DisplayName, Filter: link(stats.GoalName, c.Goal.DisplayName),
			Visitors: c.Visitors, Events: c.Events, Rate: rateText(stats.ConversionRate(c.Visitors, reads.visitors)),
			Revenue: reads.revenueText(c.Goal)}
		withRevenue = withRevenue || c.Goal.Currency != ""
	}
	return rows, withRevenue
}

// rateText is a percentage with one decimal, as the pages show rates.
func rateText(rate float64) string { return strconv.FormatFloat(rate, 'f', 1, 64) + " %" }

// goalsExport is the export's name for the goals' conversions.
const goalsExport = "goals"

func goalsExportURL(v statsView, rng stats.Range, filters stats.Filters) string {
	q := filterbar.With(rng.Query(), filters)
	q.Set("name", goalsExport)
	return v.url("/export", q)
}

// exportGoals answers the CSV of the goals' conversions over the range, with the filters, in
// the Goals panel's order: goal, visitors, events, conversion rate (a percentage, one
// decimal) and revenue (the total in the goal's currency, "120.50 EUR"; empty without one).
func (p *Pages) exportGoals(w http.ResponseWriter, r *http.Request, site repository.Website, rng stats.Range, filters stats.Filters) {
	reads, err := p.readGoals(r.Context(), site.ID, rng, filters)
	if err != nil {
		p.serverError(w, r, err)
		return
	}
	out := startCSV(w, site, "goals", rng, filters)
	out.Row("goal", "visitors", "events", "conversion_rate", "revenue")
	for _, c := range reads.conversions {
		rate := strconv.FormatFloat(stats.ConversionRate(c.Visitors, reads.visitors), 'f', 1, 64)
		out.Row(c.Goal.DisplayName, strconv.FormatInt(c.Visitors, 10), strconv.FormatInt(c.Events, 10), rate, reads.revenueText(c.Goal))
	}
	if err := out.Flush(); err != nil {
		p.base.Log.Warn("export: write", "error", err) // the client went away
	}
}
