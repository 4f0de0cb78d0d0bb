package main

import (
	"fmt"
	"math"
	"strings"
)

// latencySVG draws p50, p90 and p99 against concurrency, ours solid and the
// floor dashed: a small self-contained SVG, no dependencies.
func latencySVG(results []loadResult, concurrencies []int, title string) string {
	const w, h, left, right, top, bottom = 640, 400, 70, 150, 40, 50
	plotW, plotH := float64(w-left-right), float64(h-top-bottom)
	maxMs := 0.0
	for _, r := range results {
		maxMs = math.Max(maxMs, r.P99Ms)
	}
	yMax := niceCeil(maxMs * 1.1)
	x := func(i int) float64 {
		if len(concurrencies) == 1 {
			return left + plotW/2
		}
		return left + plotW*float64(i)/float64(len(concurrencies)-1)
	}
	y := func(ms float64) float64 { return top + plotH*(1-ms/yMax) }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", left, escape(title))
	for i := 0; i <= 5; i++ { // horizontal grid and y labels
		v := yMax * float64(i) / 5
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#ddd"/>`+"\n", left, left+plotW, y(v), y(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end">%s</text>`+"\n", left-8, y(v)+4, trimFloat(v))
	}
	fmt.Fprintf(&b, `<text x="16" y="%.1f" transform="rotate(-90 16 %.1f)" text-anchor="middle">latency (ms)</text>`+"\n", top+plotH/2, top+plotH/2)
	for i, c := range concurrencies {
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%d</text>`+"\n", x(i), top+plotH+18, c)
	}
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">concurrent clients</text>`+"\n", left+plotW/2, h-10)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="%.1f" fill="none" stroke="#888"/>`+"\n", left, top, plotW, plotH)

	series := []struct {
		label string
		color string
		value func(loadResult) float64
	}{
		{"p50", "#1f77b4", func(r loadResult) float64 { return r.P50Ms }},
		{"p90", "#2ca02c", func(r loadResult) float64 { return r.P90Ms }},
		{"p99", "#d62728", func(r loadResult) float64 { return r.P99Ms }},
	}
	legendY := top + 10
	for _, server := range []string{"ours", "floor"} {
		dash := ""
		if server == "floor" {
			dash = ` stroke-dasharray="6 4"`
		}
		for _, s := range series {
			var pts []string
			for i, c := range concurrencies {
				for _, r := range results {
					if r.Server == server && r.Concurrency == c {
						pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(i), y(s.value(r))))
						fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(i), y(s.value(r)), s.color)
					}
				}
			}
			fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(pts, " "), s.color, dash)
			lx := float64(w - right + 15)
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="%s" stroke-width="2"%s/>`+"\n", lx, lx+28, legendY, legendY, s.color, dash)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s %s</text>`+"\n", lx+34, legendY+4, server, s.label)
			legendY += 18
		}
		legendY += 8
	}
	b.WriteString("</svg>\n")
	return b.String()
}

// niceCeil rounds up to 1, 2 or 5 times a power of ten.
func niceCeil(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v <= m*p {
			return m * p
		}
	}
	return 10 * p
}

func trimFloat(v float64) string {
	s := fmt.Sprintf("%.3f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	return s
}

func escape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}
