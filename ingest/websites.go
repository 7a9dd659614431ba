package ingest

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"sync/atomic"

	"github.com/analytics-service/analytics/repository"
	"github.com/analytics-service/analytics/stats"
	"github.com/analytics-service/analytics/website"
)

// Site is what the tracker endpoint knows of a website, parsed once when loaded.
type Website struct {
	ID            int64
	Domain        string
	ExcludeBots   bool
	DropQuery     bool // exclude_params has the line "&"
	ExcludeParams []string
	ExcludeIPs    []netip.Prefix // single addresses as /32 or /128
	// Zone is the website's time zone, whose days and hours its hits count on (Before nil:
	// the collector's, TZ).
	Zone stats.Zone
	// shields block countries, pages and hostnames (shields.go); nil: none.
	shields *shields
}

func (s *Website) excludesParam(name string) bool {
	for _, p := range s.ExcludeParams {
		if p == name {
			return true
		}
	}
	return false
}

func (s *Website) excludesIP(ip netip.Addr) bool {
	if !ip.IsValid() {
		return false
	}
	ip = ip.Unmap()
	for _, p := range s.ExcludeIPs {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// SiteSource is where the cache loads settings from.
type WebsiteSource interface {
	AllWebsiteSettings(ctx context.Context) ([]repository.WebsiteSettings, error)
	WebsiteSettingsByID(ctx context.Context, id int64) (repository.WebsiteSettings, error)
}

// Sites is an in-memory map of website settings by domain, so that the tracker endpoint never
// waits for the database. It is reloaded whole every TTL (changes made on other nodes show up
// within it) and one website at a time, at once, when this node changes one.
type Websites struct {
	source WebsiteSource
	byHost atomic.Pointer[map[string]*Website]
	// reloadMu serialises writers of byHost (a copy-on-write map); readers never lock.
	reloadMu chan struct{}
}

// NewSites makes an empty cache; call Load before serving (app.Start does, and its job list
// reloads it every SETTINGS_TTL).
func NewWebsites(source WebsiteSource) *Websites {
	s := &Websites{source: source, reloadMu: make(chan struct{}, 1)}
	empty := map[string]*Website{}
	s.byHost.Store(&empty)
	return s
}

// Lookup finds the website of a page host (already lower-cased, www. stripped).
func (s *Websites) Lookup(host string) (*Website, bool) {
	site, ok := (*s.byHost.Load())[host]
	return site, ok
}

// Load replaces the whole cache from the database.
func (s *Websites) Load(ctx context.Context) error {
	all, err := s.source.AllWebsiteSettings(ctx)
	if err != nil {
		return fmt.Errorf("sites.load: %w", err)
	}
	next := make(map[string]*Website, len(all))
	for _, settings := range all {
		next[settings.Domain] = newWebsite(settings)
	}
	s.reloadMu <- struct{}{}
	s.byHost.Store(&next)
	<-s.reloadMu
	return nil
}

// Refresh reloads one website after this node changed it; a deleted website leaves the cache.
func (s *Websites) Refresh(ctx context.Context, id int64) error {
	settings, err := s.source.WebsiteSettingsByID(ctx, id)
	if err != nil && !errors.Is(err, repository.ErrNotFound) {
		return fmt.Errorf("sites.refresh: %w", err)
	}
	s.reloadMu <- struct{}{}
	defer func() { <-s.reloadMu }()
	current := *s.byHost.Load()
	next := make(map[string]*Website, len(current)+1)
	for host, site := range current {
		if site.ID != id {
			next[host] = site
		}
	}
	if err == nil {
		next[settings.Domain] = newWebsite(settings)
	}
	s.byHost.Store(&next)
	return nil
}

func newWebsite(settings repository.WebsiteSettings) *Website {
	site := &Website{ID: settings.ID, Domain: settings.Domain, ExcludeBots: settings.ExcludeBots == 1,
		Zone:    repository.ZoneOf(settings.Timezone, settings.TimezoneNext, settings.TimezoneFrom, nil),
		shields: newShields(settings)}
	if settings.ExcludeParams != nil {
		for _, line := range website.Lines(*settings.ExcludeParams) {
			if line == "&" {
				site.DropQuery = true
				continue
			}
			site.ExcludeParams = append(site.ExcludeParams, line)
		}
	}
	if settings.ExcludeIPs != nil {
		for _, line := range website.Lines(*settings.ExcludeIPs) {
			// The API validated every line; one that no longer parses is skipped, not fatal.
			if p, err := website.ParsePrefix(line); err == nil {
				site.ExcludeIPs = append(site.ExcludeIPs, p)
			}
		}
	}
	return site
}
