package handlers

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/account"
	"github.com/analytics-service/analytics/gen"
	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// Plausible's Sites API (docs/plausible-sites.md) over the service's own websites, goals,
// shared links and members: each call applies the rules of the phpAnalytics API's or the
// pages' twin (website.Service, goals.Service, the members' store), and answers as Plausible
// does, `{"error": ...}` on refusals (the error handler writes those: query_errors.go).

const sitesAPIPrefix = "/api/v1/sites"

// isSitesPath tells the Sites API's paths.
func isSitesPath(p string) bool {
	return p == sitesAPIPrefix || strings.HasPrefix(p, sitesAPIPrefix+"/")
}

const siteNotFound = "Site could not be found"

// sitesError is a refusal of the Sites API: Plausible's body of a status and a sentence.
func sitesError(status int, message string) error {
	return &apiError{status: status, message: message}
}

// sitesSite is the website of a domain on which the key's user has at least need: 404 for a
// domain they have no role on (as for an unknown one), 403 for a role below need.
func (s *Server) sitesSite(ctx context.Context, domain string, need repository.Role) (repository.Website, error) {
	site, err := s.repo.WebsiteByDomain(ctx, domain)
	if errors.Is(err, repository.ErrNotFound) {
		return repository.Website{}, sitesError(http.StatusNotFound, siteNotFound)
	}
	if err != nil {
		return repository.Website{}, err
	}
	site, err = s.websites.Open(ctx, userID(ctx), site.ID, need)
	switch {
	case errors.Is(err, repository.ErrNotFound):
		return repository.Website{}, sitesError(http.StatusNotFound, siteNotFound)
	case errors.Is(err, website.ErrForbidden):
		return repository.Website{}, sitesError(http.StatusForbidden, forbidden().Message)
	}
	return site, err
}

// siteIDOf is the site_id of a call that takes it in the body or the query (Plausible reads
// both): the body's first; a 400 with Plausible's sentence when neither has it.
func siteIDOf(body, query *string, doing string) (string, error) {
	if body != nil && *body != "" {
		return *body, nil
	}
	if query != nil && *query != "" {
		return *query, nil
	}
	return "", sitesError(http.StatusBadRequest, "Parameter `site_id` is required to "+doing)
}

// fieldRefusal is the first of a rule's refusals as Plausible words a changeset's: "field:
// message", the field under the Sites API's name for it.
func fieldRefusal(errs stats.FieldErrors, names map[string]string) error {
	keys := sortedKeys(errs)
	field := keys[0]
	return sitesError(http.StatusBadRequest, cmp.Or(names[field], field)+": "+errs[field][0])
}

func (s *Server) siteJSON(ctx context.Context, w repository.Website) (gen.PlausibleSite, error) {
	props, err := s.repo.CustomProps(ctx, w.ID)
	return gen.PlausibleSite{Domain: w.Domain, Timezone: w.ZoneName(s.websites.Zone()), CustomProperties: props}, err
}

// PlausibleListSites answers GET /api/v1/sites.
func (s *Server) PlausibleListSites(ctx context.Context, req gen.PlausibleListSitesRequestObject) (gen.PlausibleListSitesResponseObject, error) {
	p := req.Params
	sites, _, err := s.repo.ListWebsites(ctx, userID(ctx), repository.WebsiteQuery{Desc: true, Limit: maxCursorList})
	if err != nil {
		return nil, err
	}
	page, meta, err := cursorPage(sites, func(w repository.Website) string { return strconv.FormatInt(w.ID, 10) }, p.After, p.Before, p.Limit)
	if err != nil {
		return nil, err
	}
	out := gen.PlausibleListSites200JSONResponse{Sites: []gen.PlausibleSiteListed{}, Meta: meta}
	for _, w := range page {
		out.Sites = append(out.Sites, gen.PlausibleSiteListed{Domain: w.Domain, Timezone: w.ZoneName(s.websites.Zone())})
	}
	return out, nil
}

