// Package plausible imports a Plausible CSV export (docs/imports.md): the zip of
// imported_*.csv files that Plausible's own exporter writes (ClickHouse CSVWithNames, one file
// per table, columns matched by their header name) into a website's daily counters.
package plausible

import (
	"archive/zip"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/analytics-service/analytics/importer"
	"github.com/analytics-service/analytics/sources"
	"github.com/analytics-service/analytics/stats"
)

// Limits bound what an export may hold; an export past one is refused whole.
type Limits struct {
	Files        int   // files in the zip
	Uncompressed int64 // bytes of all files, uncompressed
}

// DefaultLimits are the contract's: 64 files, 1 GiB uncompressed.
var DefaultLimits = Limits{Files: 64, Uncompressed: 1 << 30}

// table is one kind of file of the export: the columns it must have and how a row becomes
// counters.
type table struct {
	name    string   // as in the file name: imported_<name>[_YYYYMMDD_YYYYMMDD].csv
	columns []string // read, besides date; the others are left out
	row     func(r *row)
}

// The files of an export, in the order they are read. Visit-level numbers are counted by
// visits (the contract's "every visit"), pages by pageviews, entry and exit pages by
// entrances and exits, events by their count.
var tables = []table{
	{"visitors", []string{"visitors", "pageviews", "bounces", "visits", "visit_duration"}, visitorsRow},
	{"sources", []string{"source", "visits"}, sourcesRow},
	{"pages", []string{"page", "pageviews"}, func(r *row) { r.add(stats.Page, importer.PageValue(r.text("page")), r.count("pageviews")) }},
	{"entry_pages", []string{"entry_page", "entrances"}, func(r *row) {
		r.add(stats.LandingPage, importer.PageValue(r.text("entry_page")), r.count("entrances"))
	}},
	{"exit_pages", []string{"exit_page", "exits"}, func(r *row) { r.add(stats.ExitPage, importer.PageValue(r.text("exit_page")), r.count("exits")) }},
	{"custom_events", []string{"name", "events"}, eventsRow},
	{"locations", []string{"country", "visits"}, locationsRow},
	{"devices", []string{"device", "visits"}, devicesRow},
	{"browsers", []string{"browser", "visits"}, func(r *row) { r.add(stats.Browser, browserName(r.text("browser")), r.count("visits")) }},
	{"operating_systems", []string{"operating_system", "visits"}, func(r *row) {
		r.add(stats.OperatingSystem, systemName(r.text("operating_system")), r.count("visits"))
	}},
}

// optionalColumns are read when present (older exports lack them), or summed over: a
// browser's versions count under the browser.
var optionalColumns = map[string][]string{
	"sources":           {"referrer", "utm_source", "utm_medium", "utm_campaign", "utm_term", "utm_content", "channel"},
	"browsers":          {"browser_version"},
	"operating_systems": {"operating_system_version"},
}

func visitorsRow(r *row) {
	day := r.dayValue()
	visits := r.count("visits")
	r.add(stats.Visitor, day, r.count("visitors"))
	r.add(stats.Visit, day, visits)
	r.add(stats.Pageview, day, r.count("pageviews"))
	r.add(stats.Bounce, day, r.count("bounces"))
	r.add(stats.VisitSeconds, day, r.count("visit_duration"))
	// Plausible knows the bounce and duration of every visit it counted.
	r.add(stats.TimedVisit, day, visits)
}

