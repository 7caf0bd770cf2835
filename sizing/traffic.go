package sizing

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Curve is a traffic curve: the request rate over time, in the time zone
// its timestamps were written in. Points are sorted by time; each holds
// until the next one, and the last for Step.
type Curve struct {
	// Source names the file the curve was read from, for messages.
	Source string
	Points []TrafficPoint
	// Step is the curve's resolution: the smallest gap between two points.
	Step time.Duration
	// Location is the IANA zone the curve was converted into, or "".
	Location string
}

// TrafficPoint is the request rate from At until the next point.
type TrafficPoint struct {
	At  time.Time
	QPS float64
}

// MaxTrafficPoints bounds a curve: a year at one point a minute.
const MaxTrafficPoints = 366 * 24 * 60

// ErrBadTraffic is wrapped by every error ReadTraffic returns for bad
// content.
var ErrBadTraffic = errors.New("bad traffic curve")

// ReadTraffic reads a traffic curve from r, named name in errors. Two
// formats are recognised by their first character:
//
//   - CSV: "timestamp,qps" rows, an optional header line, timestamps in
//     RFC 3339 (their offset is the curve's time zone) or Unix seconds
//     (UTC);
//   - the JSON a Prometheus range query returns (/api/v1/query_range,
//     resultType "matrix"): the series are summed at each timestamp, so a
//     query by pod or instance gives the service's total; the time zone is
//     UTC.
//
// Rates must be finite and >= 0; timestamps strictly increasing (CSV) and
// the curve at least two points long. loc, when not nil, converts every
// timestamp into that zone (an IANA zone for the schedule's cron triggers).
func ReadTraffic(name string, r io.Reader, loc *time.Location) (*Curve, error) {
	b, err := io.ReadAll(io.LimitReader(r, 256<<20))
	if err != nil {
		return nil, fmt.Errorf("traffic %s: %w", name, err)
	}
	t := bytes.TrimSpace(b)
	var c *Curve
	switch {
	case len(t) == 0:
		return nil, fmt.Errorf("traffic %s: %w: empty file; want timestamp,qps rows or a Prometheus range-query JSON export", name, ErrBadTraffic)
	case t[0] == '{':
		c, err = readPromJSON(name, t)
	default:
		c, err = readCSV(name, t)
	}
	if err != nil {
		return nil, err
	}
	if loc != nil {
		c.Location = loc.String()
		for i := range c.Points {
			c.Points[i].At = c.Points[i].At.In(loc)
		}
	}
	return c, c.finish()
}

// readCSV parses timestamp,qps rows.
func readCSV(name string, b []byte) (*Curve, error) {
	cr := csv.NewReader(bytes.NewReader(b))
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	cr.Comment = '#'
	c := &Curve{Source: name}
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// A *csv.ParseError names its own line.
			return nil, fmt.Errorf("%s: %w: %v", name, ErrBadTraffic, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != 2 {
			return nil, fmt.Errorf("%s:%d: %w: %d fields, want 2 (timestamp,qps)", name, line, ErrBadTraffic, len(rec))
		}
		ts, qs := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		if len(c.Points) == 0 && strings.EqualFold(ts, "timestamp") {
			continue // the header
		}
		at, err := parseTimestamp(ts)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w: timestamp %q: want RFC 3339 (2026-11-30T09:00:00+01:00) or Unix seconds", name, line, ErrBadTraffic, ts)
		}
		q, err := strconv.ParseFloat(qs, 64)
		if err != nil || !(q >= 0) || math.IsInf(q, 0) {
			return nil, fmt.Errorf("%s:%d: %w: qps %q: want a finite number >= 0", name, line, ErrBadTraffic, qs)
		}
		if n := len(c.Points); n > 0 && !at.After(c.Points[n-1].At) {
			return nil, fmt.Errorf("%s:%d: %w: timestamp %s is not after the previous row's %s: sort the rows by time",
				name, line, ErrBadTraffic, ts, c.Points[n-1].At.Format(time.RFC3339))
		}
		if len(c.Points) >= MaxTrafficPoints {
			return nil, fmt.Errorf("%s:%d: %w: more than %d rows", name, line, ErrBadTraffic, MaxTrafficPoints)
		}
		c.Points = append(c.Points, TrafficPoint{At: at, QPS: q})
	}
	return c, nil
}

// parseTimestamp reads RFC 3339 (keeping its offset) or Unix seconds (UTC).
func parseTimestamp(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 || f > 1e11 {
		return time.Time{}, fmt.Errorf("not a timestamp")
	}
	sec, frac := math.Modf(f)
	return time.Unix(int64(sec), int64(frac*1e9)).UTC(), nil
}

// promRange is the part of a Prometheus range-query response read here.
type promRange struct {
	Status string `json:"status"`
	Error  string `json:"error"`
	Data   struct {
		ResultType string `json:"resultType"`
		Result     []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	} `json:"data"`
}