// PlausibleCreateSite answers POST /api/v1/sites: a website under the store's rules.
func (s *Server) PlausibleCreateSite(ctx context.Context, req gen.PlausibleCreateSiteRequestObject) (gen.PlausibleCreateSiteResponseObject, error) {
	body := cmp.Or(req.JSONBody, req.FormdataBody)
	var timezone *string
	if body.Timezone != nil && *body.Timezone != "" {
		timezone = body.Timezone
	}
	w, errs, err := s.websites.Create(ctx, userID(ctx), body.Domain, website.Settings{Timezone: timezone})
	if err != nil {
		return nil, err
	}
	if errs != nil {
		return nil, fieldRefusal(errs, nil)
	}
	site, err := s.siteJSON(ctx, w)
	return gen.PlausibleCreateSite200JSONResponse(site), err
}

// PlausibleGetSite answers GET /api/v1/sites/{site_id}.
func (s *Server) PlausibleGetSite(ctx context.Context, req gen.PlausibleGetSiteRequestObject) (gen.PlausibleGetSiteResponseObject, error) {
	w, err := s.sitesSite(ctx, req.SiteId, repository.RoleViewer)
	if err != nil {
		return nil, err
	}
	site, err := s.siteJSON(ctx, w)
	return gen.PlausibleGetSite200JSONResponse(site), err
}

