package match

import "math"

// Pentanomial counts game pairs by player 1's points in the pair:
// [0] 0, [1] ½, [2] 1, [3] 1½, [4] 2.
type Pentanomial [5]int

// Pairs returns the number of pairs counted.
func (p Pentanomial) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// z95 is the two-sided 95 % normal quantile.
const z95 = 1.959963984540054

// Stats are a match's statistics from player 1's point of view, computed
// from the pentanomial counts (docs/engine.md, "Match methodology").
type Stats struct {
	Pairs int
	// Score is the mean score per game, in [0, 1].
	Score float64
	// ScoreLow and ScoreHigh bound Score's 95 % confidence interval.
	ScoreLow, ScoreHigh float64
	// Elo is the logistic Elo difference for Score; EloLow and EloHigh
	// are those of the interval's ends (±Inf at a score of 0 or 1).
	Elo, EloLow, EloHigh float64
	// PairVariance is the variance of the per-pair score (pair points/2).
	PairVariance float64
	// Degenerate: every pair had the same score, so the normal interval
	// has no width; the interval is then the exact one-sided 97.5 %
	// Clopper–Pearson bound for that pair result (see ComputeStats).
	Degenerate bool
}

// EloOf returns the logistic Elo difference for a mean score s:
// -400·log10(1/s - 1).
func EloOf(s float64) float64 {
	switch {
	case s <= 0:
		return math.Inf(-1)
	case s >= 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ScoreOf returns the expected score at a logistic Elo difference.
func ScoreOf(elo float64) float64 { return 1 / (1 + math.Pow(10, -elo/400)) }

// ComputeStats computes the score, its 95 % interval and the Elo from the
// pentanomial counts. Each pair's score x is its points divided by 2 (0,
// ¼, ½, ¾, 1); with N pairs and the frequencies p_i,
//
//	μ = Σ p_i x_i,  σ² = Σ p_i (x_i - μ)²,  interval μ ± 1.96·√(σ²/N),
//
// and the Elo bounds are EloOf of the interval's ends. Pairing games with
// colours swapped removes the opening's bias from the variance, which is
// why the pair, not the game, is the unit.
//
// When all N pairs scored 2 (or all 0) σ² is 0 and the normal interval is
// empty; then μ ≥ P(pair = 2) and the exact lower 97.5 % bound of that
// probability after N successes in N trials, 0.025^(1/N), bounds the score
// instead (symmetrically for all losses). Other degenerate samples (every
// pair 1-1, etc.) keep the zero-width interval and are flagged.
func ComputeStats(p Pentanomial) Stats {
	n := p.Pairs()
	st := Stats{Pairs: n}
	if n == 0 {
		st.Score, st.ScoreLow, st.ScoreHigh = 0.5, 0, 1
		st.EloLow, st.EloHigh = math.Inf(-1), math.Inf(1)
		return st
	}
	var mu float64
	for i, c := range p {
		mu += float64(c) * float64(i) / 4
	}
	mu /= float64(n)
	var v float64
	for i, c := range p {
		d := float64(i)/4 - mu
		v += float64(c) * d * d
	}
	v /= float64(n)
	half := z95 * math.Sqrt(v/float64(n))
	st.Score, st.PairVariance = mu, v
	st.ScoreLow, st.ScoreHigh = max(mu-half, 0), min(mu+half, 1)
	if v == 0 {
		st.Degenerate = true
		bound := math.Pow(0.025, 1/float64(n))
		switch {
		case p[4] == n:
			st.ScoreLow = bound
		case p[0] == n:
			st.ScoreHigh = 1 - bound
		}
	}
	st.Elo, st.EloLow, st.EloHigh = EloOf(mu), EloOf(st.ScoreLow), EloOf(st.ScoreHigh)
	return st
}

// SPRT bounds for α = β = 0.05: accept H1 at LLR ≥ ln((1-β)/α), H0 at
// LLR ≤ ln(β/(1-α)).
var (
	SPRTUpper = math.Log(0.95 / 0.05)
	SPRTLower = math.Log(0.05 / 0.95)
)

// LLR returns the log-likelihood ratio of H1 (Elo = elo1) against H0
// (Elo = elo0), logistic Elo, in the normal approximation on the
// pentanomial pair scores: with μ and σ² as in ComputeStats, N pairs and
// μ_k = ScoreOf(elo_k),
//
//	LLR = N·(μ1 - μ0)·(2μ - μ0 - μ1) / (2σ²),
//
// which is log of the ratio of two normal likelihoods of the sample mean
// with variance σ²/N. When σ² is 0 (every pair scored the same) the
// normal model has no spread; then, as fishtest does, every empty cell of
// the pentanomial gets a pseudo-count of 0.001 before μ and σ² are taken,
// which keeps the ratio finite and on the side the sample points to.
func LLR(p Pentanomial, elo0, elo1 float64) float64 {
	n, mu, v := moments([5]float64{float64(p[0]), float64(p[1]), float64(p[2]), float64(p[3]), float64(p[4])})
	if n == 0 {
		return 0
	}
	if v == 0 {
		var q [5]float64
		for i, c := range p {
			q[i] = float64(c)
			if c == 0 {
				q[i] = 1e-3
			}
		}
		n, mu, v = moments(q)
	}
	mu0, mu1 := ScoreOf(elo0), ScoreOf(elo1)
	return n * (mu1 - mu0) * (2*mu - mu0 - mu1) / (2 * v)
}

// moments returns the number of pairs, the mean pair score and its
// variance for (possibly fractional) pentanomial counts.
func moments(c [5]float64) (n, mu, v float64) {
	for i, k := range c {
		n += k
		mu += k * float64(i) / 4
	}
	if n == 0 {
		return 0, 0, 0
	}
	mu /= n
	for i, k := range c {
		d := float64(i)/4 - mu
		v += k * d * d
	}
	return n, mu, v / n
}
