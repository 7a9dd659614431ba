package pages

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/importer/goatcounter"
	"github.com/analytics-service/analytics/importer/plausible"
	"github.com/analytics-service/analytics/repository"
)

// Limits of an uploaded export (docs/imports.md); the export's own limits (a Plausible zip's
// 64 files, 1 GiB uncompressed either way) are the importers'.
const (
	maxImportUpload = 50 << 20
	// maxImportBody leaves room for the form's token and the multipart framing.
	maxImportBody = maxImportUpload + 64<<10
	maxCSRFPart   = 1 << 10
	importTimeout = 15 * time.Minute
)

// importPage is the data of import.html: what an import did, whichever export it read.
type importPage struct {
	Website     repository.Website
	Source      string // "Plausible", "GoatCounter"
	Held        string // what the file held: "10 files, 142,350 rows"
	Days        int
	First, Last time.Time
	Visitors    int64
	Visits      int64
	Pageviews   int64
	Counters    int64
	LeftOut     []importer.Reason
	// Changed and Other are lines of what was changed to fit and what else was left out.
	Changed, Other          []string
	ImportedDays, Collected string // the days left out, as ranges
	ImportedN, CollectedN   int
}

// refused sets the days an import left out.
func (page *importPage) refused(held []repository.HeldDay) {
	var imported, collected []time.Time
	for _, h := range held {
		if h.Source != "" {
			imported = append(imported, h.Day)
		} else {
			collected = append(collected, h.Day)
		}
	}
	page.ImportedDays, page.ImportedN = importer.DayRanges(imported), len(imported)
	page.Collected, page.CollectedN = importer.DayRanges(collected), len(collected)
}

// exportUpload is one kind of export the settings page takes: how its file is named, and how
// it is imported, by the command's code.
type exportUpload struct {
	what    string // "the zip file of a Plausible export"
	command string // the command that takes larger files
	pattern string // of the temporary file
	run     func(p *Pages, r *http.Request, site repository.Website, file *os.File, size int64) (importPage, error)
}

var (
	plausibleUpload = exportUpload{what: "the zip file of a Plausible export", command: "analytics import plausible",
		pattern: "plausible-export-*.zip", run: (*Pages).runPlausible}
	goatcounterUpload = exportUpload{what: "a GoatCounter CSV export (.csv or .csv.gz)", command: "analytics import goatcounter",
		pattern: "goatcounter-export-*.csv", run: (*Pages).runGoatCounter}
)

// badExport tells a refused export from a failure, and says why it was refused.
func badExport(err error) (string, bool) {
	var bad *plausible.BadExport
	var badCSV *goatcounter.BadExport
	switch {
	case errors.As(err, &bad):
		return bad.Error(), true
	case errors.As(err, &badCSV):
		return badCSV.Error(), true
	}
	return "", false
}

func (p *Pages) runPlausible(r *http.Request, site repository.Website, file *os.File, size int64) (importPage, error) {
	sum, err := plausible.Import(r.Context(), p.base.Repo, plausible.Website{ID: site.ID, Domain: site.Domain}, file, size, plausible.Options{})
	if err != nil {
		return importPage{}, err
	}
	page := importPage{Website: site, Source: "Plausible", Held: fmt.Sprintf("%d files, %s rows", sum.Files, formatCount(sum.Rows)),
		Days: sum.Days, First: sum.First, Last: sum.Last, Visitors: sum.Visitors, Visits: sum.Visits, Pageviews: sum.Pageviews,
		Counters: sum.Counters, LeftOut: sum.LeftOut, Changed: sum.Transformed, Other: sum.UnusedColumns}
	for _, f := range sum.OtherFiles {
		page.Other = append(page.Other, "the file "+f+" (not a Plausible table)")
	}
	page.refused(sum.Refused)
	return page, nil
}

func (p *Pages) runGoatCounter(r *http.Request, site repository.Website, file *os.File, size int64) (importPage, error) {
	gc := goatcounter.Website{ID: site.ID, Domain: site.Domain, Zone: site.Zone(p.base.Location)}
	sum, err := goatcounter.Import(r.Context(), p.base.Repo, gc, file, size, goatcounter.Options{})
	if err != nil {
		return importPage{}, err
	}
	page := importPage{Website: site, Source: "GoatCounter", Held: formatCount(sum.Rows) + " rows (hits)",
		Days: sum.Days, First: sum.First, Last: sum.Last, Visitors: sum.Visitors, Visits: sum.Visits, Pageviews: sum.Pageviews,
		Counters: sum.Counters, LeftOut: sum.LeftOut}
	page.refused(sum.Refused)
	return page, nil
}

// importPlausible and importGoatCounter take the upload of an export for one of the owner's
// websites.
func (p *Pages) importPlausible(w http.ResponseWriter, r *http.Request) {
	p.importUpload(w, r, plausibleUpload)
}
func (p *Pages) importGoatCounter(w http.ResponseWriter, r *http.Request) {
	p.importUpload(w, r, goatcounterUpload)
}

