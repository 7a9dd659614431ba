// Package embed reads the options of a shared link's embed view (embed=true, for an iframe;
// docs/teams.md): its theme, background and width, checked alike where a link is made and
// where it is shown.
package embed

import (
	"net/url"
	"regexp"

	"github.com/analytics-service/analytics/stats"
)

// Options are an embed view's options, as given in its address.
type Options struct {
	Theme      string // "light", "dark", or "" (the reader's system's)
	Background string // a CSS colour (#rgb, #rrggbb...) or "transparent"; "" for the page's own
	Manual     bool   // width=manual: the page fills the iframe's width, however wide
}

// Params are the parameters of an embed view, kept in every link of the view with the
// token.
var Params = []string{"embed", "theme", "background", "width"}

// Colour is a CSS colour as the background option takes it: #rgb, #rgba, #rrggbb, #rrggbbaa.
var Colour = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$`)

// Parse reads the embed parameters; nil without embed=true. Refusals go into errs.
func Parse(q url.Values, errs stats.FieldErrors) *Options {
	switch q.Get("embed") {
	case "":
		for _, k := range Params[1:] {
			if q.Has(k) {
				errs.Add(k, "is an option of embed=true only")
			}
		}
		return nil
	case "true":
	default:
		errs.Add("embed", "must be true")
		return nil
	}
	o := &Options{}
	switch t := q.Get("theme"); t {
	case "light", "dark":
		o.Theme = t
	case "", "system":
	default:
		errs.Add("theme", "must be one of light, dark, system")
	}
	if b := q.Get("background"); b != "" {
		if b != "transparent" && !Colour.MatchString(b) {
			errs.Add("background", "must be transparent or a colour such as #f9f9f9")
		} else {
			o.Background = b
		}
	}
	switch q.Get("width") {
	case "manual":
		o.Manual = true
	case "":
	default:
		errs.Add("width", "must be manual")
	}
	return o
}