// readPromJSON sums a range query's series at each timestamp.
func readPromJSON(name string, b []byte) (*Curve, error) {
	var pr promRange
	if err := json.Unmarshal(b, &pr); err != nil {
		return nil, fmt.Errorf("traffic %s: %w: Prometheus JSON: %v", name, ErrBadTraffic, err)
	}
	if pr.Status != "" && pr.Status != "success" {
		return nil, fmt.Errorf("traffic %s: %w: Prometheus status %q: %s", name, ErrBadTraffic, pr.Status, pr.Error)
	}
	if pr.Data.ResultType != "matrix" {
		return nil, fmt.Errorf("traffic %s: %w: data.resultType is %q, want \"matrix\" (export /api/v1/query_range)", name, ErrBadTraffic, pr.Data.ResultType)
	}
	sum := map[float64]float64{}
	for i, s := range pr.Data.Result {
		for j, v := range s.Values {
			ts, ok := v[0].(float64)
			vs, ok2 := v[1].(string)
			if !ok || !ok2 {
				return nil, fmt.Errorf("traffic %s: %w: data.result[%d].values[%d] is %v, want [unix seconds, \"value\"]", name, ErrBadTraffic, i, j, v)
			}
			q, err := strconv.ParseFloat(vs, 64)
			if err != nil || !(q >= 0) || math.IsInf(q, 0) {
				return nil, fmt.Errorf("traffic %s: %w: data.result[%d].values[%d]: value %q: want a finite number >= 0", name, ErrBadTraffic, i, j, vs)
			}
			sum[ts] += q
		}
	}
	if len(sum) > MaxTrafficPoints {
		return nil, fmt.Errorf("traffic %s: %w: more than %d timestamps", name, ErrBadTraffic, MaxTrafficPoints)
	}
	c := &Curve{Source: name}
	for ts, q := range sum {
		at, err := parseTimestamp(strconv.FormatFloat(ts, 'f', -1, 64))
		if err != nil {
			return nil, fmt.Errorf("traffic %s: %w: timestamp %v: want Unix seconds", name, ErrBadTraffic, ts)
		}
		c.Points = append(c.Points, TrafficPoint{At: at, QPS: q})
	}
	sort.Slice(c.Points, func(i, j int) bool { return c.Points[i].At.Before(c.Points[j].At) })
	return c, nil
}

// finish checks the curve and sets its step. A curve whose last point
// lies exactly one day after its first (a range query from midnight to
// midnight includes both ends) is one day plus the next day's first
// sample: that sample is folded into the first (the higher rate kept),
// so the curve is daily.
func (c *Curve) finish() error {
	if len(c.Points) < 2 {
		return fmt.Errorf("traffic %s: %w: %d points, want at least 2", c.Source, ErrBadTraffic, len(c.Points))
	}
	if n := len(c.Points); n >= 3 && c.Points[n-1].At.Sub(c.Points[0].At) == 24*time.Hour {
		c.Points[0].QPS = max(c.Points[0].QPS, c.Points[n-1].QPS)
		c.Points = c.Points[:n-1]
	}
	c.Step = 0
	for i := 1; i < len(c.Points); i++ {
		if d := c.Points[i].At.Sub(c.Points[i-1].At); c.Step == 0 || d < c.Step {
			c.Step = d
		}
	}
	if c.Peak() == 0 {
		return fmt.Errorf("traffic %s: %w: every rate is 0", c.Source, ErrBadTraffic)
	}
	return nil
}

// Peak is the curve's highest rate.
func (c *Curve) Peak() float64 {
	m := 0.0
	for _, p := range c.Points {
		m = max(m, p.QPS)
	}
	return m
}

// Span is the time the curve covers: from its first point to the end of
// its last (the last point holds for one step).
func (c *Curve) Span() time.Duration {
	return c.end(len(c.Points) - 1).Sub(c.Points[0].At)
}

// end is when point i stops holding.
func (c *Curve) end(i int) time.Time {
	if i+1 < len(c.Points) {
		return c.Points[i+1].At
	}
	return c.Points[i].At.Add(c.Step)
}

// Daily reports whether the curve is one whole day (24 h): its schedule
// then repeats every day, wraps around midnight, and its cron triggers fire
// daily.
func (c *Curve) Daily() bool { return c.Span() == 24*time.Hour }

// Zone names the curve's time zone as its first timestamp gives it:
// "UTC", an IANA name when the curve was converted into one, or the fixed
// offset ("+01:00").
func (c *Curve) Zone() string {
	if c.Location != "" {
		return c.Location
	}
	if _, off := c.Points[0].At.Zone(); off == 0 {
		return "UTC"
	}
	return c.Points[0].At.Format("-07:00")
}