// importUpload imports an uploaded export with the command's code, streamed to a temporary
// file first (a zip is read from its end, a CSV twice), at most 50 MiB.
func (p *Pages) importUpload(w http.ResponseWriter, r *http.Request, kind exportUpload) {
	user := p.requireUser(w, r)
	if user == nil {
		return
	}
	// The server's read and write timeouts suit pages, not a 50 MiB upload on a slow link
	// followed by an import: this request gets importTimeout for both (an error only means the
	// writer cannot move them, as in tests).
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(importTimeout))
	_ = rc.SetWriteDeadline(time.Now().Add(importTimeout))
	r.Body = http.MaxBytesReader(w, r.Body, maxImportBody)
	parts, ok := p.importForm(w, r)
	if !ok {
		return
	}
	site, ok := p.openSite(w, r, user, repository.RoleEditor)
	if !ok {
		return
	}
	// The slot is taken before the upload is received, the slow part: a second import of the
	// user's, started meanwhile, is refused at once rather than after its 50 MiB.
	release, refusal := takeImportSlot(p, user.ID)
	switch refusal {
	case userBusy:
		p.refuseImport(w, r, http.StatusConflict, site,
			"Another import of yours is running. Wait until it has finished (its page shows the summary), then try again.")
		return
	}
	defer release()
	file, size, ok := p.receiveExport(w, r, parts, site, kind)
	if !ok {
		return
	}
	defer func() { _ = file.Close(); _ = os.Remove(file.Name()) }()
	page, err := kind.run(p, r, site, file, size)
	if why, bad := badExport(err); bad {
		p.refuseImport(w, r, http.StatusUnprocessableEntity, site, "The file was not imported, and nothing was written: "+why+".")
		return
	}
	switch {
	case errors.Is(err, repository.ErrNotFound):
		p.notFound(w, r) // deleted meanwhile
		return
	case err != nil:
		p.serverError(w, r, err)
		return
	}
	p.render(w, r, http.StatusOK, "import.html", "Import into "+site.Domain, page)
}

// importForm reads the form's first part, its CSRF token, and checks it: the form puts the
// token before the file, so no file is read for a forged form. The reader is left at the next
// part.
func (p *Pages) importForm(w http.ResponseWriter, r *http.Request) (*multipart.Reader, bool) {
	mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var parts *multipart.Reader
	if err == nil && mediaType == "multipart/form-data" {
		parts, err = r.MultipartReader()
	}
	if err != nil || parts == nil {
		p.fail(w, r, http.StatusBadRequest, "Form unreadable", "The form sent could not be read. Go back and try again.")
		return nil, false
	}
	token := ""
	if part, err := parts.NextPart(); err == nil && part.FormName() == "csrf" {
		b, _ := io.ReadAll(io.LimitReader(part, maxCSRFPart))
		token = string(b)
	}
	r.PostForm = url.Values{"csrf": {token}}
	if !p.base.ValidCSRF(r) {
		p.fail(w, r, http.StatusForbidden, "Form expired",
			"This form has expired or was not sent from this site. Go back, reload the page and try again.")
		return nil, false
	}
	return parts, true
}

// receiveExport copies the form's file part to a temporary file, refusing one past
// maxImportUpload. The caller removes the file.
func (p *Pages) receiveExport(w http.ResponseWriter, r *http.Request, parts *multipart.Reader, site repository.Website, kind exportUpload) (*os.File, int64, bool) {
	part, err := parts.NextPart()
	if err != nil || part.FormName() != "export" {
		p.refuseImport(w, r, http.StatusBadRequest, site, "No file was sent: choose "+kind.what+".")
		return nil, 0, false
	}
	file, err := os.CreateTemp("", kind.pattern)
	if err != nil {
		p.serverError(w, r, err)
		return nil, 0, false
	}
	size, err := io.Copy(file, io.LimitReader(part, maxImportUpload+1))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge) || size > maxImportUpload:
		err = errors.New("too large")
		p.refuseImport(w, r, http.StatusRequestEntityTooLarge, site, "The file is larger than 50 MiB: import it with the command `"+kind.command+"` instead.")
	case err != nil:
		p.refuseImport(w, r, http.StatusBadRequest, site, "The upload was interrupted. Try again.")
	case size == 0:
		err = errors.New("empty")
		p.refuseImport(w, r, http.StatusBadRequest, site, "No file was sent: choose "+kind.what+".")
	}
	if err != nil {
		_ = file.Close()
		_ = os.Remove(file.Name())
		return nil, 0, false
	}
	return file, size, true
}

// refuseImport is the readable page of a refused upload, with a way back to the form.
func (p *Pages) refuseImport(w http.ResponseWriter, r *http.Request, status int, site repository.Website, message string) {
	p.render(w, r, status, "error.html", "Import refused", errorPage{
		Status: status, Heading: "Import refused", Message: message,
		Back: "/websites/" + strconv.FormatInt(site.ID, 10) + "/edit", BackLabel: "Back to " + site.Domain,
	})
}

// importGate holds the imports running on one Pages (tests run several in one process): at
// most one per user. It is per process; an import is one request,
// so a user can have one running on each node at most.
type importGate struct {
	mu    sync.Mutex
	users map[int64]bool
}

var importGates sync.Map // *Pages -> *importGate

// importRefusal says why no slot was given.
type importRefusal int

const (
	slotTaken importRefusal = iota // the import may run
	userBusy                       // an import of the user's runs
)

// takeImportSlot takes the user's import slot; release gives it back.
func takeImportSlot(p *Pages, userID int64) (release func(), why importRefusal) {
	g, _ := importGates.LoadOrStore(p, &importGate{users: map[int64]bool{}})
	gate := g.(*importGate)
	gate.mu.Lock()
	defer gate.mu.Unlock()
	if gate.users[userID] {
		return nil, userBusy
	}
	gate.users[userID] = true
	return func() {
		gate.mu.Lock()
		defer gate.mu.Unlock()
		delete(gate.users, userID)
	}, slotTaken
}
