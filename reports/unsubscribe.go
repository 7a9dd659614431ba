package reports

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
	"github.com/analytics-service/analytics/website"
)

// UnsubscribePath is where the unsubscribe handler is mounted; the token follows it.
const UnsubscribePath = "/unsubscribe/"

// unsubscribePurpose names the signing key of unsubscribe tokens (repository.SigningKey).
const unsubscribePurpose = "unsubscribe"

// maxTokenWebsites bounds the websites one token may name (one message's websites).
const maxTokenWebsites = 1000

// token names an owner and the websites whose reports a link stops: one website for the link
// beside each website, all of a message's websites for its List-Unsubscribe header (a mail
// client's one-click means "no more of these messages").
type token struct {
	UserID     int64
	WebsiteIDs []int64
}

// signToken writes "USER.ID-ID-ID.MAC" (signPayload).
func signToken(key []byte, t token) string {
	ids := make([]string, len(t.WebsiteIDs))
	for i, id := range t.WebsiteIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return signPayload(key, unsubscribePurpose, strconv.FormatInt(t.UserID, 10)+"."+strings.Join(ids, "-"))
}

// signPayload writes "PAYLOAD.MAC", MAC = HMAC-SHA256 over the purpose and the payload with the
// service's unsubscribe key: a link of the e-mail (a report's unsubscribe, an alert's confirm
// or unsubscribe, each its purpose) that needs no state. Without the key a token cannot be
// made or altered, nor one of a purpose passed for another.
func signPayload(key []byte, purpose, payload string) string {
	return payload + "." + base64.RawURLEncoding.EncodeToString(tokenMAC(key, purpose, payload))
}

func tokenMAC(key []byte, purpose, payload string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(purpose + ":" + payload))
	return m.Sum(nil)
}

// openPayload checks a token of signPayload's for purpose (at most maxLen bytes) and returns
// its payload; false for anything not made by signPayload with this key and purpose.
func openPayload(key []byte, purpose, s string, maxLen int) (string, bool) {
	if len(s) > maxLen {
		return "", false
	}
	cut := strings.LastIndexByte(s, '.')
	if cut < 0 {
		return "", false
	}
	payload := s[:cut]
	mac, err := base64.RawURLEncoding.Strict().DecodeString(s[cut+1:])
	if err != nil || !hmac.Equal(mac, tokenMAC(key, purpose, payload)) {
		return "", false
	}
	return payload, true
}

// parseToken checks a token's signature first, then reads it; false for anything not made by
// signToken with this key.
func parseToken(key []byte, s string) (token, bool) {
	payload, ok := openPayload(key, unsubscribePurpose, s, 64+maxTokenWebsites*20)
	if !ok {
		return token{}, false
	}
	user, ids, found := strings.Cut(payload, ".")
	if !found {
		return token{}, false
	}
	var t token
	var err error
	if t.UserID, err = strconv.ParseInt(user, 10, 64); err != nil {
		return token{}, false
	}
	for _, id := range strings.Split(ids, "-") {
		n, err := strconv.ParseInt(id, 10, 64)
		if err != nil {
			return token{}, false
		}
		t.WebsiteIDs = append(t.WebsiteIDs, n)
	}
	return t, len(t.WebsiteIDs) <= maxTokenWebsites
}

// The page uses the stats pages' stylesheet (served at /static/ by the service, package app).
var unsubscribePage = template.Must(template.New("unsubscribe.html").
	Funcs(template.FuncMap{"asset": web.AssetURL}).ParseFS(templateFiles, "templates/unsubscribe.html"))

// Unsubscribe serves the links of the reports: GET shows which websites' reports the link
// stops and a button; POST (the button, or a mail client's RFC 8058 one-click) sets their
// `email` to 0 through the website rules.
type Unsubscribe struct {
	Repo     *repository.Repository
	Websites *website.Service
	// Links says where the page's links and assets begin (under PUBLIC_URL when it is set).
	Links web.Links
	Log   *slog.Logger
}

// pageData is what the unsubscribe page shows.
type pageData struct {
	Base    string // starts every link and asset (web.Links)
	Status  int
	Title   string
	Message string
	Domains []string
	Button  bool // the form that posts to this same address
	Done    bool
	// Action is the button's words, Note the line under it and under a done page's message.
	Action, Note string
}