func sourcesRow(r *row) {
	visits := r.count("visits")
	r.add(stats.Referrer, r.referrerValue(r.text("referrer"), r.text("source")), visits)
	if campaign := r.text("utm_campaign"); campaign != "" {
		r.add(stats.Campaign, stats.Truncate(campaign, importer.MaxValueLength), visits)
	}
	// source, channel and the other tags as the collector names them (package sources).
	source := r.text("source")
	if source == "Direct / None" {
		source = ""
	}
	if known := sources.KnownName(source); known != "" {
		source = known
	}
	source = sources.Clean(source)
	r.add(stats.Source, source, visits)
	tags := map[stats.Name]string{}
	for _, name := range []stats.Name{stats.UTMSource, stats.UTMMedium, stats.UTMTerm, stats.UTMContent} {
		if v := r.text(string(name)); v != "" {
			tags[name] = sources.Clean(v)
			r.add(name, tags[name], visits)
		}
	}
	channel := r.text("channel")
	if !slices.Contains(sources.Channels, channel) { // older exports have none
		channel = sources.Channel(source, tags[stats.UTMMedium], r.text("utm_campaign"), tags[stats.UTMSource], "")
	}
	r.add(stats.Channel, channel, visits)
}

func eventsRow(r *row) {
	name := r.text("name")
	if name == "engagement" {
		// Plausible's engagement events are not events here (section 4).
		r.leave("engagement events (not an event here)", "", r.count("events"))
		return
	}
	value, cut := importer.EventValue(name)
	if cut {
		r.note("event names cut to 64 characters", 1)
	}
	if name == "" {
		r.leave("events without a name", "", r.count("events"))
		return
	}
	r.add(stats.Event, value, r.count("events"))
}

func locationsRow(r *row) {
	visits := r.count("visits")
	code := strings.ToUpper(r.text("country"))
	c, ok := stats.Countries[code]
	if !ok {
		r.leave("visits of a country code that names no country", code, visits)
		return
	}
	r.add(stats.Country, c.Country, visits)
	r.add(stats.Continent, c.Continent, visits)
}

func devicesRow(r *row) {
	device := r.text("device")
	switch device {
	case "Desktop", "Mobile", "Tablet":
		r.add(stats.Device, strings.ToLower(device), r.count("visits"))
	case "", "(not set)":
		r.add(stats.Device, "", r.count("visits"))
	default:
		// Laptop: a screen-size class with no counterpart among device types.
		r.leave("visits of a device that is a screen size, not a device type", device, r.count("visits"))
	}
}

// browserName is the collector's name of a browser Plausible names otherwise; versions are
// summed by the counters themselves.
func browserName(name string) string {
	switch name {
	case "Microsoft Edge":
		return "Edge"
	case "Samsung Browser":
		return "Samsung Internet"
	case "(not set)":
		return ""
	}
	return name
}

// systemName is the collector's name of an operating system Plausible names otherwise.
func systemName(name string) string {
	switch name {
	case "Mac":
		return "macOS"
	case "GNU/Linux":
		return "Linux"
	case "iPadOS":
		return "iOS"
	case "(not set)":
		return ""
	}
	return name
}

// referrerValue is the referrer statistic of a source row: the host of its referrer, else its
// source when that is a host name; a source Plausible names (Google, Facebook...) without a
// referrer URL is kept under its name. "" is direct, as is the website's own domain.
func (r *row) referrerValue(referrer, source string) string {
	host := ""
	if referrer != "" {
		if !strings.Contains(referrer, "://") {
			referrer = "http://" + referrer
		}
		if u, err := url.Parse(referrer); err == nil {
			host = u.Hostname()
		}
	}
	if host == "" && source != "Direct / None" {
		host = source
	}
	if bare := strings.TrimPrefix(strings.ToLower(host), "www."); bare == r.domain {
		return ""
	}
	return stats.Truncate(host, importer.MaxValueLength)
}

// fileName is what Plausible names the files: imported_<table>.csv, optionally with the
// export's date range (imported_visitors_20240101_20241231.csv); its importer also takes the
// name without imported_.
var fileName = regexp.MustCompile(`^(?:imported_)?([a-z_]+?)(?:_\d{8}_\d{8})?\.csv$`)

// exportFile is one file of the export that will be read.
type exportFile struct {
	zip   *zip.File
	table *table
}