// PlausibleUpdateSite answers PUT /api/v1/sites/{site_id}. A website's domain does not change
// here (the tracker finds it by its domain, and its stats were counted under it): the domain
// sent must be the site's own.
func (s *Server) PlausibleUpdateSite(ctx context.Context, req gen.PlausibleUpdateSiteRequestObject) (gen.PlausibleUpdateSiteResponseObject, error) {
	w, err := s.sitesSite(ctx, req.SiteId, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	if body := cmp.Or(req.JSONBody, req.FormdataBody); body != nil && body.Domain != nil {
		domain, err := website.NormaliseDomain(*body.Domain)
		if err != nil {
			return nil, sitesError(http.StatusBadRequest, "domain: "+err.Error())
		}
		if domain != w.Domain {
			return nil, sitesError(http.StatusBadRequest, "domain: a website's domain cannot be changed here; make a new site for the new domain")
		}
	}
	site, err := s.siteJSON(ctx, w)
	return gen.PlausibleUpdateSite200JSONResponse(site), err
}

// PlausibleDeleteSite answers DELETE /api/v1/sites/{site_id}: the website and all of its stats
// (owner only), as DELETE /api/v1/websites/{id}.
func (s *Server) PlausibleDeleteSite(ctx context.Context, req gen.PlausibleDeleteSiteRequestObject) (gen.PlausibleDeleteSiteResponseObject, error) {
	w, err := s.sitesSite(ctx, req.SiteId, repository.RoleOwner)
	if err != nil {
		return nil, err
	}
	if err := s.websites.Delete(ctx, userID(ctx), w.ID); err != nil {
		if errors.Is(err, repository.ErrNotFound) {
			return nil, sitesError(http.StatusNotFound, siteNotFound)
		}
		return nil, err
	}
	return gen.PlausibleDeleteSite200JSONResponse{SitesDeletedJSONResponse: gen.SitesDeletedJSONResponse{Deleted: true}}, nil
}

// PlausibleSharedLink answers PUT /api/v1/sites/shared-links: the site's link of that name,
// made when there is none. A link made here has a token derived from the service's key and
// the link's id (sharedLinkToken), so that a later call can tell its address again; a link
// made on the settings page has a random token whose address was shown once, and is refused.
func (s *Server) PlausibleSharedLink(ctx context.Context, req gen.PlausibleSharedLinkRequestObject) (gen.PlausibleSharedLinkResponseObject, error) {
	body := cmp.Or(req.JSONBody, req.FormdataBody)
	domain, err := siteIDOf(body.SiteId, req.Params.SiteId, "create a shared link")
	if err != nil {
		return nil, err
	}
	name := strings.TrimSpace(body.Name)
	if name == "" {
		return nil, sitesError(http.StatusBadRequest, "Parameter `name` is required to create a shared link")
	}
	if n := len([]rune(name)); n > 120 || !stats.ValidText(name) {
		return nil, sitesError(http.StatusBadRequest, "name: must be 1 to 120 characters of text")
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	key, err := s.repo.SigningKey(ctx, sharedLinkKeyPurpose)
	if err != nil {
		return nil, err
	}
	token := func(id int64) string { return sharedLinkToken(key, w.ID, id) }
	links, err := s.repo.SharedLinks(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	for _, l := range links {
		if l.Name != name {
			continue
		}
		if found, err := s.repo.SharedLinkByToken(ctx, w.ID, token(l.ID)); err == nil && found.ID == l.ID {
			return gen.PlausibleSharedLink200JSONResponse{Name: l.Name, Url: s.shareURL(ctx, w, token(l.ID))}, nil
		} else if err != nil && !errors.Is(err, repository.ErrNotFound) {
			return nil, err
		}
		return nil, sitesError(http.StatusBadRequest, "name: a shared link of this name was made on the settings page, whose address was shown once and is not kept: delete it or choose another name")
	}
	t, l, err := s.repo.CreateTokenedSharedLink(ctx, w.ID, userID(ctx), name, token)
	if err != nil {
		return nil, err
	}
	return gen.PlausibleSharedLink200JSONResponse{Name: l.Name, Url: s.shareURL(ctx, w, t)}, nil
}

const sharedLinkKeyPurpose = "shared-link"

// sharedLinkToken is the token of a link made through the Sites API: HMAC-SHA-256 under the
// service's key of the website and the link's id. Only its SHA-256 is stored, as for every
// link; someone who can read the signing keys' table can make it (as they can make the grant
// cookies), which is why the settings page's links stay random.
func sharedLinkToken(key []byte, websiteID, linkID int64) string {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "shared-link %d %d", websiteID, linkID)
	return base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

// shareURL is a shared link's address, as the settings page shows it.
func (s *Server) shareURL(ctx context.Context, w repository.Website, token string) string {
	base, _ := ctx.Value(shareBaseKey{}).(string)
	return base + "/share/" + url.PathEscape(w.Domain) + "?" + url.Values{"auth": {token}}.Encode()
}

type shareBaseKey struct{}

// PlausibleListGoals answers GET /api/v1/sites/goals.
func (s *Server) PlausibleListGoals(ctx context.Context, req gen.PlausibleListGoalsRequestObject) (gen.PlausibleListGoalsResponseObject, error) {
	p := req.Params
	w, err := s.sitesSite(ctx, p.SiteId, repository.RoleViewer)
	if err != nil {
		return nil, err
	}
	goals, err := s.repo.Goals(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	newestFirst(goals, func(g stats.Goal) int64 { return g.ID })
	page, meta, err := cursorPage(goals, func(g stats.Goal) string { return strconv.FormatInt(g.ID, 10) }, p.After, p.Before, p.Limit)
	if err != nil {
		return nil, err
	}
	out := gen.PlausibleListGoals200JSONResponse{Goals: []gen.PlausibleGoal{}, Meta: meta}
	for _, g := range page {
		out.Goals = append(out.Goals, plausibleGoalJSON(g, nil))
	}
	return out, nil
}

// plausibleGoalJSON is a goal as Plausible's Sites API shows it: `page` for a pageview goal.
func plausibleGoalJSON(g stats.Goal, domain *string) gen.PlausibleGoal {
	out := gen.PlausibleGoal{Id: g.ID, DisplayName: g.DisplayName, Domain: domain}
	if g.Kind == stats.GoalPageview {
		out.GoalType, out.PagePath = gen.PlausibleGoalGoalTypePage, &g.Page
	} else {
		out.GoalType, out.EventName = gen.PlausibleGoalGoalTypeEvent, &g.Event
	}
	return out
}

// goalFields are the goal rules' field names under the Sites API's names.
var goalFields = map[string]string{"kind": "goal_type", "page": "page_path", "event": "event_name"}

// PlausibleGoal answers PUT /api/v1/sites/goals: find or create, under the goals' rules.
func (s *Server) PlausibleGoal(ctx context.Context, req gen.PlausibleGoalRequestObject) (gen.PlausibleGoalResponseObject, error) {
	body := cmp.Or(req.JSONBody, req.FormdataBody)
	domain, err := siteIDOf(body.SiteId, req.Params.SiteId, "create a goal")
	if err != nil {
		return nil, err
	}
	in := stats.GoalInput{DisplayName: body.DisplayName}
	switch body.GoalType {
	case "event":
		in.Kind, in.Event = stats.GoalEvent, body.EventName
		if in.Event == nil {
			return nil, sitesError(http.StatusBadRequest, "Parameter `event_name` is required to create a goal")
		}
	case "page":
		in.Kind, in.Page = stats.GoalPageview, body.PagePath
		if in.Page == nil {
			return nil, sitesError(http.StatusBadRequest, "Parameter `page_path` is required to create a goal")
		}
	default:
		return nil, sitesError(http.StatusBadRequest, "goal_type: must be one of event, page")
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	g, errs, err := s.goals.FindOrCreateGoal(ctx, w.ID, in)
	if errors.Is(err, repository.ErrNotFound) {
		return nil, sitesError(http.StatusNotFound, siteNotFound)
	}
	if err != nil {
		return nil, err
	}
	if errs != nil {
		return nil, fieldRefusal(errs, goalFields)
	}
	return gen.PlausibleGoal200JSONResponse(plausibleGoalJSON(g, &w.Domain)), nil
}

// PlausibleDeleteGoal answers DELETE /api/v1/sites/goals/{goal_id}.
func (s *Server) PlausibleDeleteGoal(ctx context.Context, req gen.PlausibleDeleteGoalRequestObject) (gen.PlausibleDeleteGoalResponseObject, error) {
	var bodySite *string
	if body := cmp.Or(req.JSONBody, req.FormdataBody); body != nil {
		bodySite = body.SiteId
	}
	domain, err := siteIDOf(bodySite, req.Params.SiteId, "delete a goal")
	if err != nil {
		return nil, err
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseInt(req.GoalId, 10, 64)
	if err == nil && id > 0 {
		err = s.repo.DeleteGoal(ctx, w.ID, id)
	} else {
		err = repository.ErrNotFound
	}
	if errors.Is(err, repository.ErrNotFound) {
		return nil, sitesError(http.StatusNotFound, "Goal could not be found")
	}
	if err != nil {
		return nil, err
	}
	return gen.PlausibleDeleteGoal200JSONResponse{SitesDeletedJSONResponse: gen.SitesDeletedJSONResponse{Deleted: true}}, nil
}

// PlausibleListCustomProps answers GET /api/v1/sites/custom-props.
func (s *Server) PlausibleListCustomProps(ctx context.Context, req gen.PlausibleListCustomPropsRequestObject) (gen.PlausibleListCustomPropsResponseObject, error) {
	w, err := s.sitesSite(ctx, req.Params.SiteId, repository.RoleViewer)
	if err != nil {
		return nil, err
	}
	props, err := s.repo.CustomProps(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	out := gen.PlausibleListCustomProps200JSONResponse{CustomProperties: []struct {
		Property string `json:"property"`
	}{}}
	for _, p := range props {
		out.CustomProperties = append(out.CustomProperties, struct {
			Property string `json:"property"`
		}{p})
	}
	return out, nil
}

// maxPropertyKey is the longest key collection keeps (docs/properties.md).
const maxPropertyKey = 300

// PlausibleCustomProp answers PUT /api/v1/sites/custom-props.
func (s *Server) PlausibleCustomProp(ctx context.Context, req gen.PlausibleCustomPropRequestObject) (gen.PlausibleCustomPropResponseObject, error) {
	body := cmp.Or(req.JSONBody, req.FormdataBody)
	domain, err := siteIDOf(body.SiteId, req.Params.SiteId, "create a custom property")
	if err != nil {
		return nil, err
	}
	property := strings.TrimSpace(body.Property)
	if property == "" {
		return nil, sitesError(http.StatusBadRequest, "Parameter `property` is required to create a custom property")
	}
	if len([]rune(property)) > maxPropertyKey || !stats.ValidText(property) {
		return nil, sitesError(http.StatusBadRequest, fmt.Sprintf("property: must be 1 to %d characters of text", maxPropertyKey))
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	if err := s.repo.DeclareCustomProp(ctx, w.ID, property); err != nil {
		return nil, err
	}
	return gen.PlausibleCustomProp200JSONResponse{Created: true}, nil
}

// PlausibleDeleteCustomProp answers DELETE /api/v1/sites/custom-props/{property}.
func (s *Server) PlausibleDeleteCustomProp(ctx context.Context, req gen.PlausibleDeleteCustomPropRequestObject) (gen.PlausibleDeleteCustomPropResponseObject, error) {
	var bodySite *string
	if body := cmp.Or(req.JSONBody, req.FormdataBody); body != nil {
		bodySite = body.SiteId
	}
	domain, err := siteIDOf(bodySite, req.Params.SiteId, "delete a custom property")
	if err != nil {
		return nil, err
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleEditor)
	if err != nil {
		return nil, err
	}
	if err := s.repo.RemoveCustomProp(ctx, w.ID, req.Property); err != nil {
		return nil, err
	}
	return gen.PlausibleDeleteCustomProp200JSONResponse{SitesDeletedJSONResponse: gen.SitesDeletedJSONResponse{Deleted: true}}, nil
}

// guest is a member (accepted) or a pending invitation (invited) of a website.
type guest struct {
	key string // the cursor's: "m" and the user id, "i" and the invitation's id
	gen.PlausibleGuest
}

func (s *Server) guests(ctx context.Context, websiteID int64) ([]guest, error) {
	members, err := s.repo.Members(ctx, websiteID)
	if err != nil {
		return nil, err
	}
	invitations, err := s.repo.Invitations(ctx, websiteID)
	if err != nil {
		return nil, err
	}
	// Newest first, as Plausible lists them: the invitations (newest first already), then the
	// members by the time they joined.
	out := make([]guest, 0, len(members)+len(invitations))
	for _, inv := range invitations {
		out = append(out, guest{"i" + strconv.FormatInt(inv.ID, 10), gen.PlausibleGuest{Email: inv.Email, Role: gen.PlausibleGuestRole(inv.Role), Status: gen.PlausibleGuestStatusInvited}})
	}
	newestFirst(members, func(m repository.WebsiteMember) int64 { return m.CreatedAt.UnixNano() })
	for _, m := range members {
		out = append(out, guest{"m" + strconv.FormatInt(m.UserID, 10), gen.PlausibleGuest{Email: m.Email, Role: gen.PlausibleGuestRole(m.Role), Status: gen.PlausibleGuestStatusAccepted}})
	}
	return out, nil
}

// PlausibleListGuests answers GET /api/v1/sites/guests.
func (s *Server) PlausibleListGuests(ctx context.Context, req gen.PlausibleListGuestsRequestObject) (gen.PlausibleListGuestsResponseObject, error) {
	p := req.Params
	w, err := s.sitesSite(ctx, p.SiteId, repository.RoleViewer)
	if err != nil {
		return nil, err
	}
	all, err := s.guests(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	page, meta, err := cursorPage(all, func(g guest) string { return g.key }, p.After, p.Before, p.Limit)
	if err != nil {
		return nil, err
	}
	out := gen.PlausibleListGuests200JSONResponse{Guests: []gen.PlausibleGuest{}, Meta: meta}
	for _, g := range page {
		out.Guests = append(out.Guests, g.PlausibleGuest)
	}
	return out, nil
}

// PlausibleGuest answers PUT /api/v1/sites/guests: the member or invitation of the address,
// else an invitation as the members page makes it (admin or more).
func (s *Server) PlausibleGuest(ctx context.Context, req gen.PlausibleGuestRequestObject) (gen.PlausibleGuestResponseObject, error) {
	body := cmp.Or(req.JSONBody, req.FormdataBody)
	domain, err := siteIDOf(body.SiteId, req.Params.SiteId, "create guest")
	if err != nil {
		return nil, err
	}
	role := repository.Role(body.Role)
	if role != repository.RoleViewer && role != repository.RoleEditor {
		return nil, sitesError(http.StatusBadRequest, "Parameter `role` is required to create guest. Possible values: `viewer` or `editor`")
	}
	email, err := account.NormaliseEmail(body.Email)
	if err != nil {
		return nil, sitesError(http.StatusBadRequest, "email: "+err.Error())
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleAdmin)
	if err != nil {
		return nil, err
	}
	all, err := s.guests(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	for _, g := range all {
		if strings.EqualFold(g.Email, email) {
			return gen.PlausibleGuest200JSONResponse(g.PlausibleGuest), nil
		}
	}
	if _, err := s.repo.InviteMember(ctx, w.ID, userID(ctx), email, role, account.InviteTTL); err != nil {
		return nil, err
	}
	return gen.PlausibleGuest200JSONResponse{Email: email, Role: gen.PlausibleGuestRole(role), Status: gen.PlausibleGuestStatusInvited}, nil
}

// PlausibleDeleteGuest answers DELETE /api/v1/sites/guests/{email}: the member removed, the
// address's pending invitations voided (admin or more); an address that is neither is a
// success, as Plausible answers it. The owner is no guest and stays.
func (s *Server) PlausibleDeleteGuest(ctx context.Context, req gen.PlausibleDeleteGuestRequestObject) (gen.PlausibleDeleteGuestResponseObject, error) {
	var bodySite *string
	if body := cmp.Or(req.JSONBody, req.FormdataBody); body != nil {
		bodySite = body.SiteId
	}
	domain, err := siteIDOf(bodySite, req.Params.SiteId, "delete a guest")
	if err != nil {
		return nil, err
	}
	w, err := s.sitesSite(ctx, domain, repository.RoleAdmin)
	if err != nil {
		return nil, err
	}
	members, err := s.repo.Members(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	for _, m := range members {
		if strings.EqualFold(m.Email, req.Email) {
			if err := s.repo.RemoveMember(ctx, w.ID, m.UserID); err != nil && !errors.Is(err, repository.ErrNotMember) {
				return nil, err
			}
		}
	}
	invitations, err := s.repo.Invitations(ctx, w.ID)
	if err != nil {
		return nil, err
	}
	for _, inv := range invitations {
		if strings.EqualFold(inv.Email, req.Email) {
			if err := s.repo.RevokeInvitation(ctx, w.ID, inv.ID); err != nil && !errors.Is(err, repository.ErrNotFound) {
				return nil, err
			}
		}
	}
	return gen.PlausibleDeleteGuest200JSONResponse{SitesDeletedJSONResponse: gen.SitesDeletedJSONResponse{Deleted: true}}, nil
}

// withShareBase hands the handlers the base of a shared link's address (web.Absolute: the
// settings page's too).
func (s *Server) withShareBase(ctx context.Context, req *http.Request) context.Context {
	return context.WithValue(ctx, shareBaseKey{}, s.links.Base(req, web.Absolute))
}
