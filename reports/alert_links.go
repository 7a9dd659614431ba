package reports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/web"
)

// AlertLinks serves the links of the traffic alerts' messages (AlertsPath): confirm/TOKEN,
// the link of an address's confirmation, and unsubscribe/TOKEN, an alert's. GET shows what the
// link does and a button; POST (the button, or a mail client's RFC 8058 one-click for an
// unsubscription) does it. Neither needs a session: the signed address is the authority, and
// it was only sent to the address it names.
type AlertLinks struct {
	Repo  *repository.Repository
	Links web.Links
	Now   func() time.Time // nil: time.Now
	Log   *slog.Logger
}

func (l *AlertLinks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	linkPageHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead && r.Method != http.MethodPost {
		w.Header().Set("Allow", "GET, HEAD, POST")
		l.render(w, r, pageData{Status: http.StatusMethodNotAllowed, Title: "Not allowed",
			Message: "This link is opened in a browser, or followed by your mail program."})
		return
	}
	action, raw, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, AlertsPath), "/")
	var err error
	switch action {
	case "confirm":
		err = l.confirm(w, r, raw)
	case "unsubscribe":
		err = l.unsubscribe(w, r, raw)
	default:
		err = repository.ErrNotFound
	}
	if errors.Is(err, repository.ErrNotFound) {
		l.render(w, r, pageData{Status: http.StatusNotFound, Title: "Link not valid",
			Message: "This link is not valid, has expired, or its address is no longer on the alerts' list. " +
				"Copy the whole link from the e-mail, or ask the website's owner to add the address again."})
		return
	}
	if err != nil {
		l.Log.Error("alert link failed", "error", err)
		l.render(w, r, pageData{Status: http.StatusServiceUnavailable, Title: "Please try again",
			Message: "Your request could not be completed just now. Nothing was changed; please try again in a minute."})
	}
}

// tokenAddress is the address of a user's alerts of a website a link names.
type tokenAddress struct {
	site   repository.Website
	userID int64
	email  string
	rest   string // what the payload holds past the address (a confirmation's expiry)
}

// address reads a token of purpose: the address of a user's alerts of a website it names,
// which must still be listed; ErrNotFound for any other.
func (l *AlertLinks) address(ctx context.Context, purpose, raw string) (tokenAddress, error) {
	var a tokenAddress
	key, err := l.Repo.SigningKey(ctx, unsubscribePurpose)
	if err != nil {
		return a, err
	}
	payload, ok := openPayload(key, purpose, raw, maxAlertTokenBytes)
	if !ok {
		return a, repository.ErrNotFound
	}
	if purpose == confirmPurpose {
		cut := strings.LastIndexByte(payload, '.')
		if cut < 0 {
			return a, repository.ErrNotFound
		}
		payload, a.rest = payload[:cut], payload[cut+1:]
	}
	var websiteID int64
	if websiteID, a.userID, a.email, ok = readAlertPayload(payload); !ok {
		return a, repository.ErrNotFound
	}
	// Any role on the website: a member demoted to viewer still confirms or stops their
	// address (they get no alerts meanwhile).
	if a.site, err = l.Repo.WebsiteRole(ctx, a.userID, websiteID); err != nil {
		return a, err
	}
	if _, err = l.Repo.AlertAddressOf(ctx, websiteID, a.userID, a.email); errors.Is(err, repository.ErrNotFound) {
		return a, errAddressGone
	}
	return a, err
}

// errAddressGone: a link made for an address that is no longer on the alerts' list.
var errAddressGone = fmt.Errorf("alert address removed: %w", repository.ErrNotFound)

func (l *AlertLinks) confirm(w http.ResponseWriter, r *http.Request, raw string) error {
	a, err := l.address(r.Context(), confirmPurpose, raw)
	if err != nil {
		return err
	}
	until, err := strconv.ParseInt(a.rest, 10, 64)
	if err != nil || !l.now().Before(time.Unix(until, 0)) {
		return repository.ErrNotFound
	}
	data := pageData{Status: http.StatusOK, Domains: []string{a.site.Domain}}
	if r.Method == http.MethodPost {
		if err := l.Repo.ConfirmAlertAddress(r.Context(), a.site.ID, a.userID, a.email); err != nil {
			return err
		}
		data.Title, data.Done = "Alerts confirmed", true
		data.Message = "Traffic alerts will come to " + a.email + " for:"
		data.Note = "Every alert has a link to stop them."
	} else {
		data.Title, data.Button, data.Action = "Confirm traffic alerts", true, "Confirm the alerts"
		data.Message = "Send traffic alerts (spikes and drops of visitors) to " + a.email + " for:"
	}
	l.render(w, r, data)
	return nil
}

func (l *AlertLinks) unsubscribe(w http.ResponseWriter, r *http.Request, raw string) error {
	a, err := l.address(r.Context(), alertUnsubscribe, raw)
	if errors.Is(err, errAddressGone) && r.Method == http.MethodPost {
		// Removed already (a second one-click, say): the request is done.
		l.render(w, r, pageData{Status: http.StatusOK, Title: "Unsubscribed", Done: true,
			Message: "This address gets no traffic alerts of that website."})
		return nil
	}
	if err != nil {
		return err
	}
	data := pageData{Status: http.StatusOK, Domains: []string{a.site.Domain}}
	if r.Method == http.MethodPost {
		if err := l.Repo.RemoveAlertAddress(r.Context(), a.site.ID, a.userID, a.email); err != nil {
			return err
		}
		data.Title, data.Done = "Unsubscribed", true
		data.Message = "No more traffic alerts will come to " + a.email + " for:"
		data.Note = "The website's owner can add the address again; it is then confirmed anew."
	} else {
		data.Title, data.Button, data.Action = "Stop traffic alerts", true, "Stop the alerts"
		data.Message = "Stop the traffic alerts to " + a.email + " for:"
	}
	l.render(w, r, data)
	return nil
}

func (l *AlertLinks) now() time.Time {
	if l.Now == nil {
		return time.Now()
	}
	return l.Now()
}

func (l *AlertLinks) render(w http.ResponseWriter, r *http.Request, data pageData) {
	renderLinkPage(w, r, l.Links, l.Log, data)
}