// openExport checks the zip against the limits and tells its Plausible files from the others.
func openExport(r io.ReaderAt, size int64, limits Limits) ([]exportFile, []string, error) {
	bounded := &boundedReaderAt{r: r, left: maxDirectoryRead}
	z, err := zip.NewReader(bounded, size)
	if errors.Is(err, errDirectoryTooLarge) {
		return nil, nil, fmt.Errorf("the archive's directory takes more than %d KiB: it holds more than %d files, or names too long", maxDirectoryRead>>10, limits.Files)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("the file is not a readable zip archive (%w); a truncated download reads so too", err)
	}
	bounded.left = -1 // the files are read through it: no bound but the budget's
	if len(z.File) > limits.Files {
		return nil, nil, fmt.Errorf("the archive holds %d files, more than %d", len(z.File), limits.Files)
	}
	var total uint64
	var files []exportFile
	var others []string
	for _, f := range z.File {
		total += f.UncompressedSize64
		if f.FileInfo().IsDir() {
			continue
		}
		t := tableOf(path.Base(f.Name))
		if t == nil {
			others = append(others, fileLabel(f.Name))
			continue
		}
		files = append(files, exportFile{zip: f, table: t})
	}
	if total > uint64(limits.Uncompressed) {
		return nil, nil, fmt.Errorf("the archive's files take %d bytes uncompressed, more than %d", total, limits.Uncompressed)
	}
	if !slices.ContainsFunc(files, func(f exportFile) bool { return f.table.name == "visitors" }) {
		return nil, nil, errors.New("the archive is not a Plausible export: it has no imported_visitors CSV file")
	}
	slices.SortStableFunc(files, func(a, b exportFile) int { return tableIndex(a.table) - tableIndex(b.table) })
	return files, others, nil
}

// maxDirectoryRead bounds what zip.NewReader may read: the search for the end record (at most
// 65 KiB) and the directory. zip.NewReader makes a record of every entry the directory lists,
// whatever count the archive declares, before the number of files can be checked; 50 MiB of
// one-letter entries would be a million records. 64 files with names of 1 KiB take 80 KiB.
const maxDirectoryRead = 1 << 20

var errDirectoryTooLarge = errors.New("the archive's directory is too large")

// boundedReaderAt fails once left bytes are read; left < 0 is no bound.
type boundedReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (b *boundedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left < 0 {
		return b.r.ReadAt(p, off)
	}
	if int64(len(p)) > b.left {
		return 0, errDirectoryTooLarge
	}
	n, err := b.r.ReadAt(p, off)
	b.left -= int64(n)
	return n, err
}

func tableOf(name string) *table {
	m := fileName.FindStringSubmatch(name)
	if m == nil {
		return nil
	}
	for i := range tables {
		if tables[i].name == m[1] {
			return &tables[i]
		}
	}
	return nil
}

func tableIndex(t *table) int {
	for i := range tables {
		if &tables[i] == t {
			return i
		}
	}
	return len(tables)
}

// row is one CSV row being read: its columns by header name, and what it adds.
type row struct {
	file    string
	line    int
	columns map[string]int
	record  []string
	day     time.Time
	domain  string // the website's, as stored: a referrer to it is direct
	err     error
	add     func(name stats.Name, value string, n int64)
	leave   func(why, value string, n int64) // counts left out, with why
	note    func(what string, n int64)       // changes worth a line of the summary
}

// text is the value of a column, "" when the file lacks the (optional) column.
func (r *row) text(column string) string {
	i, ok := r.columns[column]
	if !ok {
		return ""
	}
	return stats.Storable(r.record[i])
}

// count is a column's non-negative integer; a bad one fails the row.
func (r *row) count(column string) int64 {
	s := r.record[r.columns[column]]
	if s == `\N` || s == "" { // ClickHouse's NULL, and an empty cell: nothing counted
		return 0
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		r.fail(column, importer.Quote(s)+" is not a count")
		return 0
	}
	return n
}