func (u *Unsubscribe) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	linkPageHeaders(h)

	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		h.Set("Allow", "GET, HEAD, POST")
		u.render(w, r, pageData{Status: http.StatusMethodNotAllowed, Title: "Not allowed",
			Message: "This link is opened in a browser, or followed by your mail program."})
		return
	}
	sites, t, err := u.resolve(r.Context(), strings.TrimPrefix(r.URL.Path, UnsubscribePath))
	if errors.Is(err, repository.ErrNotFound) {
		u.render(w, r, pageData{Status: http.StatusNotFound, Title: "Link not valid",
			Message: "This unsubscribe link is not valid, or its website no longer exists. " +
				"Copy the whole link from the e-mail, or switch reports off in the website's settings."})
		return
	}
	if err != nil {
		u.failed(w, r, err)
		return
	}
	data := pageData{Status: http.StatusOK}
	for _, s := range sites {
		data.Domains = append(data.Domains, s.Domain)
	}
	// No CSRF token: the signed address itself is the authority, and it is only ever given to
	// the owner (in their report). A page that tricks a browser into posting it must already
	// know it, and then could post it itself: a CSRF token would protect nothing more.
	if r.Method == http.MethodPost {
		if err := u.switchOff(r.Context(), t.UserID, sites); err != nil {
			u.failed(w, r, err)
			return
		}
		data.Title, data.Done = "Unsubscribed", true
		data.Message = "You will get no more e-mail reports for:"
		u.render(w, r, data)
		return
	}
	data.Title = "Stop e-mail reports"
	data.Message = "Stop the periodic e-mail reports for:"
	if allOff(sites) {
		data.Title, data.Done = "Already unsubscribed", true
		data.Message = "E-mail reports are already off for:"
	} else {
		data.Button = true
	}
	u.render(w, r, data)
}

// resolve checks the token and reads the websites it names; ErrNotFound for a bad token or a
// website that is gone or no longer the owner's.
func (u *Unsubscribe) resolve(ctx context.Context, raw string) ([]repository.Website, token, error) {
	key, err := u.Repo.SigningKey(ctx, unsubscribePurpose)
	if err != nil {
		return nil, token{}, err
	}
	t, ok := parseToken(key, raw)
	if !ok {
		return nil, token{}, repository.ErrNotFound
	}
	sites := make([]repository.Website, 0, len(t.WebsiteIDs))
	for _, id := range t.WebsiteIDs {
		s, err := u.Repo.Website(ctx, t.UserID, id)
		if errors.Is(err, repository.ErrNotFound) && len(t.WebsiteIDs) > 1 {
			continue // one of several deleted meanwhile: the others still count
		}
		if err != nil {
			return nil, token{}, err
		}
		sites = append(sites, s)
	}
	if len(sites) == 0 {
		return nil, token{}, repository.ErrNotFound
	}
	return sites, t, nil
}

// switchOff sets email 0 through the website rules (which also refresh this node's ingest
// cache). Doing it twice is harmless, so a retried POST is too.
func (u *Unsubscribe) switchOff(ctx context.Context, userID int64, sites []repository.Website) error {
	zero := 0
	for _, s := range sites {
		_, fields, err := u.Websites.Update(ctx, userID, s.ID, website.Settings{Email: &zero})
		if errors.Is(err, repository.ErrNotFound) {
			continue // deleted meanwhile: it sends nothing either
		}
		if err != nil {
			return err
		}
		if len(fields) > 0 {
			return errors.New("unsubscribe: website rules refused email=0")
		}
	}
	return nil
}

func allOff(sites []repository.Website) bool {
	for _, s := range sites {
		if s.Email != 0 {
			return false
		}
	}
	return true
}

func (u *Unsubscribe) failed(w http.ResponseWriter, r *http.Request, err error) {
	u.Log.Error("unsubscribe failed", "error", err)
	u.render(w, r, pageData{Status: http.StatusServiceUnavailable, Title: "Please try again",
		Message: "Your request could not be completed just now. Nothing was changed; please try again in a minute."})
}

func (u *Unsubscribe) render(w http.ResponseWriter, r *http.Request, data pageData) {
	data.Action, data.Note = "Stop e-mail reports", "You can switch them on again in each website's settings."
	renderLinkPage(w, r, u.Links, u.Log, data)
}

// renderLinkPage writes the page of a link of the e-mail (an unsubscribe, a confirmation).
func renderLinkPage(w http.ResponseWriter, r *http.Request, links web.Links, log *slog.Logger, data pageData) {
	data.Base = links.Base(r, web.Page)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(data.Status)
	if err := unsubscribePage.Execute(w, data); err != nil {
		log.Error("render the page of an e-mail's link", "error", err)
	}
}

// linkPageHeaders are the headers of every page of a link of the e-mail: no framing, and no
// Referer to another site (the address holds the token).
func linkPageHeaders(h http.Header) {
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
}
