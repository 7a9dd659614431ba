package pages

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

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
	user, site, ok := p.ownedForm(w, r)
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
		var g stats.Goal
		if g, errs = stats.CheckGoal(in); errs == nil {
			_, err := p.repo.CreateGoal(r.Context(), user.ID, site.ID, g)
			switch {
			case errors.Is(err, repository.ErrNotFound):
				p.notFound(w, r) // deleted meanwhile
				return
			case errors.Is(err, repository.ErrConflict):
				errs = stats.FieldErrors{"display_name": {"has already been taken"}}
			case errors.Is(err, repository.ErrGoalLimit):
				errs = stats.FieldErrors{"kind": {fmt.Sprintf("a website has at most %d goals", stats.MaxGoals)}}
			case err != nil:
				p.serverError(w, r, err)
				return
			default:
				p.redirect(w, r, editURL(site.ID)+"?notice=goal-added#goals", http.StatusSeeOther)
				return
			}
		}
	}
	form.Errors = errs
	p.renderEditWith(w, r, http.StatusUnprocessableEntity, site, formOf(site), form)
}

// removeGoal takes a goal's remove button.
func (p *Pages) removeGoal(w http.ResponseWriter, r *http.Request) {
	user, site, ok := p.ownedForm(w, r)
	if !ok {
		return
	}
	id, err := strconv.ParseInt(r.PathValue("goal"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return
	}
	err = p.repo.DeleteGoal(r.Context(), user.ID, site.ID, id)
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
