package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// A score is what a code base, or a half of the corpus, scored against the verdicts.
type score struct {
	name      string
	half      string
	lines     int
	findings  int
	counts    [4]int // by verdictWords: real, arguable, benign, false
	untriaged []finding
	lost      []verdict
	acqs      map[string]int // acquisition → best verdict of its findings (-1: untriaged)
	wall      time.Duration
	maxRSS    int64
}

// judge scores the findings of one code base against the verdicts.
func judge(c codebase, lines int, m measurement, verdicts []verdict) *score {
	s := &score{name: c.modver, half: c.half, lines: lines, wall: m.wall, maxRSS: m.maxRSS, acqs: map[string]int{}}
	byKey := map[string]verdict{}
	for _, v := range verdicts {
		if v.modver == c.modver {
			byKey[v.key()] = v
		}
	}
	seen := map[string]bool{}
	for _, f := range m.findings {
		if seen[f.key()] {
			continue // one return, one acquisition: reported once
		}
		seen[f.key()] = true
		s.findings++
		acq := f.modver + "\t" + f.path + "\t" + f.acqName + ":" + fmt.Sprint(f.acqLine)
		v, ok := byKey[f.key()]
		r := rank(v.word)
		if !ok || r < 0 {
			s.untriaged = append(s.untriaged, f)
			if _, ok := s.acqs[acq]; !ok {
				s.acqs[acq] = -1
			}
			continue
		}
		s.counts[r]++
		if best, ok := s.acqs[acq]; !ok || best < 0 || r < best {
			s.acqs[acq] = r
		}
	}
	for k, v := range byKey {
		if !seen[k] {
			s.lost = append(s.lost, v)
		}
	}
	sort.Slice(s.lost, func(i, j int) bool { return s.lost[i].pos < s.lost[j].pos })
	return s
}

// add folds a code base's score into a half's.
func (s *score) add(o *score) {
	s.lines += o.lines
	s.findings += o.findings
	for i := range s.counts {
		s.counts[i] += o.counts[i]
	}
	s.untriaged = append(s.untriaged, o.untriaged...)
	s.lost = append(s.lost, o.lost...)
	if s.acqs == nil {
		s.acqs = map[string]int{}
	}
	for k, v := range o.acqs {
		s.acqs[k] = v
	}
	s.wall += o.wall
	s.maxRSS = max(s.maxRSS, o.maxRSS)
}

func (s *score) triaged() int { return s.counts[0] + s.counts[1] + s.counts[2] + s.counts[3] }

// perFinding is the share of triaged findings that are real or arguable.
func (s *score) perFinding() string { return percent(s.counts[0]+s.counts[1], s.triaged()) }

// perAcquisition is the share of triaged acquisitions whose best finding is real or arguable.
func (s *score) perAcquisition() string {
	good, all := 0, 0
	for _, r := range s.acqs {
		if r < 0 {
			continue
		}
		all++
		if r <= 1 {
			good++
		}
	}
	return percent(good, all)
}

func (s *score) falsePer100k() string {
	if s.lines == 0 {
		return "–"
	}
	return fmt.Sprintf("%.1f", float64(s.counts[3])*100000/float64(s.lines))
}

// lostReal counts the lost verdicts that were real.
func (s *score) lostReal() int {
	n := 0
	for _, v := range s.lost {
		if v.word == "real" {
			n++
		}
	}
	return n
}

func percent(n, d int) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f%% (%d/%d)", float64(n)*100/float64(d), n, d)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

const precisionHeader = "| code base | half | lines | findings | real | arguable | benign | false | untriaged | lost | real or arguable, per finding | per acquisition | false /100k | wall | peak RSS |\n" +
	"|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"

func (s *score) row(w io.Writer, bold bool) {
	name := "`" + s.name + "`"
	if bold {
		name = "**" + s.name + "**"
	}
	fmt.Fprintf(w, "| %s | %s | %s | %d | %d | %d | %d | %d | %d | %d | %s | %s | %s | %.0f s | %s |\n",
		name, s.half, thousands(s.lines), s.findings, s.counts[0], s.counts[1], s.counts[2], s.counts[3],
		len(s.untriaged), len(s.lost), s.perFinding(), s.perAcquisition(), s.falsePer100k(),
		s.wall.Seconds(), mib(s.maxRSS))
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
