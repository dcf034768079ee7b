package main

import (
	"fmt"
	"math"
	"slices"
)

// A trendCheck judges whether a series (one value per interval, in
// order) trends upward: it fits a line by least squares and calls the
// series rising when both hold:
//
//   - the rise the line projects from the first point to the last,
//     slope × (n − 1), is above the tolerance: Rel of the series' median,
//     or Abs, whichever is larger (noise of a shared machine and of the
//     garbage collector stays under it);
//   - the slope is above 0 with 95 % confidence (one-sided t test on the
//     slope, n − 2 degrees of freedom), so one outlier at the end is not
//     a trend, and a steady climb is, however smooth.
type trendCheck struct {
	Metric    string    `json:"metric"`
	Values    []float64 `json:"values"`
	Median    float64   `json:"median"`
	Rise      float64   `json:"projected_rise"`
	Tolerance float64   `json:"tolerance"`
	T         float64   `json:"t"`
	TCrit     float64   `json:"t_critical"`
	Rising    bool      `json:"rising"`
	// NotJudged, when set, says why the series was left unjudged (and
	// Rising is false).
	NotJudged string `json:"not_judged,omitempty"`
}

// tCrit95 is the one-sided 95 % quantile of Student's t distribution for
// 1..30 degrees of freedom (the usual table); above 30, the normal's.
var tCrit95 = []float64{0, 6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812,
	1.796, 1.782, 1.771, 1.761, 1.753, 1.746, 1.740, 1.734, 1.729, 1.725,
	1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701, 1.699, 1.697}

// perfectLineT stands for the infinite t of points exactly on a sloped
// line (JSON has no infinity).
const perfectLineT = 1e9

// minTrendPoints is the fewest points a trend is judged on.
const minTrendPoints = 3

// checkTrend judges ys (at least minTrendPoints values) with tolerance
// max(rel × median, abs).
func checkTrend(metric string, ys []float64, rel, abs float64) trendCheck {
	c := trendCheck{Metric: metric, Values: ys}
	n := len(ys)
	if n < minTrendPoints {
		panic(fmt.Sprintf("checkTrend %s: %d points, want at least %d", metric, n, minTrendPoints))
	}
	sorted := slices.Clone(ys)
	slices.Sort(sorted)
	if n%2 == 1 {
		c.Median = sorted[n/2]
	} else {
		c.Median = (sorted[n/2-1] + sorted[n/2]) / 2
	}
	c.Tolerance = max(rel*math.Abs(c.Median), abs)
	// x = 0..n-1.
	var meanX, meanY float64
	for i, y := range ys {
		meanX += float64(i)
		meanY += y
	}
	meanX /= float64(n)
	meanY /= float64(n)
	var sxx, sxy float64
	for i, y := range ys {
		dx := float64(i) - meanX
		sxx += dx * dx
		sxy += dx * (y - meanY)
	}
	slope := sxy / sxx
	c.Rise = slope * float64(n-1)
	var sse float64
	for i, y := range ys {
		r := y - (meanY + slope*(float64(i)-meanX))
		sse += r * r
	}
	dof := n - 2
	se := math.Sqrt(sse / float64(dof) / sxx)
	switch {
	case se > 0:
		c.T = slope / se
	case slope > 0:
		c.T = perfectLineT // on a line, exactly
	case slope < 0:
		c.T = -perfectLineT
	}
	c.TCrit = 1.645
	if dof < len(tCrit95) {
		c.TCrit = tCrit95[dof]
	}
	c.Rising = c.Rise > c.Tolerance && c.T > c.TCrit
	return c
}