func (r *row) dayValue() string { return r.day.Format(time.DateOnly) }

func (r *row) fail(column, problem string) {
	if r.err == nil {
		r.err = fmt.Errorf("%s, line %d, column %s: %s", r.file, r.line, column, problem)
	}
}

// readFile reads one file of the export, calling each for every row with its day set. The
// header must name the date and the table's columns, each once; every row must have as many
// fields. It returns the header's columns that nothing reads.
func readFile(f exportFile, budget *int64, each func(r *row) error) (unused []string, err error) {
	name := fileLabel(f.zip.Name)
	rc, err := f.zip.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer rc.Close()
	limited := importer.NewBudget(rc, budget)
	cr := importer.NewCSVReader(limited)
	header, err := cr.Read()
	if err == io.EOF {
		return nil, fmt.Errorf("%s: no header line: the file is empty", name)
	}
	if err != nil {
		return nil, fileError(name, nil, readError(err, limited))
	}
	header = slices.Clone(header)
	header[0] = strings.TrimPrefix(header[0], "\uFEFF")
	columns, err := headerColumns(name, header, f.table)
	if err != nil {
		return nil, err
	}
	used := append(append([]string{"date"}, f.table.columns...), optionalColumns[f.table.name]...)
	for name := range columns {
		if !slices.Contains(used, name) {
			unused = append(unused, name)
		}
	}
	slices.Sort(unused)
	r := &row{file: name, columns: columns}
	for {
		record, err := cr.Read()
		if err == io.EOF {
			return unused, nil
		}
		if err != nil {
			return nil, fileError(name, header, readError(err, limited))
		}
		r.line, r.record, r.err = cr.Line(), record, nil
		day, err := time.Parse(time.DateOnly, record[columns["date"]])
		if err != nil {
			return nil, fmt.Errorf("%s, line %d, column date: %s is not a date (YYYY-MM-DD)", name, cr.Line(), importer.Quote(record[columns["date"]]))
		}
		r.day = day
		if err := each(r); err != nil {
			return nil, err
		}
	}
}

// headerColumns are the header's columns by name. A column the table reads must be there,
// and no column may be there twice: which of the two would count is anybody's guess.
func headerColumns(file string, header []string, t *table) (map[string]int, error) {
	columns := make(map[string]int, len(header))
	for i, name := range header {
		if j, ok := columns[name]; ok {
			return nil, fmt.Errorf("%s: the column %s is in the header twice (columns %d and %d)", file, importer.Quote(name), j+1, i+1)
		}
		columns[name] = i
	}
	for _, c := range append([]string{"date"}, t.columns...) {
		if _, ok := columns[c]; !ok {
			return nil, fmt.Errorf("%s: no column %q (the header has %s)", file, c, importer.Quote(strings.Join(header, ",")))
		}
	}
	return columns, nil
}

// fileError names the file, and the line and column of a CSV problem (the column by its
// header name once the header is read).
func fileError(file string, header []string, err error) error {
	var ce *importer.CSVError
	if !errors.As(err, &ce) {
		return fmt.Errorf("%s: %w", file, err)
	}
	column := fmt.Sprintf("%d", ce.Field+1)
	if ce.Field >= 0 && ce.Field < len(header) {
		column = importer.Cut(header[ce.Field], importer.QuoteLength)
	}
	return fmt.Errorf("%s, line %d, column %s: %s", file, ce.Line, column, ce.Problem)
}

// fileLabel is a file's name as messages and the summary show it: cut, since a zip may name
// a file with 65,535 bytes.
func fileLabel(name string) string { return importer.Cut(name, importer.QuoteLength) }

// readError says which limit a read passed, else what went wrong.
func readError(err error, limited *importer.Budget) error {
	if limited.Over() {
		return errors.New("the archive holds more than its uncompressed limit")
	}
	if errors.Is(err, zip.ErrChecksum) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("the file is damaged or truncated (%w)", err)
	}
	return err
}
