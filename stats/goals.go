package stats

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Goals: a pageview goal is a path pattern, an event goal an event name as the tracker sent
// it (docs/goals.md). These are the rules of a new goal, shared by the API and the settings
// page, and the compilation of a pattern into the regular expression that matches pages.

// MaxGoals is the most goals a website has.
const MaxGoals = 200

// GoalName is the filter on a goal: filter[goal]=DISPLAY_NAME narrows the numbers to the
// visits that convert on it. It is a filter name, not a statistic.
const GoalName Name = "goal"

// The kinds of goal.
const (
	GoalPageview = "pageview"
	GoalEvent    = "event"
)

// Limits of a goal's fields, in characters.
const (
	MaxPagePattern     = 255
	maxGoalEvent       = 64
	MaxGoalDisplayName = 120
)

// GoalInput is a new goal as sent: nil for a field not sent.
type GoalInput struct {
	Kind        string
	Page        *string
	Event       *string
	DisplayName *string
	Currency    *string
}

// Goal is a goal's definition: Page for a pageview goal, Event for an event goal.
type Goal struct {
	ID          int64
	Kind        string
	Page        string
	Event       string
	DisplayName string
	Currency    string // "" for none
}

var currencyCode = regexp.MustCompile(`^[A-Z]{3}$`)

// CheckGoal applies the rules of a new goal: the fields its kind takes, each valid, and the
// default display name ("Visit " and the pattern, or the event name). The refusals name each
// field; the display name's uniqueness and the number of goals are the store's to check.
func CheckGoal(in GoalInput) (Goal, FieldErrors) {
	errs := FieldErrors{}
	g := Goal{Kind: in.Kind}
	text := func(field string, v *string, max int) string {
		switch {
		case !ValidText(*v):
			errs.Add(field, TextRule)
		case *v == "" || utf8.RuneCountInString(*v) > max:
			errs.Add(field, "must be 1 to "+strconv.Itoa(max)+" characters")
		}
		return *v
	}
	switch in.Kind {
	case GoalPageview:
		if in.Page == nil {
			errs.Add("page", "is required for a pageview goal")
		} else if g.Page = text("page", in.Page, MaxPagePattern); len(errs["page"]) == 0 {
			checkPattern(g.Page, errs)
		}
		refuseField(errs, "event", in.Event, "is accepted for event goals only")
		refuseField(errs, "currency", in.Currency, "is accepted for event goals only")
		g.DisplayName = Truncate("Visit "+g.Page, MaxGoalDisplayName)
	case GoalEvent:
		if in.Event == nil {
			errs.Add("event", "is required for an event goal")
		} else {
			g.Event = text("event", in.Event, maxGoalEvent)
		}
		refuseField(errs, "page", in.Page, "is accepted for pageview goals only")
		if in.Currency != nil && *in.Currency != "" {
			if !currencyCode.MatchString(*in.Currency) {
				errs.Add("currency", "must be an ISO 4217 code, three capital letters")
			}
			g.Currency = *in.Currency
		}
		g.DisplayName = g.Event
	default:
		errs.Add("kind", "must be one of pageview, event")
	}
	if in.DisplayName != nil {
		g.DisplayName = text("display_name", in.DisplayName, MaxGoalDisplayName)
	}
	if len(errs) > 0 {
		return Goal{}, errs
	}
	return g, nil
}

// refuseField refuses a field that the goal's kind does not take; sent empty, it is taken as
// not sent (a form's unused box).
func refuseField(errs FieldErrors, field string, v *string, message string) {
	if v != nil && *v != "" {
		errs.Add(field, message)
	}
}

// checkPattern: every alternative of a pattern is a path, starting with "/".
func checkPattern(pattern string, errs FieldErrors) {
	if refusal := PatternRefusal(pattern); refusal != "" {
		errs.Add("page", refusal)
	}
}

// PatternRefusal says why a page pattern (a goal's, a shield's) is no pattern, "" when it is
// one: every alternative is a path, starting with "/". Its length and text are the caller's to
// check.
func PatternRefusal(pattern string) string {
	for _, alt := range strings.Split(pattern, "|") {
		if !strings.HasPrefix(alt, "/") {
			return "must start with / (and so must each alternative after |)"
		}
	}
	return ""
}

// GoalPattern is the compiled pattern of a pageview goal: each alternative anchored at both
// ends, `*` any run of characters, every other character itself (Pattern). It never leaves
// the process: the pages of a range are matched here and only the matching ones go to SQL.
func GoalPattern(pattern string) *Pattern { return CompilePattern(pattern) }

// GoalPath is a stored page value as a pageview goal compares it: without its query string.
func GoalPath(page string) string {
	path, _, _ := strings.Cut(page, "?")
	return path
}

// ConversionRate is visitors as a percentage of base, one decimal (halves away from zero);
// 0 when base is 0.
func ConversionRate(visitors, base int64) float64 {
	return float64(roundedRatio(1000*visitors, base)) / 10
}
