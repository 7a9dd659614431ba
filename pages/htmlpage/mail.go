package htmlpage

import (
	"context"
	"fmt"
	"html/template"

	"github.com/analytics-service/analytics/repository"
)

// MailLink queues the mail of a one-use link.
func (p *Base) MailLink(to, kind, token string) {
	url := p.Links.Public.String() + "/set-password?token=" + token
	subject, intro, valid := "Your password for Analytics", "An admin made you a link to set your password.", "7 days"
	switch kind {
	case repository.LinkInvite:
		subject, intro = "You are invited to Analytics", "You are invited to an account of Analytics at "+p.Links.Public.Host+"."
	case repository.LinkReset:
		subject, intro, valid = "Reset your Analytics password", "Someone, probably you, asked to reset the password of this account.", "one hour"
	}
	text := fmt.Sprintf("%s\n\nOpen this link to set your password (it works once, for %s):\n%s\n\nIf you did not expect this mail, ignore it: nothing changes.\n", intro, valid, url)
	html := fmt.Sprintf(`<p>%s</p><p><a href="%s">Set your password</a> (the link works once, for %s).</p><p>If you did not expect this mail, ignore it: nothing changes.</p>`,
		template.HTMLEscapeString(intro), template.HTMLEscapeString(url), valid)
	p.Outbox.Enqueue(func(ctx context.Context) error {
		return p.Outbox.Send(ctx, to, subject, text, html)
	})
}
