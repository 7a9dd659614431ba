package pages

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
)

// A website's funnels on its settings page (/websites/{id}/edit): the list, with buttons that
// move a step up or down and remove a funnel, and a form that makes one from goals picked in
// order (stats.MaxFunnelSteps boxes; empty ones are skipped). The rules are the API's
// (stats.CheckFunnel and the store's); a refusal shows the settings page again with the
// messages, and writes nothing.

// funnelForm is the add-a-funnel form as sent, with its refusals.
type funnelForm struct {
	Name   string
	Steps  []string // the goal ids picked, box by box ("" for none)
	Errors stats.FieldErrors
}

// Boxes are the step boxes with what each holds.
func (f funnelForm) Boxes() []string {
	boxes := make([]string, stats.MaxFunnelSteps)
	copy(boxes, f.Steps)
	return boxes
}

var funnelFields = map[string]bool{"csrf": true, "name": true, "steps": true}

// readFunnelForm reads the form: the boxes' goal ids in order, skipping the empty ones.
func readFunnelForm(v url.Values) (funnelForm, []int64, stats.FieldErrors) {
	f := funnelForm{Name: v.Get("name"), Steps: v["steps"]}
	errs := stats.FieldErrors{}
	for field := range v {
		if !funnelFields[field] {
			errs.Add(field, "is not accepted here")
		}
	}
	if len(v["name"]) > 1 {
		errs.Add("name", "must be sent once")
	}
	var steps []int64
	for _, s := range f.Steps {
		if s == "" {
			continue
		}
		id, err := strconv.ParseInt(s, 10, 64)
		if err != nil || id < 1 {
			errs.Add("steps", "must each be one of the website's goals")
			break
		}
		steps = append(steps, id)
	}
	return f, steps, errs
}

// addFunnel takes the add-a-funnel form of the settings page.
func (p *Pages) addFunnel(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	form, steps, errs := readFunnelForm(r.PostForm)
	if len(errs) == 0 {
		var err error
		_, errs, err = p.goals.CreateFunnel(r.Context(), site.ID, form.Name, steps)
		switch {
		case errors.Is(err, repository.ErrNotFound):
			p.notFound(w, r) // deleted meanwhile
			return
		case err != nil:
			p.serverError(w, r, err)
			return
		case errs == nil:
			p.redirect(w, r, editURL(site.ID)+"?notice=funnel-added#funnels", http.StatusSeeOther)
			return
		}
	}
	form.Errors = errs
	p.renderEditPage(w, r, http.StatusUnprocessableEntity, site, p.formOf(site), goalForm{Kind: stats.GoalPageview}, form)
}

// funnelOf reads {funnel} of the URL: one of the site's funnels, else the 404 page.
func (p *Pages) funnelOf(w http.ResponseWriter, r *http.Request, site repository.Website) (stats.Funnel, bool) {
	id, err := strconv.ParseInt(r.PathValue("funnel"), 10, 64)
	if err != nil || id < 1 {
		p.notFound(w, r)
		return stats.Funnel{}, false
	}
	f, err := p.base.Repo.Funnel(r.Context(), site.ID, id)
	if errors.Is(err, repository.ErrNotFound) {
		p.notFound(w, r)
		return stats.Funnel{}, false
	}
	if err != nil {
		p.serverError(w, r, err)
		return stats.Funnel{}, false
	}
	return f, true
}

// removeFunnel takes a funnel's remove button.
func (p *Pages) removeFunnel(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	f, ok := p.funnelOf(w, r, site)
	if !ok {
		return
	}
	err := p.base.Repo.DeleteFunnel(r.Context(), site.ID, f.ID)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.notFound(w, r)
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, editURL(site.ID)+"?notice=funnel-removed#funnels", http.StatusSeeOther)
	}
}

// moveFunnelStep takes a step's up or down button (fields step, its position from 1, and
// move, up or down): it swaps the step with its neighbour.
func (p *Pages) moveFunnelStep(w http.ResponseWriter, r *http.Request) {
	_, site, ok := p.siteForm(w, r, repository.RoleEditor)
	if !ok {
		return
	}
	f, ok := p.funnelOf(w, r, site)
	if !ok {
		return
	}
	pos, err := strconv.Atoi(r.PostForm.Get("step"))
	move := r.PostForm.Get("move")
	other := pos + 1
	if move == "up" {
		other = pos - 1
	}
	if err != nil || pos < 1 || pos > len(f.Steps) || other < 1 || other > len(f.Steps) || (move != "up" && move != "down") {
		p.fail(w, r, http.StatusUnprocessableEntity, "Step not moved", "That step cannot move that way.")
		return
	}
	steps := make([]int64, len(f.Steps))
	for i, s := range f.Steps {
		steps[i] = s.GoalID
	}
	steps[pos-1], steps[other-1] = steps[other-1], steps[pos-1]
	err = p.base.Repo.ReorderFunnel(r.Context(), site.ID, f.ID, steps)
	switch {
	case errors.Is(err, repository.ErrNotFound), errors.Is(err, repository.ErrUnknownGoal):
		p.notFound(w, r) // changed meanwhile
	case err != nil:
		p.serverError(w, r, err)
	default:
		p.redirect(w, r, editURL(site.ID)+"?notice=funnel-reordered#funnels", http.StatusSeeOther)
	}
}

// funnelNotices are the sentences of the notices the funnel forms come back with.
var funnelNotices = map[string]string{"funnel-added": "The funnel was added.", "funnel-removed": "The funnel was removed.",
	"funnel-reordered": "The funnel's steps were reordered."}

// goalFunnelNotes says, for each goal that funnels use, what removing it does to them: the
// settings page says so before.
func goalFunnelNotes(funnels []stats.Funnel) map[int64]string {
	using, going := map[int64][]string{}, map[int64][]string{}
	for _, f := range funnels {
		for _, s := range f.Steps {
			using[s.GoalID] = append(using[s.GoalID], f.Name)
			if len(f.Steps)-1 < stats.MinFunnelSteps {
				going[s.GoalID] = append(going[s.GoalID], f.Name)
			}
		}
	}
	notes := map[int64]string{}
	for id, names := range using {
		note := "Used by the funnel " + strings.Join(names, ", ") + "."
		if len(names) > 1 {
			note = "Used by the funnels " + strings.Join(names, ", ") + "."
		}
		if g := going[id]; len(g) > 0 {
			note += " Removing it also removes " + strings.Join(g, ", ") + " (left with one step)."
		}
		notes[id] = note
	}
	return notes
}
