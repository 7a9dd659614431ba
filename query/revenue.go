package query

import (
	"math/big"
	"strings"
)

// Revenue is a revenue metric's value as Plausible answers it: the amount (exact, a decimal
// as PostgreSQL summed it), its currency, and the amount written for a glance (Short: "€1.2M")
// and in full (Long: "€1,234,567.89"), in English as Plausible writes them.
type Revenue struct {
	Value    string // the amount with no trailing zeros after the point: a JSON number
	Currency string
	Short    string
	Long     string
}

// currencySymbols are the symbols English writes before an amount; another currency is
// written by its code and a no-break space ("CHF 12.00").
var currencySymbols = map[string]string{
	"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "INR": "₹", "CNY": "CN¥", "CAD": "CA$",
	"AUD": "A$", "NZD": "NZ$", "HKD": "HK$", "MXN": "MX$", "BRL": "R$", "ILS": "₪", "KRW": "₩",
	"VND": "₫", "TWD": "NT$", "PHP": "₱", "XAF": "FCFA", "XOF": "F\u202fCFA", "XCD": "EC$", "XPF": "CFPF",
}

// wholeCurrencies are written without decimals (ISO 4217's minor unit 0).
var wholeCurrencies = map[string]bool{"JPY": true, "KRW": true, "VND": true, "CLP": true, "ISK": true,
	"PYG": true, "UGX": true, "XAF": true, "XOF": true, "XPF": true, "KMF": true, "GNF": true,
	"RWF": true, "DJF": true, "BIF": true, "VUV": true}

// shortUnits are the steps of Short, each a thousand times the one before.
var shortUnits = []string{"", "K", "M", "B", "T"}

// NewRevenue writes amount (a decimal without exponent, as PostgreSQL writes a numeric) in
// currency. An amount that is not a decimal (never from PostgreSQL) is written as 0.
func NewRevenue(amount, currency string) Revenue {
	r, ok := new(big.Rat).SetString(amount)
	if !ok {
		r, amount = new(big.Rat), "0"
	}
	symbol, ok := currencySymbols[currency]
	if !ok {
		symbol = currency + "\u00a0"
	}
	digits := 2
	if wholeCurrencies[currency] {
		digits = 0
	}
	return Revenue{Value: trimZeros(amount), Currency: currency,
		Short: symbol + shortAmount(r), Long: symbol + groupThousands(r.FloatString(digits))}
}

// shortAmount is r with one decimal in the largest unit that leaves less than a thousand
// (rounded): 1234567 is 1.2M.
func shortAmount(r *big.Rat) string {
	thousand := big.NewRat(1000, 1)
	scaled := new(big.Rat).Set(r)
	for i, unit := range shortUnits {
		s := scaled.FloatString(1) // halves away from zero
		if v, _ := new(big.Rat).SetString(s); v.Cmp(thousand) < 0 || i == len(shortUnits)-1 {
			return s + unit
		}
		scaled.Quo(scaled, thousand)
	}
	panic("unreachable")
}

// groupThousands puts a comma between each three digits of a decimal's integer part.
func groupThousands(s string) string {
	whole, frac, hasFrac := strings.Cut(s, ".")
	var sb strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			sb.WriteByte(',')
		}
		sb.WriteRune(c)
	}
	if hasFrac {
		sb.WriteString("." + frac)
	}
	return sb.String()
}

// trimZeros drops a decimal's trailing zeros after the point, and the point if nothing is left.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}
